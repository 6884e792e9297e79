/* trunc(@a, n) keeps the n largest entries, trunc(@a) none; clear()
 * zeroes the values and keeps the keys. */
#pragma D option quiet

BEGIN
{
	@t["a"] = sum(1);
	@t["b"] = sum(2);
	@t["c"] = sum(3);
	trunc(@t, 2);
	printa("trunc 2: %s %@d\n", @t);
	trunc(@t);
	printa("trunc: %s %@d\n", @t);
	@c["k"] = sum(9);
	clear(@c);
	printa("clear: %s %@d\n", @c);
	exit(0);
}
