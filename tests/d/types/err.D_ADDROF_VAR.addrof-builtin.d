/*
 * The Dynamic Tracing Guide's "Pointers to DTrace Objects": the D
 * compiler prohibits & on DTrace's own objects, built-in variables
 * among them.
 */
BEGIN
{
	trace((long)&timestamp);
}
