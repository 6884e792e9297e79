/* ustack()'s frame count is a constant, as DTrace's compiler wants it. */
BEGIN
{
	n = 3;
	ustack(n);
}
