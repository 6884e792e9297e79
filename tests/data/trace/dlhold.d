/* Probes of a library dlopen()ed under -p (tests/data/trace/dlholdlib.c). */
provider dlh {
	probe ctor(int);
	probe call(int);
};
