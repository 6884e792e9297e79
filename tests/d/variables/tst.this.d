/* this-> variables live for one firing, across its clauses. */
#pragma D option quiet

BEGIN { this->x = 41; }
BEGIN { this->x++; printf("this->x = %d\n", this->x); }
BEGIN { self->y = 7; }
BEGIN { printf("self->y = %d\n", self->y); exit(0); }
