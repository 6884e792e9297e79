struct s { int a; };

/* ++ of a struct variable. */
BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	this->v = *this->p;
	this->v++;
}
