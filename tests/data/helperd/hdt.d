/* The lifecycle test program's provider (tests/run-helperd.sh). */
provider hdt {
	probe start(int);
	probe command(char *, int);
};
