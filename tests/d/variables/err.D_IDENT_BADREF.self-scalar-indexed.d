/* self->x is a scalar: it may not be indexed as an array after. */
BEGIN
{
	self->x = 1;
	self->x[1] = 2;
}
