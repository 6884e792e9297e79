/*
 * boolean_t is the Solaris kernel's typedef enum { B_FALSE, B_TRUE }
 * boolean_t (<sys/types.h>), which DTrace scripts use from the kernel's
 * types: a signed int, its enumerators 0 and 1.  The DTraceToolkit's
 * j_calltime.d casts a probe argument to it and compares with B_FALSE.
 */
#pragma D option quiet

boolean_t b;

BEGIN
{
	self->full = (boolean_t)arg0;
	printf("%s\n", self->full == B_FALSE ? "GC" : "Full GC");
	self->full = (boolean_t)1;
	printf("%s\n", self->full == B_FALSE ? "GC" : "Full GC");
	printf("%d %d %d\n", B_FALSE, B_TRUE, sizeof (boolean_t));
	/* an int: the upper half of a 64-bit value dropped, signed */
	x = (boolean_t)0x100000001;
	y = (boolean_t)-1;
	z = (boolean_t)0xffffffff;
	printf("%d %d %d\n", x, y, z);
	b = B_TRUE;
	printf("%d %d\n", b, sizeof (b));
	/* B_TRUE is an int constant: it folds and compares as one */
	printf("%d %d\n", B_TRUE + B_TRUE, B_TRUE == 1);
	exit(0);
}
