/* an array size must be a constant expression: an inline of a
 * variable is not one */
inline uint64_t N = timestamp;
int a[N];
BEGIN { exit(0); }
