/* The tracing tests' program provider (tests/run-trace.sh). */
provider tr {
	probe tick(int, char *, long);
	probe pair(char *, int);
	probe msg(string, int);
	probe big(int, int, int, int, int, int, int, int, int, int, int, int);
	probe done(int);
};
