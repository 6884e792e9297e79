/* SPDX-License-Identifier: MIT */
/*
 * ctrlib.c - libctr.so for tests/run-ctypes-registry.sh: a library with
 * a probe (so its DOF is registered) built with -g, whose debug
 * information declares the types a script names scoped to it
 * (struct libctr.so`ctr_req, libctr.so`ctr_req_t) while no -c or -p
 * process is traced.
 */
#include "ctrlib.h"

struct ctr_req {
	int id;
	short s;
	long long v;
	char tag[6];
};

typedef struct ctr_req ctr_req_t;

int ctr_call(ctr_req_t *r)
{
	CTRLIB_CALL(r->id);
	return r->id + r->s;
}
