/* A shared library's provider (tests/data/trace/trlib.c). */
provider trlib {
	probe call(int);
};
