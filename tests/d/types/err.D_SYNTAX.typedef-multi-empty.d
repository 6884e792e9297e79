/* a ',' with no declarator after it is a syntax error */
typedef int a_t, ;

BEGIN
{
	exit(0);
}
