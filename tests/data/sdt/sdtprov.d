/*
 * Probes the <sys/sdt.h> tests fire through `dtrace -h -x
 * probestyle=inline` (tests/run-sdt-*.sh, prog.c).  Every argument value
 * is a known constant, so each consumer's view is compared exactly.
 */
typedef unsigned int Oid;

provider sdtp {
	probe query(const char *q, int n);
	probe wide(long, unsigned long, int, unsigned short, char *, long,
	    signed char, unsigned char, short, uint64_t, Oid, char *);
	probe flag(bool on, unsigned char b, signed char c, short s);
	probe gated(int round);
	probe tick();
};
