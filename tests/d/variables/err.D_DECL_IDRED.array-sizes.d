/* one name, two sizes */
int a[5];
int a[6];
