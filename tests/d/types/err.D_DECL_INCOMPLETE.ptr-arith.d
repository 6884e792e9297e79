struct s;
BEGIN { this->p = (struct s *)copyin(0, 8); trace((long)(this->p + 1)); }
