/*
 * sp.d - the provider of tests/run-cgen-spec.sh's program (sp.c):
 * transactions, each a begin, some data and an end that says whether
 * it succeeded (what speculations are for).
 */
provider sp {
	probe begin(int, int);
	probe data(int, int, int, char *);
	probe end(int, int, int);
};
