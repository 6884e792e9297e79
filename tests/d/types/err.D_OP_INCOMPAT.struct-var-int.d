struct s { int a; };

/* this->v holds a struct: an integer may not be assigned to it. */
BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	this->v = *this->p;
	this->v = 1;
}
