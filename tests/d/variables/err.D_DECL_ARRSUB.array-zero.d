/* an array needs a positive size */
int a[0];
