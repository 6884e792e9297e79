/* a declared self-> array's keys are its declaration's kinds */
self int depth[int];

BEGIN
{
	self->depth["main"] = 1;
}
