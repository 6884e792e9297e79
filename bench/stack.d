/* The provider of the stack benchmark (bench/stack.c). */
provider bstack {
	probe ev(long i);
};
