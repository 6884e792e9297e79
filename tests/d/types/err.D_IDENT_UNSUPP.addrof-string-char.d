/* a D string's character: dtrace's own storage, no address */
BEGIN
{
	s = "abc";
	trace((long)&s[1]);
}
