/* a script's own global of a name DTrace has as a built-in it does not
 * support here is the script's */
#pragma D option quiet

BEGIN
{
	root = 5;
	printf("%d\n", root);
	exit(0);
}
