/* a thread-local variable is a D variable: no address (DTrace's
 * D_ADDROF_VAR, "cannot take address of dynamic variable") */
BEGIN
{
	self->x = 1;
	trace((long)&self->x);
}
