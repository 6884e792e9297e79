inline int N = "text";
BEGIN { exit(0); }
