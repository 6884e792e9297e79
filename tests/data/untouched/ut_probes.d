/*
 * ut_probes.d - the provider of tests/run-cgen-untouched.sh's program
 * (ut.c): one request, its string and its number; one with five
 * strings.
 */
provider ut {
	probe req(char *p, int i) : (string p, int i);
	probe req5(char *, char *, char *, char *, char *);
};
