/*
 * The probes of tests/run-G-consumers.sh.  The values each probe carries
 * are in prog.c; the test's expectations spell them out again.
 */
provider myapp {
	/* two call sites in prog.c: two notes, one probe */
	probe query__start(const char *, int);
	/* a call site; arguments 0-5 in registers, 6-11 on the stack */
	probe many(int, short, signed char, unsigned char, const char *,
	    unsigned long, unsigned long, long long, int, short,
	    unsigned char, const char *);
	probe wide(long, unsigned long, int, unsigned short, const char *,
	    long long, signed char, unsigned char, short, unsigned long,
	    unsigned int, const char *);
	/* tail-call sites (sites.c, -O2) */
	probe tail6(int, short, signed char, unsigned char, const char *,
	    unsigned long);
	probe tailwide(long, unsigned long, int, unsigned short, const char *,
	    long long, signed char, unsigned char, short, unsigned long,
	    unsigned int, const char *);
	/* noplt.c, built with -fno-plt: a plain call all the same */
	probe noplt(int, short, signed char, unsigned char, const char *,
	    unsigned long);
	/* a call *x@GOTPCREL(%rip) site (gotcall.c, -fno-plt) */
	probe gotcall(int, short, signed char, unsigned char, const char *,
	    unsigned long);
	/* one-byte arguments in %r8 and %r9 */
	probe bytes(int, int, int, int, unsigned char, signed char);
	/* declared, never called: no note, invisible to every consumer */
	probe unused(int);
};
