struct s { int a; char n[4]; };
BEGIN { this->p = (struct s *)copyin(0, 8); trace(this->p->n); }
