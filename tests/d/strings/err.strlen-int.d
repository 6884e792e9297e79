/* strlen() of an integer is a type mismatch. */
BEGIN
{
	trace(strlen(42));
}
