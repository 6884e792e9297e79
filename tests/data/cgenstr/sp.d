/*
 * sp.d - the provider of tests/run-cgen-argslen.sh's program (sp.c
 * built with -DSP_USDT): argument 0 a string at s, a long at i.
 */
provider sp {
	probe s(string, long);
	probe i(long, long);
};
