/* The provider of bench/pairloop.c (bench/perhit.sh). */
provider bpair {
	probe enter(long i, char *name);
	probe leave(long i);
};
