/* The provider of the D differential fuzzer's target (fuzz/dfuzz/dfz.c). */
provider dfz {
	probe ints(int a, long b, unsigned char c, short d, unsigned int e,
	    char f);
	probe strs(char *s, char *t, int i);
	probe mix(long i, char *s, unsigned short u);
	probe done(int n);
};
