/* A macro argument the command line did not give. */
BEGIN
{
	trace($3);
}
