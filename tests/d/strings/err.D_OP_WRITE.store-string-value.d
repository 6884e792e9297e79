/* nor a character of a string value: stringof( ) gives a string, not
 * the bytes it was made of */
BEGIN
{
	this->p = alloca(4);
	stringof(this->p)[0] = 'x';
}
