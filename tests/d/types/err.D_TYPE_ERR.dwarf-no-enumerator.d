/*
 * An enumerator the scoped object's debug information does not declare.
 */
BEGIN
{
	trace(a.out`NO_SUCH_ENUMERATOR);
}
