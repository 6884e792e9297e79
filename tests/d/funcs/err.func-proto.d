/* A function argument of the wrong kind: substr()'s index. */
BEGIN
{
	x = substr("abc", "1");
}
