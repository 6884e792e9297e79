/*
 * A this-> struct variable's member: its storage is the clause's and is
 * dropped when the clause ends, so & refuses it with the reason (only a
 * global struct or array variable's storage may be pointed into).
 */
struct foo {
	int m;
};
this struct foo t;

BEGIN
{
	trace((long)&this->t.m);
}
