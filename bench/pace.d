/* The provider of the paced event source (bench/pace.c). */
provider bpace {
	probe ev(long i, long t);
};
