/* A function D does not have. */
BEGIN
{
	trace(nosuchfunc(1));
}
