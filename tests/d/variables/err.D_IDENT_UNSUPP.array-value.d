/* an array is no value of its own: its elements are */
int a[5];

BEGIN
{
	trace(a);
}
