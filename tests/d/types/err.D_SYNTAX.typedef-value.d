typedef int myint;

BEGIN
{
	myint = 1;
	exit(0);
}
