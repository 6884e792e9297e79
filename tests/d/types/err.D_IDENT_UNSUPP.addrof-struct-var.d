/*
 * A struct variable's member: DTrace would give an address in its own
 * kernel storage; here a D variable is held by value in dtrace, with no
 * address a traced process or a later firing could use, so & refuses it
 * rather than give a number that names nothing.
 */
struct s {
	int a;
};
self struct s v;

BEGIN
{
	trace((long)&self->v.a);
}
