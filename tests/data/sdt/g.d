/*
 * The provider of tests/run-sdt-G.sh: `dtrace -G` over objects whose
 * probes are calls (g-call.h), inline probes (g-inline.h, from dtrace -h
 * -x probestyle=inline), <sys/sdt.h> probes and assembler probes.
 */
provider app {
	probe start(const char *q, int n);
	probe flag(bool on, long n);
	probe check();
	probe sdt(int a, long b);
	probe asmp(long a, unsigned long b);
	probe inl(int x);
};

provider other {
	probe tick();
};
