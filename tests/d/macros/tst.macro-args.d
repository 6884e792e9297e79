/* $1.. are the operands after the script: numbers are integers, other
 * text is a string; $$1 is always a string. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %s %s\n", $1 + 1, $2, $3, $$1);
	exit(0);
}
