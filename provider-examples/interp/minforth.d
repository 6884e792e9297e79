/*
 * minforth.d - the probes of minforth (provider-examples/interp/), a tiny
 * Forth-like interpreter.  They follow the shape of the probes that
 * CPython, Ruby and Perl ship: function entry and return with the
 * function's name, its file and its line, so the same kind of tracer
 * scripts (call counts, flow indented by depth, time per function) work
 * on scripts in this language.
 *
 *	dtrace -h -s minforth.d -o minforth.h
 *	dtrace -G -s minforth.d -o minforth-probes.o minforth.o
 */
#pragma D attributes Evolving/Evolving/Common provider minforth provider
#pragma D attributes Evolving/Evolving/Common provider minforth args

provider minforth {
	/*
	 * A word (function) defined in the script is entered or returns:
	 * its name, the script's file name, and the line of its
	 * definition.  Guarded by _ENABLED(): the interpreter builds the
	 * name string only while one of these probes is traced.
	 */
	probe function__entry(const char *function, const char *file,
	    int line);
	probe function__return(const char *function, const char *file,
	    int line);
	/* a script starts, and ends with its exit status */
	probe script__start(const char *file);
	probe script__done(const char *file, int status);
	/*
	 * A run-time error: file, line, message.  DTrace consumers get the
	 * message first, as D strings (the translated list maps by name).
	 */
	probe error(const char *file, int line, const char *message) :
	    (string message, string file, int line);
};
