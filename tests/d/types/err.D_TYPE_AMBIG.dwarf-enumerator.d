/*
 * MODE_CLASH is 6 in triggers/tr-types and 5 in its library
 * libtr-types.so: unscoped, D cannot tell which is meant.
 */
BEGIN
{
	trace(MODE_CLASH);
}
