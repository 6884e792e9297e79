struct s { int a; };
struct s x;

/* a struct variable is not a value of its own: its members are */
BEGIN
{
	trace(x);
}
