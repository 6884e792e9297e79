/* llquantize( )'s steps must be a multiple of its factor. */
BEGIN
{
	@a = llquantize(1, 10, 0, 4, 15);
}
