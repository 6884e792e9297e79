/*
 * probes.d - the providers of the programs fuzz/gen-corpus.sh builds for
 * seed corpora (fuzz/src/sites.c, comdat.cc) and tests/unit/t-stapsdt.c
 * checks against readelf.  fuzz-elf.c parses it to match probe calls.
 * Every argument size, signedness, register and stack slot a -G site can
 * have is here.
 */
#pragma D attributes Evolving/Evolving/Common provider fz provider
#pragma D attributes Evolving/Evolving/Common provider fz args

typedef unsigned int fz_id;
struct fz_conn;

provider fz {
	probe start(const char *, int);
	probe done(fz_id id, long rows, int status);
	probe bytes(signed char, short, unsigned char, unsigned short, int,
		    unsigned long);
	probe high(char, unsigned char, short, int);
	probe many(int, unsigned int, long, short, char, int, int, long,
		   signed char, unsigned short, unsigned int, long);
	probe conn(struct fz_conn *c);
	probe tick();
	probe xlate(int a, const char *s) : (const char *s, int a);
};

provider fz_other {
	probe one(uint64_t);
	probe two(size_t, ssize_t, intptr_t, _Bool);
};
