/* a bit-field has no address of its own, as in C and DTrace */
struct s {
	int a : 3;
	int b;
};

BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	trace((long)&this->p->a);
}
