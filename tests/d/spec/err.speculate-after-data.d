/* speculate( ) comes before the data-recording actions. */
BEGIN
{
	printf("x");
	speculate(1);
}
