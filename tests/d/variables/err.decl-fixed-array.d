/* C's fixed-size arrays are not part of this D. */
int a[4];
