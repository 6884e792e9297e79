/*
 * The address of anything else (an element, a member) is not supported:
 * the message says so rather than "syntax error near &".
 */
int a[5];

BEGIN
{
	x = &a[0];
}
