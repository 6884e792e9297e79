/* The provider of the autotools project. */
provider lt {
	probe req(char *path, int n);
};
