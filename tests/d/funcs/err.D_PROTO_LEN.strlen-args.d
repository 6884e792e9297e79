BEGIN { x = strlen("a", "b"); }
