/*
 * ut_probes.d - the provider of tests/run-cgen-untouched.sh's program
 * (ut.c): one request, its string and its number.
 */
provider ut {
	probe req(char *p, int i) : (string p, int i);
};
