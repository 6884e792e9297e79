/* printa()'s %hd takes a short key: an int key is refused. */
BEGIN
{
	@[70000] = count();
	printa("%hd %@d\n", @);
	exit(0);
}
