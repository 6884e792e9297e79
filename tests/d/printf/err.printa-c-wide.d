/* printa()'s %c takes a char, short or int key: a uint64_t key is refused. */
BEGIN
{
	@[timestamp] = count();
	printa("%c %@d\n", @);
	exit(0);
}
