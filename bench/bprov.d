/* The provider of the benchmark loop (bench/loop.c). */
provider bprov {
	probe hit(long i);
};
