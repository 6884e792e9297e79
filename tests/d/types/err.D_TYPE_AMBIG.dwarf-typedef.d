/*
 * tr_conflict_t names a struct of another layout in triggers/tr-types
 * than in its library libtr-types.so: unscoped, it is ambiguous.
 */
BEGIN
{
	trace(sizeof (tr_conflict_t));
}
