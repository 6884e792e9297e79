/* An associative array's integer keys name its elements by their values,
 * whatever their types: DTrace compares a dynamic variable's key by the
 * value in its register, and the guide has x['a'] name x[123ull]'s
 * array.  n[arg0 % 2] (an int64_t) and n[0] (an int), n[(uint8_t)1]
 * and n[1LL] are one element each; -1 as an int and as an int64_t are
 * one, and (uint32_t)-1 another.  The same for self-> arrays.  Before,
 * each key's type was part of the element (d_key_add()): 0 0 0 0. */
#pragma D option quiet

BEGIN
{
	n[(int64_t)0] = 3;
	n[(int64_t)1] = 3;
	n[-1] = 7;
	self->m[(int64_t)0] = 4;
	self->m[1LL] = 5;
	printf("%d %d %d %d\n", n[0], n[(uint8_t)1], self->m[0],
	    self->m[(uint8_t)1]);
	printf("%d %d\n", n[(int64_t)-1], n[(uint32_t)-1]);
	n[0]++;
	printf("%d\n", n[(int64_t)0]);
	exit(0);
}
