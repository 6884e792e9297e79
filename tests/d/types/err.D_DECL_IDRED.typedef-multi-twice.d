/* a name given twice in one typedef, as different types: refused at
 * the second, as a second typedef of it would be */
typedef int a_t, *a_t;

BEGIN
{
	exit(0);
}
