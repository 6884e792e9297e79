/* declaring a self-> associative array is refused (using one is not) */
self int a[int];
