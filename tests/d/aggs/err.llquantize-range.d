/* llquantize( )'s high magnitude must exceed its low one. */
BEGIN
{
	@a = llquantize(timestamp, 10, 2, 2, 10);
}
