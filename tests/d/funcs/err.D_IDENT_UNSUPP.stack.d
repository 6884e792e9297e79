/* stack( ): no kernel stacks are recorded */
BEGIN
{
	stack();
}
