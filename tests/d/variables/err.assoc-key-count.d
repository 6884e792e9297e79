/* Without a declaration, the first use fixes the key count. */
BEGIN
{
	a[1] = 1;
	a[1, 2] = 2;
}
