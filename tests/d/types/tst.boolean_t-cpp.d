/*
 * The DTraceToolkit's Java scripts #define B_FALSE 0 themselves and
 * cast to boolean_t (j_calltime.d, run with -C): the preprocessor's
 * B_FALSE and the kernel's type together.
 */
#define B_FALSE	0
#pragma D option quiet

BEGIN
{
	self->full = (boolean_t)arg0;
	@num["gc", self->full == B_FALSE ? "GC" : "Full GC"] = count();
	self->full = (boolean_t)2;
	@num["gc", self->full == B_FALSE ? "GC" : "Full GC"] = count();
	@num["gc", self->full == B_FALSE ? "GC" : "Full GC"] = count();
	exit(0);
}

END
{
	printa("%-4s %-8s %@d\n", @num);
}
