int x;
string x;
BEGIN { exit(0); }
