/* An unterminated comment. */
BEGIN
{
	/* exit(0);
}
