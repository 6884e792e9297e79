/* Associative arrays: integer, string and tuple keys; an element never
 * assigned reads as zero. */
#pragma D option quiet

BEGIN
{
	a[1] = 10;
	a[2] = 20;
	names["one"] = "uno";
	t[1, "x"] = 5;
	t[1, "x"] += 1;
	printf("%d %d %d %s %d\n", a[1], a[2], a[3], names["one"], t[1, "x"]);
	exit(0);
}
