struct s { int a; };

/* a struct variable holds structs: an integer is not assigned to it */
struct s x;

BEGIN
{
	x = 1;
}
