struct s { int a; };

/* one name, two types */
struct s x;
int x;
