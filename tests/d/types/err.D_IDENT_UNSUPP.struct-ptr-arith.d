struct s { int a; };
BEGIN { this->p = (struct s *)copyin(0, 8); trace((this->p + 1)->a); }
