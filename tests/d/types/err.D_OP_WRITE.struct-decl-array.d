struct s { int a[2]; };
struct s x;

/* an array member is not assigned whole: its elements are */
BEGIN
{
	x.a = 1;
}
