/* a member is not an assignment's target (a pointer to its bytes is) */
struct pair { int a; int b; };

BEGIN
{
	this->p = (struct pair *)alloca(sizeof (struct pair));
	*(int *)((char *)this->p + offsetof(struct pair, b)) = 1;
	this->p->a = 1;
}
