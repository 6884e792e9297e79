/*
 * kvapp.d - the probes of kvapp (provider-examples/shlib/kvapp.c), a
 * command-line front end to libkv.so, which has probes of its own.
 *
 *	dtrace -h -s kvapp.d -o kvapp.h
 *	dtrace -G -s kvapp.d -o kvapp-probes.o kvapp.o
 */
#pragma D attributes Evolving/Evolving/Common provider kvapp provider

provider kvapp {
	/* a command read from stdin: line number, verb, key ("" if none) */
	probe command__start(int lineno, const char *verb, const char *key);
	/* its result: 0 done, 1 key not found, 2 bad command */
	probe command__done(int lineno, const char *verb, int status);
};
