/* An associative array indexed with more keys than declared. */
string a[int];

BEGIN { a[1, 2] = "v"; }
