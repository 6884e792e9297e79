/* strsize bounds strings as printed, NUL included. */
#pragma D option quiet
#pragma D option strsize=5

BEGIN
{
	printf("[%s]\n", "abcdefgh");
	trace("abcdefgh");
	trace("\n");
	exit(0);
}
