/* a string's character is read (s[i]), not written: D's strings are
 * values, not buffers in place */
BEGIN
{
	this->s = "abc";
	this->s[1] = 'x';
}
