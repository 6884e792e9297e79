/*
 * triggers/tr-nodebug is tr-calls without its debug information, as a
 * stripped program ships: a type scoped to it is refused, saying so.
 */
BEGIN
{
	trace(sizeof (struct a.out`tr_pair));
}
