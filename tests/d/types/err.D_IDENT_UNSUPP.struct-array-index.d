struct p { int x; };
struct s { struct p v[2]; };
BEGIN { this->p = (struct s *)copyin(0, 8); trace(this->p->v[1].x); }
