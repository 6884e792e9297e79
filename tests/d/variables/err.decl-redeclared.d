/* A variable declared again with another type. */
int x;
string x;
