/* A variable read but never assigned anywhere. */
BEGIN
{
	trace(undefined);
}
