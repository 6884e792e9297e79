struct s;
BEGIN { this->p = (struct s *)copyin(0, 4); trace(this->p->a); }
