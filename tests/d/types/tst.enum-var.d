/*
 * Variables, members and casts of an enum type the script declares:
 * each an int, as the enumerators are (a value stored converted to 4
 * signed bytes).
 */
#pragma D option quiet

enum color { RED, GREEN = 5, BLUE };
enum color c;
this enum color tc;
struct paint {
	char tag;
	enum color col;
};

BEGIN
{
	c = BLUE;
	this->tc = (enum color)0x1fffffffe;
	printf("%d %d %d %d\n", c, this->tc, sizeof (enum color),
	    sizeof (c));
	printf("%d %d\n", sizeof (struct paint), offsetof (struct paint, col));
	exit(0);
}
