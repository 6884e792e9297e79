/* A syntax error names the line and column of the token. */
BEGIN
{
	x = 1 +;
}
