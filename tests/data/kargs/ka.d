/*
 * ka.d - the provider of tests/run-kagg-args.sh's program (ka.c):
 * arguments of declared integer types, narrow, unsigned and wide, a
 * string, and the same argument number typed differently at different
 * probes; a translated list that narrows; eight strings.
 */
provider ka {
	probe t(int8_t, uint16_t, int64_t, char *, unsigned char, int);
	/* args[0] a string here, an integer at w; args[1] int, uint16_t
	 * at t, short at w */
	probe u(string, int);
	probe w(int, short);
	/* the native ints as uint8_t and int8_t: args[N] narrows them */
	probe n(int a, int b) : (uint8_t a, int8_t b);
	probe m(char *, char *, char *, char *, char *, char *, char *,
		char *);
};
