/*
 * Probes shaped like the ones interpreters declare (tests/run-interp-d.sh):
 * CPython's function-entry/-return, line and gc-start/-done, Perl's
 * sub-entry and phase-change, and one whose argument points to writable
 * data.
 */
provider interp {
	probe function__entry(const char *, const char *, int);
	probe function__return(const char *, const char *, int);
	probe line(const char *, const char *, int);
	probe gc__start(int);
	probe gc__done(long);
	probe sub__entry(const char *, const char *, int, const char *);
	probe phase__change(const char *, const char *);
	probe note(const char *);
};
