#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-vtimestamp.sh: D's vtimestamp is the firing thread's on-CPU time
# (dtrace-G/consumer/vtime.c, bpf/vtime.bpf.h), checked as a clock
# against tests/data/vtime/vtprog.c, whose threads measure their own CPU
# time with CLOCK_THREAD_CPUTIME_ID around what they do and print it.
# Bands, not timings: each check holds however loaded the machine is,
# and each fails where vtimestamp is timestamp (the sleeps).
#  - USDT: across main's 150 ms spin, the vtimestamp delta is at least
#    0.8 times the thread's own figure, at most 1.2 times it plus 20 ms
#    and never above timestamp's delta over the same hits; across
#    its 200 ms sleep it is under 20 ms while timestamp's is >= 200 ms;
#  - two threads at once, one spinning 150 ms and one sleeping 300 ms:
#    each thread's delta is its own (the sleeper's under 20 ms);
#  - per thread, vtimestamp never decreases over 300 hits with a
#    sched_yield() between each;
#  - syscall provider: the same across the spin (getppid(2) before and
#    after) and the sleep (clock_nanosleep(2)'s entry and return);
#  - BEGIN and END: dtrace's own CPU time, non-decreasing;
#  - all of these with the generated programs (-v names them: their
#    own switch program and records, dtrace-G/consumer/cgen_rec.c; and
#    says which of vt.d's clauses read it in the kernel and why the
#    others do not) and with the generic ones (DTRACE_CGEN=0);
#  - in the kernel (trprog's tr:::tick): a kernel aggregation keyed by
#    vtimestamp has the values a user space clause prints from the
#    records (one read a firing), a predicate on it, -v naming the
#    clauses; with self-> variables kept there, a store of it the
#    kernel's, 0 between it and a vin clause's read, -v's reason the
#    vin clause does not print it in the kernel;
#  - DTRACE_VTIME_LOST=1 (a test hook: every thread's clock lost after
#    its first hit), three ways: without self-> in the kernel the hits
#    go to user space whole and fault there, with them each read in
#    the kernel a fault site ending its clause (a store, the right of
#    && in a predicate; in a clause printing, or keeping a this->
#    string, from its out area too: nothing of it printed), the
#    reports run.c's;
#  - the uprobe events backend refuses vtimestamp, naming itself, and
#    runs a script that does not read it.
# Where the kernel did not report a switch of a traced thread (the VM CI
# runs on hides its own agent's threads from BPF), that thread's clock
# is lost: dtrace says so once and the clauses reading it fault, giving
# no value.  Then the run is made again once, and in the last run a
# missing value is allowed only with that notice; every value given is
# checked, and at least one of the six deltas must be given.
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
[ -f /sys/kernel/btf/vmlinux ] ||
	skip "no kernel BTF: vtimestamp's seed needs it"

if ! trace_progs_copy vtprog; then
	data=$top_srcdir/tests/data/vtime
	if ! "$DTRACE" -h -s "$data/vt.d" -o vt.h ||
		! $CC -O2 -I. -c "$data/vtprog.c" -o vtprog.o ||
		! "$DTRACE" -G -s "$data/vt.d" vtprog.o -o vt-probes.o ||
		! $CC -o vtprog vtprog.o vt-probes.o -lpthread; then
		fail "building the test program"
		finish
	fi
fi

cat >vt.d <<'D'
vt$target:::mark /arg0 == 1 || arg0 == 3 || arg0 == 5/
{ self->v = vtimestamp; self->t = timestamp; }
vt$target:::mark /arg0 == 2 || arg0 == 4 || arg0 == 6/
{
	printf("mark %d %d vt %d ts %d own %d\n", arg0, arg1,
	    vtimestamp - self->v, timestamp - self->t, arg2);
}
vt$target:::mark /arg0 == 7 && self->last && vtimestamp < self->last/
{ printf("decrease %d %d %d\n", arg1, self->last, vtimestamp); }
vt$target:::mark /arg0 == 7/ { @n[arg1] = count(); self->last = vtimestamp; }
syscall::getppid:entry /pid == $target && self->sn == 1/
{ printf("getppid vt %d ts %d\n", vtimestamp - self->sv, timestamp - self->st); }
syscall::getppid:entry /pid == $target && self->sn == 0/
{ self->sv = vtimestamp; self->st = timestamp; }
syscall::getppid:entry /pid == $target/ { self->sn++; }
syscall::clock_nanosleep:entry /pid == $target && tid == $target/
{ self->nv = vtimestamp; self->nt = timestamp; }
syscall::clock_nanosleep:return /pid == $target && self->nv/
{
	printf("nanosleep vt %d ts %d\n", vtimestamp - self->nv,
	    timestamp - self->nt);
	self->nv = 0;
}
BEGIN { printf("begin %d\n", vtimestamp); b = vtimestamp; }
END { printf("end %d\n", vtimestamp >= b && b > 0); printa("yields %d %@d\n", @n); }
D

vt_run() {
	rm -f out.txt # -o appends
	timeout -s KILL 120 "$DTRACE" -q -o out.txt -s vt.d -c ./vtprog \
		>prog.txt 2>err.txt
	vt_status=$?
}

field() { # field LINE-PREFIX N: field N of out.txt's line starting so
	awk -v p="$1" -v n="$2" 'index($0, p) == 1 { print $n; exit }' out.txt
}

lost_note='vtimestamp of thread [0-9]* is unknown from here on: the kernel did not report one of its switches'

# vt_lost: this run's dtrace said a thread's clock was lost
vt_lost() { grep -q "$lost_note" err.txt; }

# vt_checks WHAT: vt.d run on vtprog, and its deltas checked
vt_checks() {
	vt_what=$1
	vt_run
	if vt_lost; then
		echo "# a thread's vtimestamp was lost (a switch the kernel did not report):" \
			"running again once" >&2
		sed 's/^/    err1| /' err.txt >&2
		vt_run
	fi
	expect_eq "$vt_what: dtrace's status" 0 "$vt_status"
	if vt_lost; then
		# only the notice and the faults of the clauses that read it
		expect_eq "$vt_what: dtrace's stderr: the notice, and faults" "" \
			"$(grep -v -e "$lost_note" \
				-e '^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: [^)]*): illegal operation in predicate$' \
				-e '^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: [^)]*): illegal operation in action #[0-9]*$' \
				err.txt)"
		sed 's/^/    err | /' err.txt >&2
	else
		expect_eq "$vt_what: dtrace's stderr" "" "$(cat err.txt)"
	fi
	[ -f out.txt ] || : >out.txt
	sed 's/^/    out | /' out.txt >&2
	sed 's/^/    prog| /' prog.txt >&2

	# A delta is missing: a fault unless the clock was said to be lost.
	nvals=0
	lost() {
		if vt_lost; then
			echo "# $vt_what, $1: no value (its thread's clock was lost), not checked" >&2
		else
			fail "$vt_what, $1: no value"
		fi
	}

	# band WHAT VT OWN [TS]: VT within [0.8 OWN, 1.2 OWN + 20 ms], and with
	# TS (timestamp's delta over the same hits) never above it: a thread's
	# time on a CPU cannot exceed the time that passed (1 ms for the hits'
	# own order of reads).  The upper band is loose on purpose: vtimestamp
	# is kept from the CPU clock at each switch (vtime.bpf.h), so it counts
	# interrupt and a virtual machine's steal time that the thread's own
	# CLOCK_THREAD_CPUTIME_ID leaves out, and CI runs on a loaded VM.
	band() {
		[ -n "$2" ] || { lost "$1"; return; }
		nvals=$((nvals + 1))
		if [ -n "$2" ] && [ -n "$3" ] && [ "$3" -gt 100000000 ] &&
			[ $(($2 * 10)) -ge $(($3 * 8)) ] &&
			[ $(($2 * 10)) -le $(($3 * 12 + 200000000)) ] &&
			{ [ -z "${4:-}" ] || [ "$2" -le $(($4 + 1000000)) ]; }; then
			pass
		else
			fail "$vt_what, $1: vtimestamp delta '$2' not within [0.8, 1.2 +20 ms] of the thread's own '$3'${4:+ or above timestamp's '$4'}"
		fi
	}

	# asleep WHAT VT TS MIN: VT < 20 ms while TS >= MIN
	asleep() {
		[ -n "$2" ] || { lost "$1"; return; }
		nvals=$((nvals + 1))
		if [ -n "$2" ] && [ -n "$3" ] && [ "$2" -lt 20000000 ] &&
			[ "$3" -ge "$4" ]; then
			pass
		else
			fail "$vt_what, $1: vtimestamp delta '$2' (< 20 ms expected) over a timestamp delta '$3' (>= $4)"
		fi
	}

	band "USDT, main's spin" "$(field 'mark 2 0 ' 5)" \
		"$(awk '/^busy own/ { print $3 }' prog.txt)" "$(field 'mark 2 0 ' 7)"
	asleep "USDT, main's sleep" "$(field 'mark 4 0 ' 5)" \
		"$(field 'mark 4 0 ' 7)" 200000000
	band "USDT, thread 1's spin beside thread 2's sleep" \
		"$(field 'mark 6 1 ' 5)" \
		"$(awk '/^thread 1 own/ { print $4 }' prog.txt)" \
		"$(field 'mark 6 1 ' 7)"
	asleep "USDT, thread 2's sleep beside thread 1's spin" \
		"$(field 'mark 6 2 ' 5)" "$(field 'mark 6 2 ' 7)" 300000000
	expect_eq "$vt_what: vtimestamp never decreases in a thread" "" \
		"$(grep '^decrease' out.txt)"
	if vt_lost; then # its clause faults where the clock was lost
		echo "# $vt_what: the hits not counted (a clock was lost)" >&2
	else
		expect_eq "$vt_what: every thread's 300 hits" "yields 0 300
yields 1 300
yields 2 300" "$(grep '^yields' out.txt | sort)"
	fi
	band "syscall, getppid() around the spin" "$(field 'getppid ' 3)" \
		"$(awk '/^sysbusy own/ { print $3 }' prog.txt)" \
		"$(field 'getppid ' 5)"
	asleep "syscall, clock_nanosleep()'s entry to return" \
		"$(field 'nanosleep ' 3)" "$(field 'nanosleep ' 5)" 200000000
	expect_eq "$vt_what: BEGIN and END: dtrace's CPU time, positive, non-decreasing" \
		"end 1" "$(grep '^end' out.txt)"
	if [ "$nvals" -ge 1 ]; then
		pass
	else
		fail "$vt_what: none of the deltas was given"
	fi
}

# the generated programs (their own switch program and records:
# cgen_rec.c), then the generic ones; -v names the generated ones (a
# run of its own: -v writes to stderr)
vt_checks "generated"
DTRACE_CGEN=0
export DTRACE_CGEN
vt_checks "generic"
unset DTRACE_CGEN
# with three clauses more: a store after a vtimestamp read in a clause
# user space runs is user space's too, not made by the kernel beside
# it (the read faults where the clock was lost, and then run.c makes
# no store: kplan_vin.c's ufree())
timeout -s KILL 120 "$DTRACE" -v -q -s vt.d -c ./vtprog -n '
	syscall::getppid:entry /pid == $target/ { self->vw = 1; }
	syscall::getppid:entry /pid == $target/
	{ printf("%d", vtimestamp > 0); self->vw = 0; }
	syscall::getppid:return /self->vw/ { @vw = count(); }' >/dev/null \
	2>err.txt
expect_eq "generated: -v names the programs" 1 \
	"$(grep -c '^dtrace: BPF: [0-9]* generated programs*, ' err.txt)"
expect_grep "generated: a store after a read of vtimestamp is user space's" \
	'self->vw is also stored by clause [0-9]*, which runs in user space: .*nothing before the store may fault' \
	err.txt
# vt.d's stores of self->v, self->last (with @n), self->sv and self->sn
# in the kernel, each read of vtimestamp a fault site; the clauses
# printing it vin clauses; the nanosleep pair user space's, its store
# named
expect_grep "generated: vt.d's stores in the kernel" \
	'^dtrace: 4 clauses aggregated in the kernel' err.txt
expect_grep "generated: vt.d's printing clauses vin clauses" \
	'^dtrace: 3 clauses in user space reading self-> variables the kernel keeps' \
	err.txt
expect_eq "generated: vt.d's printing clauses, why" 4 \
	"$(grep -c "^dtrace: clause \(2\|3\|5\|9\) .*vtimestamp is printed in the kernel only in a program that keeps no self-> variable" err.txt)"
expect_grep "generated: vt.d's nanosleep store named" \
	'^dtrace: clause 8 .*its store to self->nv is not one the kernel runs' \
	err.txt

# In the kernel (doc/DESIGN.md §8's "vtimestamp, copyout() and unset
# variables in the generated programs"): trprog's tr:::tick, N hits.
# One value a firing: a kernel aggregation's keys are the values a
# clause user space runs (a global) prints from the record; a build that
# read the clock again at the record would print others.  -v: the
# kernel's clauses; in a program keeping self-> variables, a store of
# it the kernel's and the clause printing it a vin clause, the reason
# said (a lost clock must end the clause at the read, which the out
# area's faults cannot).
trace_progs_build
vk_run() { # vk_run WAY DTRACE-ARGS...: trprog's 'tick 5' under WAY
	vk_way=$1
	shift
	env $vk_way timeout -s KILL 60 "$DTRACE" -q "$@" \
		-c "./trprog 'tick 5'" >vk.txt 2>vkerr.txt
	vk_status=$?
}
vk_run "" -v -n 'tr$target:::tick { @a[vtimestamp] = count(); }
	tr$target:::tick { g = vtimestamp; printf("v %d\n", g); }
	tr$target:::tick /vtimestamp > 0/ { @p = count(); }
	END { printa("k %d %@d\n", @a); printa("p %@d\n", @p); }'
expect_eq "kernel: status" 0 "$vk_status"
expect_eq "kernel: one value a firing, the kernel's and the record's" \
	"$(grep '^v ' vk.txt | sed 's/^v \(.*\)/k \1 1/' | sort)" \
	"$(grep '^k ' vk.txt | sort)"
expect_eq "kernel: 5 hits" "5 5" \
	"$(grep -c '^v ' vk.txt) $(grep -c '^k ' vk.txt)"
expect_eq "kernel: the predicate on it" "p 5" "$(grep '^p ' vk.txt)"
expect_eq "kernel: -v, the clauses in the kernel (1 and 3)" \
	"dtrace: 2 clauses aggregated in the kernel" \
	"$(grep 'clauses* aggregated in the kernel' vkerr.txt)"
expect_grep "kernel: -v, clause 2 user space's (its global)" \
	'clause 2 (tr[0-9]*:::tick) runs in user space, from its record: .*g is a global variable' \
	vkerr.txt
vk_run "" -v -n 'tr$target:::tick { self->a = vtimestamp; }
	tr$target:::tick { printf("d %d\n", vtimestamp - self->a); }'
expect_eq "self->: the same value in two clauses" "d 0
d 0
d 0
d 0
d 0" "$(grep '^d ' vk.txt)"
expect_grep "self->: -v, the printing clause a vin clause" \
	'^dtrace: 1 clause in user space reading self-> variables the kernel keeps' \
	vkerr.txt
expect_grep "self->: -v, the store the kernel's" \
	'^dtrace: 1 clause aggregated in the kernel' vkerr.txt
expect_grep "self->: -v, why it is not printed in the kernel" \
	'clause 2 .*vtimestamp is printed in the kernel only in a program that keeps no self-> variable: a lost clock there must end the clause' \
	vkerr.txt
# A lost clock (DTRACE_VTIME_LOST=1: every thread's after its first
# hit), three ways alike: without self-> in the kernel the hit goes to
# user space whole, each read faulting in run.c; with self->n kept,
# each read in the kernel is a fault site ending its clause there (a
# store's, a predicate's right of && read only where the left does not
# decide), as run.c's read faults.
for vk_w in "" DTRACE_KAGG=0 DTRACE_CGEN=0; do
	vk_run "DTRACE_VTIME_LOST=1 $vk_w" \
		-n 'tr$target:::tick { @c = count(); }
		tr$target:::tick { @v[vtimestamp > 0] = count(); }
		END { printa("c %@d\n", @c); printa("v %d %@d\n", @v); }'
	expect_eq "lost ($vk_w): status" 0 "$vk_status"
	expect_eq "lost ($vk_w): the hits, the one value" "c 5
v 1 1" "$(grep '^[cv] ' vk.txt)"
	expect_eq "lost ($vk_w): the notice, 4 faults" "1 4" \
		"$(grep -c "$lost_note" vkerr.txt) $(grep -c 'illegal operation in action #1$' vkerr.txt)"
	vk_run "DTRACE_VTIME_LOST=1 $vk_w" -v \
		-n 'tr$target:::tick { self->n++; }
		tr$target:::tick { self->v = vtimestamp; @k = count(); }
		tr$target:::tick /self->n > 2 && vtimestamp > 0/ { @j = count(); }
		tr$target:::tick /self->n == 5/ { printf("n %d\n", self->n); }
		dtrace:::ERROR { printf("err %d\n", arg4); }
		END { printa("k %@d\n", @k); printa("j %@d\n", @j); }'
	expect_eq "lost, self-> ($vk_w): the stores, the faults" "7 err 3
1 k 1
1 n 5" "$(grep '^[enk][a-z]* ' vk.txt | sort | uniq -c |
		sed 's/^ *//')"
	expect_eq "lost, self-> ($vk_w): where they fault" "4 action #1
3 predicate" "$(sed -n 's/.*illegal operation in //p' vkerr.txt |
		sort | uniq -c | sed 's/^ *//')"
	[ -n "$vk_w" ] ||
		expect_grep "lost, self->: -v, the sites' clauses in the kernel" \
			'^dtrace: 3 clauses aggregated in the kernel' vkerr.txt
done

# ... in clauses with an out area (a this-> string kept, a printf():
# the toolkit's *_cputime.d keep this->file and this->name beside
# self->function[] = vtimestamp): each read a site all the same, whose
# fault leaves the area unrun, so the clause prints nothing and the
# fault is reported in its place, as run.c abandons the clause (its
# printf() before the read dropped with its record); a copy faulting
# before the read, or after it (arg0 is no address), ends the clause
# first, or is not reached.  This tree before left these clauses to
# user space ("a lost clock cannot end the clause at the read").
for vk_w in "" DTRACE_KAGG=0 DTRACE_CGEN=0; do
	vk_run "DTRACE_VTIME_LOST=1 $vk_w" -v \
		-n 'tr$target:::tick { self->n++; }
		tr$target:::tick { this->s = copyinstr(arg1); printf("p %d %s\n", self->n, this->s); self->v = vtimestamp; @k[this->s] = count(); }
		tr$target:::tick /self->n > 3/ { printf("q %d\n", self->n); @j[vtimestamp > 0] = count(); }
		tr$target:::tick { this->t = copyinstr(arg1); self->w = vtimestamp; @l[this->t] = count(); }
		tr$target:::tick { this->u = copyinstr(arg0); self->x = vtimestamp; }
		tr$target:::tick { self->y = vtimestamp; this->u = copyinstr(arg0); }
		dtrace:::ERROR { printf("err %d %d %d 0x%x\n", arg1, arg2, arg4, arg5); }
		END { printa("k %s %@d\n", @k); printa("j %d %@d\n", @j); printa("l %s %@d\n", @l); }'
	expect_eq "lost, out areas ($vk_w): status" 0 "$vk_status"
	# (ERROR's: the clause, cN for the Nth of the epids that faulted
	# in their order, which is the clauses' (the numbers themselves
	# are not: ERROR's own comes before them on one build of trprog
	# and after them on another), the action, the fault (3 an illegal
	# operation, 1 an invalid address), the address; arg0 is 0 to 4)
	vk_ids=$(awk '$1 == "err" { print $2 }' vk.txt | sort -n -u |
		paste -sd' ' -)
	expect_eq "lost, out areas ($vk_w): the lines" "4 err c1 4 3 0x0
2 err c2 2 3 0x0
4 err c3 2 3 0x0
1 err c4 1 1 0x0
1 err c4 1 1 0x1
1 err c4 1 1 0x2
1 err c4 1 1 0x3
1 err c4 1 1 0x4
4 err c5 1 3 0x0
1 err c5 2 1 0x0
1 k alpha 1
1 l alpha 1
1 p 1 alpha" "$(awk -v ids="$vk_ids" 'BEGIN {
			n = split(ids, a, " ")
			for (i = 1; i <= n; i++)
				r[a[i]] = i
		}
		$1 == "err" { $2 = "c" r[$2] }
		/^[a-z]/ && !/^ok/ { print }' vk.txt | sort | uniq -c |
		sed 's/^ *//')"
	[ -n "$vk_w" ] ||
		expect_eq "lost, out areas: -v, every tick clause in the kernel" \
			"dtrace: 4 clauses aggregated in the kernel
dtrace: 2 clauses printing values computed in the kernel" \
			"$(grep 'clauses* \(aggregated\|printing\)' vkerr.txt)"
done

# the uprobe events backend has no per-thread CPU time: refused
DTRACE_BACKEND=uprobe timeout -s KILL 120 "$DTRACE" -q \
	-n 'vt$target:::mark { trace(vtimestamp); }' -c ./vtprog \
	>out.txt 2>err.txt
expect_eq "uprobe backend: status" 1 "$?"
expect_grep "uprobe backend: refused, naming it" \
	"cannot use vtimestamp with the uprobe events backend" err.txt
expect_eq "uprobe backend: the program did not run" "" "$(cat out.txt)"
DTRACE_BACKEND=uprobe timeout -s KILL 120 "$DTRACE" -q \
	-n 'vt$target:::mark /arg0 == 7/ { @ = count(); }
	    END { printa("%@d\n", @); }' -c ./vtprog >out.txt 2>err.txt
expect_eq "uprobe backend, no vtimestamp: status" 0 "$?"
expect_eq "uprobe backend, no vtimestamp: hits" 900 \
	"$(grep -v own out.txt | tr -d ' ' | grep .)"

finish
