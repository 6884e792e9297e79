BEGIN { x = *1; }
