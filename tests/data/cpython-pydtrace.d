/*
 * A provider shaped like an interpreter's: function entry and return with
 * file and function names, line events, garbage-collector and import
 * probes.  Compiled without -C.  Written for usdt-sdk's tests.
 */

provider python {
	probe function__entry(const char *, const char *, int);
	probe function__return(const char *, const char *, int);
	probe instance__new__start(const char *, const char *);
	probe instance__new__done(const char *, const char *);
	probe line(const char *, const char *, int);
	probe gc__start(int);
	probe gc__done(long);
	probe import__find__load__start(const char *);
	probe import__find__load__done(const char *, int);
	probe audit(const char *, void *);
};
