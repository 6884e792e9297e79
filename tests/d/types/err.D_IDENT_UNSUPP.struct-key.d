struct s { int a; };

/* a struct is no key here */
int a[struct s];
