BEGIN { x = (void)1; }
