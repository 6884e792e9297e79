struct s { int a; };

/* Only global and this-> variables hold structs here. */
BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	self->v = *this->p;
}
