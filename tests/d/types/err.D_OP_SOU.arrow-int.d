BEGIN { this->p = (int *)copyin(0, 4); trace(this->p->a); }
