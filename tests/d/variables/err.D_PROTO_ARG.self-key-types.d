BEGIN { self->a[1] = 1; self->a["x"] = 2; exit(0); }
