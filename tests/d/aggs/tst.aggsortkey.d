/* aggsortkey sorts by key, aggsortrev reverses the order. */
#pragma D option quiet
#pragma D option aggsortkey
#pragma D option aggsortrev

BEGIN
{
	@a["b"] = sum(1);
	@a["c"] = sum(3);
	@a["a"] = sum(2);
	exit(0);
}
