struct in { int b; };
struct s { int a; struct in in; };
struct s x;

/* a nested struct is not assigned whole: its members are */
BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	x.in = *(struct in *)this->p;
}
