/* `name reads a kernel symbol (the D reference's "External Variables"):
 * refused with the reason, not as an invalid character */
BEGIN
{
	trace(`kmem_flags);
	exit(0);
}
