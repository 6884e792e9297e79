/* the -G half of ref.c's cross-check with <sys/sdt.h> */
provider refp {
	probe triple(int, const char *, unsigned long);
};
