/* A string's characters are read, never written: s[0] = is not an
 * associative array of the name s. */
BEGIN
{
	s = "abc";
	s[0] = 65;
}
