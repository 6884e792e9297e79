/* Probes fired by constructors (tests/data/trace/ctorlib.c, ctorprog.c). */
provider ctl {
	probe hit(int);
};
provider ctp {
	probe hit(int);
};
