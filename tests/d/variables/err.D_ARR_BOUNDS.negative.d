/* a negative constant index */
self int a[3];

BEGIN
{
	trace(self->a[-1]);
}
