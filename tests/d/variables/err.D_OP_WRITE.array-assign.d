/* C's arrays are not assigned whole: their elements are */
int a[5];
int b[5];

BEGIN
{
	a = b;
}
