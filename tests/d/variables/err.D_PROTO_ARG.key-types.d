/* one associative array, keys of two types */
BEGIN { a[1] = 1; a["x"] = 2; exit(0); }
