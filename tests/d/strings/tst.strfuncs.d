/* The string functions: strlen(), strjoin(), lltostr(), stringof(). */
#pragma D option quiet

BEGIN
{
	printf("%d %d\n", strlen("hello"), strlen(""));
	printf("%s\n", strjoin("foo", "bar"));
	printf("%s %s\n", lltostr(-1234), lltostr(0));
	printf("%s\n", stringof("already a string"));
	printf("%d\n", strlen(strjoin("ab", lltostr(100))));
	exit(0);
}
