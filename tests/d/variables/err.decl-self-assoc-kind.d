/* a declared self-> array's value kind is held, and the message names it */
self int depth[int];

BEGIN
{
	self->depth[1] = "s";
}
