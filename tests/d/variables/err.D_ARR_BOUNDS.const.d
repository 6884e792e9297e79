/* a constant index outside the array, found at compile time */
int a[5];

BEGIN
{
	a[5] = 1;
}
