/*
 * A provider shaped like a Perl-style interpreter's: subroutine entry and
 * return, interpreter phases, file loading and op dispatch.  Compiled
 * without -C.  Written for usdt-sdk's tests.
 */

provider perl {
	probe sub__entry(const char *, const char *, int, const char *);
	probe sub__return(const char *, const char *, int, const char *);

	probe phase__change(const char *, const char *);

	probe op__entry(const char *);

	probe loading__file(const char *);
	probe loaded__file(const char *);

	probe glob__entry(int, const char *);
	probe glob__return(int, const char *);
};
