/* speculate( ) at most once per clause. */
BEGIN
{
	speculate(1);
	speculate(1);
}
