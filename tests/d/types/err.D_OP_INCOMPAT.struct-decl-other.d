struct s { int a; };
struct t { int a; };

/* the same members, another type: C assigns neither to the other */
struct s x;
struct t y;

BEGIN
{
	x = y;
}
