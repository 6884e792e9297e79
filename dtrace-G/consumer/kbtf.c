// SPDX-License-Identifier: MIT
/*
 * kbtf.c: the running kernel's types (its BTF), for the offsets of the
 * kernel structures dtrace's BPF programs read by hand.
 *
 * Several programs read task_struct and what it points to at the hit:
 * the parent's tgid, the credentials, the session and group ids, the
 * arguments' bounds in mm_struct (psargs.c), a thread's CPU time
 * (vtime.c), the signal handler and blocked mask the dlopen() hold
 * tests (dlhold.c), the exit code the proc provider reports
 * (kprov_proc.c). Those layouts differ between kernels and builds
 * (randomized task_struct included), so every offset is asked of
 * /sys/kernel/btf/vmlinux and a member the BTF does not have makes the
 * caller refuse the feature, never guess.
 *
 * Parsing the kernel's BTF costs about 10 ms of CPU, as much as the
 * rest of a one-clause start-up, and each reader used to parse it for
 * itself (up to six times in one run). Here it is parsed at the first
 * question, each answer is remembered, and the parsed types are given
 * back once tracing has started (kbtf_release()): a question asked
 * after that, for a member never asked before, parses it again.
 *
 * A member is looked for in anonymous structs and unions too (the
 * randomized part of task_struct is one), to a depth of eight.
 *
 * A raw tracepoint's arguments are its TP_PROTO's, not its trace
 * event's fields; the BTF has them as the prototype of the typedef
 * btf_trace_NAME (a pointer to a function whose first parameter is the
 * probe's data, the rest TP_PROTO's): kbtf_tp_nargs() counts them, for
 * the proc provider (kprov_proc.c), whose tracepoints gained arguments
 * between kernels (sched_process_exit's group_dead).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "consumer_impl.h"

#ifdef HAVE_BPF
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static struct btf *kb;
static bool kb_failed; /* no BTF: not tried again */

/* answers given, so a question after kbtf_release() parses nothing */
static struct kb_answer {
	const char *type, *member; /* member NULL: the type's size */
	long val;
} answers[32];
static unsigned nanswers;

static struct btf *kb_get(void)
{
	if (!kb && !kb_failed) {
		kb = btf__load_vmlinux_btf();
		if (!kb || libbpf_get_error(kb)) {
			kb = NULL;
			kb_failed = true;
		}
	}
	return kb;
}

static long member_in(const struct btf *btf, __u32 id, const char *name,
		      int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || depth > 8 || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		long in;

		if (mn && *mn) {
			if (!strcmp(mn, name))
				return (long)(btf_member_bit_offset(t, i) / 8);
			continue;
		}
		in = member_in(btf, (__u32)btf__resolve_type(btf, m->type),
			       name, depth + 1);
		if (in >= 0)
			return (long)(btf_member_bit_offset(t, i) / 8) + in;
	}
	return -1;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* type's member's byte offset, or (member NULL) type's size; -1: none */
static long ask(const char *type, const char *member)
{
	struct btf *btf;
	__s32 id;
	long v = -1;

	for (unsigned i = 0; i < nanswers; i++)
		if (!strcmp(answers[i].type, type) &&
		    same(answers[i].member, member))
			return answers[i].val;
	if ((btf = kb_get())) {
		id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
		if (id < 0)
			id = btf__find_by_name_kind(btf, type, BTF_KIND_UNION);
		if (id > 0 && member)
			v = member_in(btf, (__u32)id, member, 0);
		else if (id > 0)
			v = btf__resolve_size(btf, (__u32)id);
		if (v < 0)
			v = -1;
	}
	if (nanswers < sizeof answers / sizeof answers[0])
		answers[nanswers++] = (struct kb_answer){type, member, v};
	return v;
}

long kbtf_member(const char *type, const char *member)
{
	return ask(type, member);
}

/* tp's prototype (btf_trace_TP -> pointer -> function), or NULL */
static const struct btf_type *tp_proto(struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	__s32 id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0 || !(t = btf__type_by_id(btf, (__u32)id)) ||
	    !(t = btf__type_by_id(btf, t->type)) || !btf_is_ptr(t) ||
	    !(t = btf__type_by_id(btf, t->type)) || !btf_is_func_proto(t) ||
	    btf_vlen(t) < 1)
		return NULL;
	return t;
}

/* the answers' member for a raw tracepoint's count of arguments */
static const char tp_nargs_q[] = "(TP_PROTO)";

long kbtf_tp_nargs(const char *tp)
{
	const struct btf_type *t;
	struct btf *btf;
	long v = -1;

	for (unsigned i = 0; i < nanswers; i++)
		if (!strcmp(answers[i].type, tp) &&
		    answers[i].member == tp_nargs_q)
			return answers[i].val;
	if ((btf = kb_get()) && (t = tp_proto(btf, tp)))
		v = (long)btf_vlen(t) - 1;
	if (nanswers < sizeof answers / sizeof answers[0])
		answers[nanswers++] = (struct kb_answer){tp, tp_nargs_q, v};
	return v;
}

bool kbtf_tp_arg_is(const char *tp, unsigned i, const char *tname)
{
	const struct btf_type *t;
	const struct btf_param *pa;
	struct btf *btf = kb_get();
	__u32 id;

	if (!btf || !(t = tp_proto(btf, tp)) || i + 1 >= btf_vlen(t))
		return false;
	pa = btf_params(t) + i + 1;
	for (id = pa->type; (t = btf__type_by_id(btf, id)); id = t->type) {
		const char *n = btf__name_by_offset(btf, t->name_off);

		if (n && !strcmp(n, tname))
			return true;
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return false;
	}
	return false;
}

long kbtf_size(const char *type)
{
	return ask(type, NULL);
}

void kbtf_release(void)
{
	btf__free(kb);
	kb = NULL;
}
#else
long kbtf_member(const char *type, const char *member)
{
	(void)type;
	(void)member;
	return -1;
}

long kbtf_size(const char *type)
{
	(void)type;
	return -1;
}

long kbtf_tp_nargs(const char *tp)
{
	(void)tp;
	return -1;
}

bool kbtf_tp_arg_is(const char *tp, unsigned i, const char *tname)
{
	(void)tp;
	(void)i;
	(void)tname;
	return false;
}

void kbtf_release(void)
{
}
#endif
