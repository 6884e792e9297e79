/*
 * A struct the scoped object's debug information does not declare.
 */
BEGIN
{
	trace(sizeof (struct a.out`no_such_struct));
}
