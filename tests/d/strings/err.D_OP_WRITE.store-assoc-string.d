/* an associative array's string element is not written in place */
BEGIN
{
	a[1] = "xy";
	a[1][0] = 1;
}
