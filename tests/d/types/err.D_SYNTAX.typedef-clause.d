BEGIN
{
	typedef int myint;
	exit(0);
}
