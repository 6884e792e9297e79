/* llquantize( )'s largest bound, factor^(high+1), must fit in 64 bits. */
BEGIN
{
	@a = llquantize(1, 10, 0, 19, 10);
}
