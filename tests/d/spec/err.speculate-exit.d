/* No exit( ) after speculate( ), also in an if. */
BEGIN
{
	speculate(1);
	if (1)
		exit(0);
}
