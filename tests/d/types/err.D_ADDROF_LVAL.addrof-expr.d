/* & takes an object's address, not a value's (DTrace's "unacceptable
 * operand for unary & operator") */
BEGIN
{
	x = 1;
	trace((long)&(x + 1));
}
