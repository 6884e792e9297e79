BEGIN { printf("%s", 1); }
