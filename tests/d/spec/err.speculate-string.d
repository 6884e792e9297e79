/* speculate( ) takes an integer ID. */
BEGIN
{
	speculate("1");
}
