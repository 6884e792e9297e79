/* arrays of strings are not supported: an associative array is */
string s[3];
