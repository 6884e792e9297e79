/* printa() of several aggregations: a row per key found in any of them,
 * zero where one lacks the key, the keys then each value; rows sorted by
 * the first aggregation's value, then the next one's, then the keys; no
 * empty line before the rows (printa(@one) has one).  With a format the
 * k-th %@ takes the k-th aggregation. */
#pragma D option quiet

BEGIN
{
	@c["a", 1] = count();
	@c["b", 2] = count();
	@c["b", 2] = count();
	@c["c", 3] = count();
	@s["a", 1] = sum(100);
	@s["c", 3] = sum(7);
	@s["d", 4] = sum(-1);
	@m["b", 2] = max(-9);
	printa(@c, @s, @m);
	printf("--\n");
	printa("%s/%d: count %@d sum %@d max %@d\n", @c, @s, @m);
	printf("--\n");
	printa("%s/%d: sum %@d count %@d\n", @s, @c);
	printf("--\n");
	printa("%s/%d only the keys\n", @s, @c);
	exit(0);
}
