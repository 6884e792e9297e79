/* two names with no ',' between them: a syntax error at the second */
typedef int a_t b_t;

BEGIN
{
	exit(0);
}
