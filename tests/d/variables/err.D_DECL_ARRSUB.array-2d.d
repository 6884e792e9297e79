/* arrays of arrays are not supported */
int a[2][3];
