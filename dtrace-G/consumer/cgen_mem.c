// SPDX-License-Identifier: MIT
/*
 * cgen_mem.c - MLD, a generated program's reads through copyin()'s
 * pointers (kplan_mem.c; doc/DESIGN.md's "Pointers and structs in the
 * generated programs"), as code: cgen_plan.c calls mem_read() before
 * the plan's first clause and, for each MLD, mld_fault() (a fault site's
 * test) and mld().
 *
 * The copies.  Each distinct {argument, C} an MLD names (a place's
 * store's MLD, flagged UBPF_KF_MCOPY, too: it loads nothing), or an
 * MSTR (stringof() of a place printed: cgen_out.c's mstr()), is read
 * whole by bpf_probe_read_user() into cgbuf's copy room, past its owner
 * word (e->cpyoff: bpf_cg.c makes the map value UBPF_KCPYROOM + 8
 * bytes longer where a clause calls copyin()), each at its offset in
 * the room, C rounded up to 8; cgbuf's address is S_SBUF's (the plan's
 * own_need() where nothing before took it).  The helper copies all or
 * nothing, and an address of 0 faults as run.c's d_copyin() does, so a
 * copy that cannot be read is one run.c faults on: it ends the plan
 * before anything ran, as seq_read()'s strings do (e->fj: the
 * unflagged record, whose clauses user space runs from the record
 * with its own copy, its faults and ERROR's arguments run.c's).  A
 * plan that keeps self-> variables (pl->tls) cannot send its hit
 * there: its MLDs are fault sites (o->slot, kplan_mem.c's mfault), or
 * it has none (nomem), and one without is refused here (e->bad), as is
 * one with sites and an MSTR (a printing clause's copy has none).  With
 * sites, a copy that cannot be read sets its bit (1 << its index) in
 * the word past the room (its 8 bytes of slack, zeroed first), and
 * mld_fault() at each MLD tests its copy's: set, the site's bits in
 * S_FLAGS's upper half (as cgen_sarg.c's fault_at() sets a string's)
 * and a jump to the clause's end (o->jump; cgen_plan() fixes e->sfj
 * there), so the fault is at the statement and the record, flagged
 * UBPF_RF_KFAULT (cgen_fsites() counts these sites), says where.
 * More copies than UBPF_KCPYSITES or than the room
 * holds, which kplan_mem.c's kp_clause_room() allows a probe's clauses
 * together, refuse the plan too.
 *
 * The loads.  mld() loads the MLD's sz bytes at its offset in its copy
 * (every offset and size constant: the verifier checks the map value's
 * bounds once) into r1, zero-extended for push() to narrow to its
 * type; a bit-field's levels bits at shift step are shifted to the top
 * and back, arithmetically where it is signed, as mem.c's bits_value().
 * Neither writes anything but the room, and a load cannot fault.
 */
#include "config.h"

#include <linux/bpf.h>
#include <stdint.h>

#include "bpf/kagg_bpf.h"
#include "cgen_impl.h"

/*
 * MLD's copies (kplan_mem.c): each distinct {argument, C} an MLD or
 * MSTR of the plan names, read before its first clause into cgbuf's copy room
 * (e->cpyoff, past the owner word: bpf_cg.c), C rounded up to 8 each;
 * one that cannot be read (bpf_probe_read_user() copies all or nothing,
 * an address of 0 included) ends the plan before it did anything, as
 * seq_read()'s strings do: the unflagged record, whose clauses user
 * space runs with its own copy.  Where every MLD is a fault site (a
 * plan that keeps self-> variables, whose hit cannot go there, has
 * them all), its bit in the word past the room instead, for
 * mld_fault().
 */
void mem_read(struct em *e, const struct ubpf_kplan *pl, int buf,
	      unsigned nargs)
{
	size_t jf[UBPF_KCPYSITES], jok, jn;
	unsigned room = 0, nsite = 0, nmld = 0, nmstr = 0;

	e->ncpy = 0;
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		unsigned j;

		if (o->op == UBPF_K_MSTR) { /* its bytes within the copy */
			nmstr++;
			if (o->imm < 1 || o->imm > UBPF_KCPYMAX ||
			    o->n >= UBPF_MAXARGS || o->agg > o->imm ||
			    o->step > o->imm - o->agg ||
			    o->step > UBPF_STRMAX - 1) {
				e->bad = true;
				return;
			}
		} else if (o->op != UBPF_K_MLD) {
			continue;
		} else {
			nmld++;
			nsite += o->slot != 0;
		}
		if (o->op == UBPF_K_MLD &&
		    (o->imm < 1 || o->imm > UBPF_KCPYMAX ||
		     o->n >= UBPF_MAXARGS ||
		     (o->sz != 1 && o->sz != 2 && o->sz != 4 && o->sz != 8) ||
		     (unsigned)o->agg + o->sz > (uint64_t)o->imm ||
		     o->step + o->levels > 8u * o->sz ||
		     o->slot > UBPF_KFSITES ||
		     (o->slot && (o->jump <= pc || o->jump > pl->nops)))) {
			e->bad = true;
			return;
		}
		for (j = 0; j < e->ncpy; j++)
			if (e->cpy[j].arg == o->n && e->cpy[j].size == o->imm)
				break;
		if (j < e->ncpy)
			continue;
		if (e->ncpy >= UBPF_KCPYSITES ||
		    room + ((unsigned)o->imm + 7u) / 8u * 8u > UBPF_KCPYROOM) {
			e->bad = true;
			return;
		}
		e->cpy[j].arg = o->n;
		e->cpy[j].size = (uint16_t)o->imm;
		e->cpy[j].at = (uint16_t)room;
		e->ncpy++;
		room += ((unsigned)o->imm + 7u) / 8u * 8u;
	}
	if (!e->ncpy)
		return;
	/* every MLD a fault site or none; none where the hit cannot go
	 * to user space, nor beside an MSTR (a printed string, whose
	 * copy's fault sends the hit there) */
	if (!e->cpyoff || buf < 0 || (nsite && (nsite != nmld || nmstr)) ||
	    (pl->tls && !nsite) ||
	    e->nfj + 2 > sizeof(e->fj) / sizeof(e->fj[0])) {
		e->bad = true;
		return;
	}
	if (!e->vbuf) { /* cgbuf's address at S_SBUF */
		jn = own_need(e, buf);
		if (jn != SIZE_MAX)
			e->fj[e->nfj++] = jn;
		stx(e, BPF_DW, 10, S_SBUF, 0);
		e->vbuf = true;
	}
	if (nsite) { /* the copies that failed: none yet */
		ldx(e, BPF_DW, 1, 10, S_SBUF);
		alu_i(e, BPF_ADD, 1, (int32_t)(e->cpyoff + UBPF_KCPYROOM));
		st(e, BPF_DW, 1, 0, 0);
	}
	for (unsigned j = 0; j < e->ncpy; j++) {
		ldx(e, BPF_DW, 1, 10, S_SBUF);
		alu_i(e, BPF_ADD, 1, (int32_t)(e->cpyoff + e->cpy[j].at));
		alu_i(e, BPF_MOV, 2, e->cpy[j].size);
		arg_addr(e, 3, e->cpy[j].arg); /* (none: 0, which faults) */
		call(e, BPF_FUNC_probe_read_user);
		if (nsite) { /* its bit in the word past the room */
			jf[j] = jmp_i(e, BPF_JEQ, 0, 0);
			ldx(e, BPF_DW, 1, 10, S_SBUF);
			alu_i(e, BPF_ADD, 1,
			      (int32_t)(e->cpyoff + UBPF_KCPYROOM));
			ldx(e, BPF_DW, 2, 1, 0);
			alu_i(e, BPF_OR, 2, (int32_t)(1u << j));
			stx(e, BPF_DW, 1, 0, 2);
			fix(e, jf[j]);
			continue;
		}
		jf[j] = jmp_i(e, BPF_JNE, 0, 0);
	}
	if (nsite)
		return;
	jok = jmp_i(e, BPF_JA, 0, 0);
	for (unsigned j = 0; j < e->ncpy; j++)
		fix(e, jf[j]);
	e->fj[e->nfj++] = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jok);
}

int mem_copy(const struct em *e, const struct ubpf_kop *o)
{
	for (unsigned j = 0; j < e->ncpy; j++)
		if (e->cpy[j].arg == o->n && e->cpy[j].size == o->imm)
			return e->vbuf ? (int)j : -1;
	return -1;
}

/*
 * MLD o, a fault site (o->slot, 1 up): where its copy could not be
 * read (its bit in the word past the room, mem_read()'s), the site's
 * bit at the copy's address (1 at 32 + 2 * (slot - 1) in S_FLAGS, as
 * cgen_sarg.c's fault_at() sets a string's) and the clause's end
 * (e->sfj, which cgen_plan() points at o->jump).  r1 and r3 taken.
 */
void mld_fault(struct em *e, const struct ubpf_kop *o)
{
	size_t jok;
	int j = mem_copy(e, o);

	if (j < 0 || !o->slot || o->slot > UBPF_KFSITES) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	alu_i(e, BPF_ADD, 1, (int32_t)(e->cpyoff + UBPF_KCPYROOM));
	ldx(e, BPF_DW, 1, 1, 0);
	alu_i(e, BPF_AND, 1, (int32_t)(1u << j));
	jok = jmp_i(e, BPF_JEQ, 1, 0);
	alu_i(e, BPF_MOV, 3, 1);
	fault_set(e, o->slot);
	fix(e, jok);
}

/*
 * MLD o into r1: its sz bytes at its offset in its copy (mem_read()),
 * zero-extended (push() narrows them to its type), a bit-field's bits
 * shifted down and sign-extended where signed (mem.c's bits_value())
 */
void mld(struct em *e, const struct ubpf_kop *o)
{
	int j = mem_copy(e, o);

	if (j < 0) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	alu_i(e, BPF_ADD, 1, (int32_t)(e->cpyoff + e->cpy[j].at + o->agg));
	ldx(e,
	    o->sz == 1	 ? BPF_B
	    : o->sz == 2 ? BPF_H
	    : o->sz == 4 ? BPF_W
			 : BPF_DW,
	    1, 1, 0);
	if (o->levels) {
		alu_i(e, BPF_LSH, 1, 64 - o->step - o->levels);
		alu_i(e, o->sg ? BPF_ARSH : BPF_RSH, 1, 64 - o->levels);
	}
}
