/* A declared scalar used as an associative array. */
int x;

BEGIN { x[1] = 2; }
