/* The probe of tests/data/trace/fcred.c. */
provider fc {
	probe hit(int);
};
