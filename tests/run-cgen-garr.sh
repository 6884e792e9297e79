#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-garr.sh: global associative arrays in the kernel
# (dtrace-G/consumer/kplan_garr.c), the book's iolatency.d idiom
#	start { start[k] = timestamp; }
#	done /start[k]/ { @ = quantize(timestamp - start[k]); start[k] = 0; }
# where the start and the done are different threads'.  Each script runs
# three ways: user space alone (DTRACE_KAGG=0), the generated programs
# and the generic program (DTRACE_CGEN=0); the outputs are byte for byte
# alike, and -v says which arrays the kernel keeps.  Covered:
#  - kernel probes (syscall) on kpprog's handoff: one thread's pread64()
#    offsets read by another thread's pwrite64() (the value and the
#    writer's tid), a clause before reading an element the clause after
#    deletes, and an element read 0.3 s after its writer exited (dtrace's
#    reap of exited threads' self-> variables leaves a global array's);
#    no record read;
#  - uprobe sites (trprog's tr$target:::tick): timestamps keyed by an
#    expression, elements never set read as 0; keys that are the probe's
#    names and literals (kplan_akey.c's numbers);
#  - integer keys of different types naming one element by their
#    values, as DTrace's register values do;
#  - what stays user space's, -v saying why, the outputs alike all the
#    same: an array BEGIN stores, one a clause of every process's probes
#    touches (tr*: a forked child's hits before its plan are user
#    space's; its predicate keeps the other ways' trprogs out of the
#    output, not always out of the records), an array of strings.
# The first three fail on a tree that kept global arrays in user space
# (-v named none; records read), the handoff's late element on one whose
# reap took a global array's elements for an exited thread's (a miss
# counted).  About 6 s idle.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup trace
kpprog_build

# three WHAT KEPT RECORDS CMD SCRIPT: dtrace -v -q -s SCRIPT -c CMD three
# ways, the outputs alike and some; the generated programs' -v names
# KEPT as the global arrays the kernel keeps ("" none) and read RECORDS
# records
three() {
	printf '%s\n' "$5" >t.d
	ways_start 120 -v -q -s t.d -c "$4"
	ways_wait "$1"
	ways_same "$1"
	if [ -n "$2" ]; then
		expect_grep "$1: the arrays the kernel keeps" \
			"^dtrace: [0-9]* global arrays* kept in the kernel: $2\$" \
			errg.txt
	else
		expect_eq "$1: no array in the kernel" "" \
			"$(grep 'kept in the kernel' errg.txt)"
	fi
	expect_grep "$1: records read" \
		"^dtrace: BPF: .* verified, $3 records* read\$" errg.txt
}

# kpprog's handoff of 200: offsets 1-200 handed over, 201 never started,
# 202 started by a thread gone before its pwrite64()
three "handoff between threads" 'start\[\], who\[\]' 0 './kpprog handoff 200' '
uint64_t start[int64_t];
syscall::pwrite64:entry /pid == $target && (int)arg0 == -1 && !start[arg3]/ {
	@miss = count(); @m = max(arg3);
}
syscall::pread64:entry /pid == $target && (int)arg0 == -1/ {
	start[arg3] = timestamp; who[arg3] = tid;
}
syscall::pwrite64:entry /pid == $target && (int)arg0 == -1 && start[arg3]/ {
	@n = count(); @s = sum(arg3); @other = sum(who[arg3] != tid);
	@pos = min(timestamp - start[arg3] > 0);
	start[arg3] = 0; who[arg3] = 0;
}
END { printa("miss %@d max %@d\n", @miss, @m);
	printa("n %@d sum %@d other %@d pos %@d\n", @n, @s, @other, @pos); }'
printf 'miss 1 max 201\nn 201 sum 20302 other 201 pos 1\n\n' >want.txt
expect_file_eq "handoff between threads: the counts" want.txt outg.txt

# trprog's tick 10: tick(i, word, -1000 * i), even i a start, odd i
# its done (k = i / 2), and elements never set (k + 100)
three "timestamps at uprobe sites" 's\[\]' 0 './trprog "tick 10"' '
tr$target:::tick /arg0 % 2 == 0/ { s[arg0 / 2] = timestamp; }
tr$target:::tick /arg0 % 2 == 1 && s[arg0 / 2]/ {
	@q = quantize((timestamp - s[arg0 / 2]) / 100000000000);
	@m = min(timestamp - s[arg0 / 2] > 0);
	@u = sum(s[arg0 / 2 + 100] != 0);
	s[arg0 / 2] = 0;
}
tr$target:::tick /arg0 % 2 == 1 && s[arg0 / 2]/ { @left = count(); }'

three "probe names and literals as keys" 'n\[\]' 0 './trprog "tick 10"' '
tr$target:::tick { n[probename, arg0 % 3]++; }
tr$target:::tick { @[arg0 % 3] = max(n["tick", arg0 % 3]); }
tr$target:::tick /arg0 == 9/ { @z = sum(n["tock", 0]); }'

# keys of different types name one element by their values (run.c's
# d_dyn_key_add(), cgen_plan.c's tlsa_key()): n[arg0 % 2], an int64_t,
# read as n[0] and n[(uint8_t)1], and a thread-local array alike; every
# way printed 0 0 0 0 before (each key's type part of the element)
three "keys of different types" 'n\[\]' 1 './trprog "tick 10"' '
tr$target:::tick { n[arg0 % 2]++; self->m[arg0 % 2]++; }
tr$target:::tick /arg0 == 5/ {
	printf("%d %d %d %d\n", n[0], n[(uint8_t)1], self->m[0],
	    self->m[(uint8_t)1]);
}'
expect_eq "keys of different types: one element each" "3 3 3 3" \
	"$(head -n 1 outg.txt)"

# what stays user space's (-v: each clause's reason)
three "an array BEGIN stores" '' 10 './trprog "tick 10"' '
BEGIN { b[0] = 5; }
tr$target:::tick { b[0]++; @ = max(b[0]); }'
expect_grep "an array BEGIN stores: -v says why" \
	'runs in user space, from its record: .*b\[\] is a global array that clause 1 touches, which dtrace runs (BEGIN, END, ERROR, tick-N)' \
	errg.txt

three "an array at every process's probes" '' '[0-9]*' './trprog "tick 10"' '
tr*:::tick /pid == $target/ { w[arg0 % 2]++; @ = max(w[arg0 % 2]); }'
expect_grep "every process's probes: -v says why" \
	'w\[\] is a global array that clause 1 touches at probes of any process' \
	errg.txt

three "an array of strings" '' 10 './trprog "tick 10"' '
tr$target:::tick { t[arg0 % 2] = "odd"; @[arg0 % 2] = count(); }'
expect_grep "an array of strings: -v says why" \
	't\[\] is a global array of strings' errg.txt

finish
