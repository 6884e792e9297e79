/* a declared self-> array is not a scalar */
self int depth[int];

BEGIN
{
	self->depth = 1;
}
