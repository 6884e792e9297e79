/* SPDX-License-Identifier: MIT */
/*
 * tr-types.c - a trigger for tests/d/types/tst.dwarf-*.d: a program
 * built with -g whose debug information declares the C types a D
 * script then uses by name, undeclared (dtrace-G/consumer/ctypes.c):
 * structs nested and pointed to, typedefs, arrays, bit-fields, a union
 * (named and anonymous), an enum, and members D cannot read (a double,
 * an array of arrays).
 *
 *	tr-types [N]	for i = 0..N-1 (N defaults to 2):
 *			tr_request(&r)	a struct request filled from i
 *			tr_point(&pt)	{ .x = i, .y = 10 * i }
 *
 * It is linked with libtr-types.so (tr-types-lib.c), which declares
 * struct tr_point and enum tr_level as this program does (tr-types.h),
 * struct tr_conflict and the enumerator MODE_CLASH otherwise; its
 * second unit, tr-types-unit2.c, declares struct tr_units otherwise
 * than this one.  It writes nothing on standard output; it exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tr-types.h"

#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif

enum req_kind { REQ_GET = 1, REQ_PUT, REQ_DEL = 10, REQ_NEG = -3 };

struct req_hdr {
	unsigned short magic;
	unsigned char ver;
	signed char level;
};

struct request {
	int id;
	struct req_hdr hdr;
	const char *name;
	enum req_kind kind;
	unsigned prio : 3;
	int delta : 5;
	unsigned urgent : 1;
	short vals[4];
	union req_val {
		long long l;
		unsigned char b[8];
	} u;
	union { /* anonymous: its members are request's */
		int ai;
		short as;
	};
	struct request *next;
	double ratio;
	int grid[2][3];
	char tag[6];
};

typedef struct request request_t;
typedef request_t *request_p;
typedef unsigned int req_id_t;

struct tr_conflict {
	short narrow;
	char c;
};

typedef struct tr_conflict tr_conflict_t;

static volatile tr_conflict_t exe_conflict = {.narrow = 3, .c = 'c'};

enum exe_mode { MODE_CLASH = 6 };
static volatile enum exe_mode exe_mode = MODE_CLASH;

/* tr-types-unit2.c declares it otherwise */
struct tr_units {
	long long wide;
};

static volatile struct tr_units units = {.wide = 1};
int tr_unit2(void);

int tr_request(const request_t *r);
int tr_point(const struct tr_point *p);

NOINLINE int tr_request(const request_t *r)
{
	__asm__ volatile("" ::: "memory");
	return r->id;
}

NOINLINE int tr_point(const struct tr_point *p)
{
	__asm__ volatile("" ::: "memory");
	return tr_lib_point(p);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"alpha", "beta", "gamma"};
	int n = argc > 1 ? atoi(argv[1]) : 2;
	req_id_t base = 100;
	request_t head = {.id = -1};

	for (int i = 0; i < n; i++) {
		request_t r;
		request_p rp = &r;
		struct tr_point pt = {.x = i, .y = 10 * i};

		memset(&r, 0, sizeof(r));
		r.id = (int)base + i;
		r.hdr.magic = 0xbeef;
		r.hdr.ver = (unsigned char)(i + 1);
		r.hdr.level = (signed char)-i;
		r.name = names[i % 3];
		r.kind = i % 2 ? REQ_DEL : REQ_PUT;
		r.prio = (unsigned)(i + 5) & 7;
		r.delta = -i - 14;
		r.urgent = i % 2;
		for (int k = 0; k < 4; k++)
			r.vals[k] = (short)(k * 100 - i);
		r.u.l = 0x0102030405060708LL + i;
		r.ai = 0x10000 * (i + 1) + 7;
		r.next = i ? &head : NULL;
		r.ratio = 0.5;
		r.grid[1][2] = i;
		snprintf(r.tag, sizeof(r.tag), "t%d", i % 1000);
		tr_request(rp);
		tr_point(&pt);
	}
	n = tr_lib_conflict(TR_LOW) + exe_conflict.narrow;
	if (exe_mode != MODE_CLASH || tr_unit2() + units.wide != 'u' + 1)
		return 1;
	return n == 5 ? 0 : 1;
}
