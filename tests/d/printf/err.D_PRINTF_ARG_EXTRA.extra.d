BEGIN { printf("%d", 1, 2); }
