// SPDX-License-Identifier: MIT
/*
 * cgen_rec.c - what a generated program's record carries of the firing
 * process beyond its arguments and ids, where that takes more than a
 * few instructions: code emitted into cgen.c's stage 3 (the record,
 * built in cgbuf) that puts the same bytes, with the same flags, where
 * the generic program (bpf/usdt.bpf.c) puts them, so bpf.c decodes
 * both the same way and the output cannot differ (doc/DESIGN.md §8).
 *
 * curpsinfo->pr_psargs (cgen_psargs()): usdt.bpf.c's psargs_rec(),
 * instruction for instruction in effect.  The current task's mm, and
 * the mm's arg_start and arg_end, are read with bpf_probe_read_kernel()
 * at the offsets the kernel's BTF gave (psargs.c's psargs_offs(), plus
 * one, as the generic program's rodata has them); then at most
 * UBPF_PSARGS bytes of the argument area with bpf_probe_read_user(),
 * after a 2-byte length, at the record's offset masked to cgbuf's
 * first half (the bound the verifier sees, as for the strings).  A
 * kernel thread (no mm), an empty area or a read that faults adds
 * nothing and no UBPF_RF_PSARGS; psargs.c then gives what the generic
 * program's record gives.  The mm's two words pass through the
 * record's bytes where the text then goes (or past its end), as
 * cgen.c's u_sess() passes its struct pid.
 *
 * Registers, as cgen.c's record stage has them: r9 the record (cgbuf),
 * r8 its length so far; r1-r5 and r0 are clobbered, S_KEY8 is free.
 */
#include "config.h"

#include <linux/bpf.h>
#include <stdint.h>

#include "bpf/usdt_bpf.h"
#include "cgen_impl.h"

/* r8 masked, r1 = the record (r9) + r8 + at */
static void rec_at(struct em *e, int32_t at)
{
	alu_i(e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 8);
	if (at)
		alu_i(e, BPF_ADD, 1, at);
}

/*
 * bpf_probe_read_kernel(r1, size, r3 + off1 - 1), and a jump (its
 * index in j[*nj]) taken when it faults
 */
static void kread(struct em *e, int32_t size, uint32_t off1, size_t *j,
		  unsigned *nj)
{
	alu_i(e, BPF_ADD, 3, (int32_t)(off1 - 1));
	alu_i(e, BPF_MOV, 2, size);
	call(e, BPF_FUNC_probe_read_kernel);
	j[(*nj)++] = jmp_i(e, BPF_JNE, 0, 0);
}

void cgen_psargs(struct em *e, const uint32_t o[3])
{
	size_t j[6], jn;
	unsigned nj = 0;

	/* task->mm into S_KEY8; none (a kernel thread): nothing */
	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, S_KEY8);
	kread(e, 8, o[0], j, &nj);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	j[nj++] = jmp_i(e, BPF_JEQ, 3, 0);
	/* mm->arg_start, mm->arg_end at r8, r8 + 8 */
	rec_at(e, 0);
	kread(e, 8, o[1], j, &nj);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	rec_at(e, 8);
	kread(e, 8, o[2], j, &nj);
	/* n = min(arg_end - arg_start, UBPF_PSARGS); none: nothing */
	rec_at(e, 0);
	ldx(e, BPF_DW, 3, 1, 0);
	ldx(e, BPF_DW, 2, 1, 8);
	j[nj++] = jmp_r(e, BPF_JLE, 2, 3);
	alu_r(e, BPF_SUB, 2, 3);
	jn = jmp_i(e, BPF_JLE, 2, UBPF_PSARGS);
	alu_i(e, BPF_MOV, 2, UBPF_PSARGS);
	fix(e, jn);
	/* its length, then its bytes: the length stands only if they
	 * read (r8 moves past them then) */
	stx(e, BPF_H, 1, 0, 2);
	alu_i(e, BPF_ADD, 1, 2);
	call(e, BPF_FUNC_probe_read_user);
	j[nj++] = jmp_i(e, BPF_JNE, 0, 0);
	rec_at(e, 0);
	ldx(e, BPF_H, 2, 1, 0);
	alu_i(e, BPF_ADD, 8, 2);
	alu_r(e, BPF_ADD, 8, 2);
	ldx(e, BPF_H, 1, 9, 30);
	alu_i(e, BPF_OR, 1, UBPF_RF_PSARGS);
	stx(e, BPF_H, 9, 30, 1);
	for (unsigned i = 0; i < nj; i++)
		fix(e, j[i]);
}
