/* An associative array indexed with a key of another kind. */
string a[int];

BEGIN { a["k"] = "v"; }
