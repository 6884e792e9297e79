/* The sort options, set by pragma and changed by setopt() while the
 * program runs: aggsortpos picks the aggregation of a joined printa()
 * compared first, aggsortkeypos the key compared first (cyclically),
 * aggsortkey keys before values, aggsortrev reverses everything;
 * trunc() keeps the largest values whatever aggsortkey says. */
#pragma D option quiet
#pragma D option aggsortpos=1

BEGIN
{
	@a["x", 3] = sum(1);
	@a["y", 1] = sum(2);
	@a["z", 2] = sum(3);
	@b["x", 3] = sum(30);
	@b["y", 1] = sum(10);
	@b["z", 2] = sum(20);
	printa("pos 1: %s %d %@d %@d\n", @a, @b);
	setopt("aggsortpos", "0");
	printa("pos 0: %s %d %@d %@d\n", @a, @b);
	setopt("aggsortkey");
	printa("key: %s %d %@d\n", @a);
	setopt("aggsortkeypos", "1");
	printa("keypos 1: %s %d %@d\n", @a);
	setopt("aggsortrev");
	printa("rev: %s %d %@d\n", @a);
	setopt("aggsortkeypos", "5");
	printa("keypos 5: %s %d %@d\n", @a);
	setopt("aggsortrev", "no");
	trunc(@b, 2);
	printa("trunc: %s %d %@d\n", @b);
	setopt("nosuchoption");
	setopt("bufsize", "8m");
	exit(0);
}
