/* A value of the other kind assigned to a declared variable. */
self int x;

BEGIN { self->x = "s"; }
