/* self-> variables are scalars. */
self int a[int];
