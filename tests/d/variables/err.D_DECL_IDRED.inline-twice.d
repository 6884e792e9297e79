inline int N = 1;
inline int N = 2;
BEGIN { exit(0); }
