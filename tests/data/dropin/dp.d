/* The provider of tests/run-dropin.sh: a string, an int, a pointer, 7 args. */
provider dp {
	probe req(const char *path, int status);
	probe obj(struct thing *t, long n);
	probe seven(int a, int b, int c, int d, int e, int f, int g);
	probe unused();
};
