BEGIN { printf("%y", 1); }
