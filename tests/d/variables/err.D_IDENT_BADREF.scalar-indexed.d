int x;
BEGIN { x[1] = 2; }
