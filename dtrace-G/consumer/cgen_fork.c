// SPDX-License-Identifier: MIT
/*
 * cgen_fork.c - the program that arms a forked child at its fork
 * (bpf_agg_cgen.c's "Forks" says when and why): on the raw tracepoint
 * task_newtask (task, clone_flags), which the kernel fires in the
 * parent's context once the child's task is made and before it first
 * runs, a child that is a process (no CLONE_THREAD) gets, for each event
 * of cgforkev's list where its parent's cgarmed entry {ev, parent} has
 * ARMED_PASS, the entry {ev, child} = ARMED_INH | ARMED_PASS
 * (BPF_NOEXIST: an entry dtrace made stays), and the count of such
 * children goes up by one.  The child's tgid is read from its
 * task_struct at the offset the kernel's BTF gives (kbtf.c), the
 * parent's from bpf_get_current_pid_tgid().  The list is walked to at
 * most UBPF_KFORKEV events, in a loop the verifier bounds.
 *
 * Stack: the parent's key {ev, parent} at -8, the child's {ev, child}
 * at -16, the value at -24.  r6 the list, r7 its length, r8 the index,
 * r9 whether an entry was made.
 */
#include "config.h"

#include <errno.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

#include "cgen_impl.h"

#define F_PKEY (-8)
#define F_CKEY (-16)
#define F_VAL (-24)

int cgen_fork_start(struct consumer *c, int armed, int list, uint32_t tgid1)
{
	struct em e = { 0 };
	size_t jthr, jrd, jlist, jlen, jloop, jend, jnone, jpass, jtop;
	size_t jnew;
	int fd, link;

	if (!tgid1)
		return -1;
	/* ctx: args[0] the child's task, args[1] clone_flags */
	ldx(&e, BPF_DW, 2, 1, 8);
	alu_i(&e, BPF_AND, 2, CLONE_THREAD);
	jthr = jmp_i(&e, BPF_JNE, 2, 0);
	ldx(&e, BPF_DW, 3, 1, 0);
	alu_i(&e, BPF_ADD, 3, (int32_t)(tgid1 - 1));
	alu_r(&e, BPF_MOV, 1, 10);
	alu_i(&e, BPF_ADD, 1, F_CKEY + 4);
	alu_i(&e, BPF_MOV, 2, 4);
	call(&e, BPF_FUNC_probe_read_kernel);
	jrd = jmp_i(&e, BPF_JNE, 0, 0);
	call(&e, BPF_FUNC_get_current_pid_tgid);
	alu_i(&e, BPF_RSH, 0, 32);
	stx(&e, BPF_W, 10, F_PKEY + 4, 0);
	st(&e, BPF_W, 10, F_VAL, ARMED_INH | ARMED_PASS);
	/* the list: {n, pad, forks, ev[UBPF_KFORKEV]} */
	st(&e, BPF_W, 10, F_PKEY, 0);
	lookup_at(&e, list, F_PKEY);
	jlist = jmp_i(&e, BPF_JEQ, 0, 0);
	alu_r(&e, BPF_MOV, 6, 0);
	ldx(&e, BPF_W, 7, 6, 0);
	jlen = jmp_i(&e, BPF_JLE, 7, UBPF_KFORKEV);
	alu_i(&e, BPF_MOV, 7, UBPF_KFORKEV);
	fix(&e, jlen);
	alu_i(&e, BPF_MOV, 8, 0);
	alu_i(&e, BPF_MOV, 9, 0);
	jtop = e.n;
	/* i < n and i < UBPF_KFORKEV: the verifier's bound */
	jloop = jmp_r(&e, BPF_JGE, 8, 7);
	jend = jmp_i(&e, BPF_JGE, 8, UBPF_KFORKEV);
	alu_r(&e, BPF_MOV, 1, 8);
	alu_i(&e, BPF_LSH, 1, 2);
	alu_r(&e, BPF_ADD, 1, 6);
	ldx(&e, BPF_W, 1, 1, (int16_t)offsetof(struct ubpf_kforkev, ev));
	stx(&e, BPF_W, 10, F_PKEY, 1);
	stx(&e, BPF_W, 10, F_CKEY, 1);
	lookup_at(&e, armed, F_PKEY);
	jnone = jmp_i(&e, BPF_JEQ, 0, 0);
	ldx(&e, BPF_W, 1, 0, 0);
	alu_i(&e, BPF_AND, 1, ARMED_PASS);
	jpass = jmp_i(&e, BPF_JEQ, 1, 0);
	ldmap(&e, 1, armed);
	alu_r(&e, BPF_MOV, 2, 10);
	alu_i(&e, BPF_ADD, 2, F_CKEY);
	alu_r(&e, BPF_MOV, 3, 10);
	alu_i(&e, BPF_ADD, 3, F_VAL);
	alu_i(&e, BPF_MOV, 4, BPF_NOEXIST);
	call(&e, BPF_FUNC_map_update_elem);
	/* one entry made (r0 0, else a negative errno): r9 |= 1, with no
	 * branch (a path fewer for the verifier in each iteration: the
	 * program is ~13,000 instructions verified with UBPF_KFORKEV 64,
	 * ~31,000 with a branch) */
	alu_i(&e, BPF_RSH, 0, 63);
	alu_i(&e, BPF_XOR, 0, 1);
	alu_r(&e, BPF_OR, 9, 0);
	fix(&e, jnone);
	fix(&e, jpass);
	alu_i(&e, BPF_ADD, 8, 1);
	put(&e, BPF_JMP | BPF_JA, 0, 0, (int16_t)(jtop - (e.n + 1)), 0);
	fix(&e, jloop);
	fix(&e, jend);
	jnew = jmp_i(&e, BPF_JEQ, 9, 0);
	xadd(&e, 6, (int16_t)offsetof(struct ubpf_kforkev, forks), 9, false);
	fix(&e, jnew);
	fix(&e, jthr);
	fix(&e, jrd);
	fix(&e, jlist);
	alu_i(&e, BPF_MOV, 0, 0);
	put(&e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	if (e.bad) {
		free(e.v);
		return -1;
	}
	fd = bpf_cg_load(c, BPF_PROG_TYPE_RAW_TRACEPOINT, e.v, e.n);
	if (fd < 0)
		return -1;
	link = bpf_raw_tracepoint_open("task_newtask", fd);
	if (link < 0) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "attaching the fork program to task_newtask: %s",
			 strerror(errno));
		return -1;
	}
	return link;
}
