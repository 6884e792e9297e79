/*
 * comdat.cc - probes in C++ inline functions, which the compiler puts in
 * COMDAT groups: a seed for the fuzzers' -G object reader that reaches
 * its COMDAT naming and checks (fuzz/gen-corpus.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "probes.h"

template <typename T> struct counter {
	T n;
	inline void bump(T by)
	{
		n += by;
		FZ_OTHER_ONE((uint64_t)n);
	}
};

inline int twice(int v)
{
	FZ_START("twice", v);
	return 2 * v;
}

int fz_cxx(int v)
{
	counter<long> c = { 0 };

	c.bump(v);
	return twice(v) + (int)c.n;
}
