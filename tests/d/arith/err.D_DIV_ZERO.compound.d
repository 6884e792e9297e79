BEGIN { c = 7; c /= -0; exit(0); }
