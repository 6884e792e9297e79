/* Keys of two types for one %hd: the type is not one, refused. */
BEGIN
{
	@[(short)1] = count();
	@[(int)2] = count();
	printa("%hd %@d\n", @);
	exit(0);
}
