#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen.sh: the BPF programs generated from the clauses
# (dtrace-G/consumer/cgen.c) are the ones a run takes where they fit,
# and they print byte for byte what the generic program prints
# (DTRACE_CGEN=0), on real processes with real uprobes:
#  - every aggregating function, keys of integer expressions and of the
#    probe's name, predicates signed and unsigned, && || ?: / % << and
#    casts, a clause left to user space (printf) on the same probe;
#  - printf() and trace() of integer arguments and execname, whose
#    records the generated program writes (only for the hits where a
#    clause may run, when every such clause's predicate is integers
#    only: record gates, -v's records read), and of copyinstr() strings
#    (copied into the record at the hit), string predicates and self->
#    variables in a clause that prints (user space's, from the records);
#  - uid, gid, ppid, curpsinfo's pr_euid, pr_egid, pr_pgid, pr_sid and
#    pr_psargs read at the hit into the generated program's record,
#    beside a string; pr_psargs cut by strsize as printf() prints it
#    (strlen(), basename()), and a record without it (trprog noargs,
#    an unreadable area, and emptyargs, an empty one; skipped, said,
#    on a kernel without CONFIG_CHECKPOINT_RESTORE);
#    vtimestamp from the switch program generated beside it;
#  - arguments on the stack (the 7th on), read from user memory;
#  - copyin() copied at the hit into the generated program's record,
#    and one that faults (user space reports it, as before);
#  - self-> and this-> variables and timestamp in the kernel: an
#    entry/return pair timed (pid provider), per-thread counters in
#    many threads, ++, -- and compound assignment (not of a global),
#    thread-local arrays with integer keys,
#    this-> across the clauses of a firing; a variable a
#    user-space clause touches stays in user space with every clause
#    touching it, and so is one dtrace:::ERROR reads; a clause whose
#    plan would depend on whether a
#    variable is set (an unset one reads as a signed 0, timestamp
#    stored makes it unsigned) stays in user space; the variables of
#    threads that exited are deleted from the kernel's map;
#  - string predicates (copyinstr(argN) == or != a literal) in the
#    kernel, compared a word at a time (tails, bytes above 0x7f,
#    prefixes, a literal too long stays in user space); one whose
#    string faults sends the hit to user space, which reports the same
#    errors; beside self-> in the kernel, its fault is the hit's: its
#    clause ends in the kernel, dtrace reports the fault and fires
#    ERROR in its place, at the string's address or at the page its
#    string runs into; on the right of && and || only when the left
#    does not decide;
#  - aggregations keyed by copyinstr(argN), beside integer keys and the
#    probe's name, a hostile string among them; one that faults;
#  - this-> strings set to copyinstr(argN) and compared or used as keys
#    later in the clause or in a later clause on the same probes, one
#    that faults (the same errors); one that may be read unset, is set
#    in a clause with a predicate, or to two arguments' strings keeps
#    its clauses in user space;
#  - a site link's program, its event's alone, carries the event's
#    index and its process's pid (no cookie, and pid_tgid only for the
#    record, read at the hit): hits at several sites of three probes,
#    each decoded as its own event's, records only where a gate held;
#  - BEGIN and END alone load no program at all.
# -v names the generated programs or that none was loaded (the generic
# program, as before, goes unmentioned).
# Needs root, tracefs and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup trace

# same WHAT PATH CMD DTRACE-ARGS...: dtrace -v -q on ./trprog CMD (OUT in
# CMD names the run's output file) with DTRACE_CGEN=1 and 0: the same
# output, not empty; -v says the first took PATH (generated or
# generic), the second the generic program.  The two runs run at once,
# each on its own process (-c) with its own files: most of a run is
# spent waiting on the kernel (attaching, detaching), not on a CPU.
same() {
	what=$1 path=$2 cmd=$3
	shift 3
	for g in 1 0; do
		rm -f out$g.txt
		DTRACE_CGEN=$g timeout -s KILL 120 "$DTRACE" -v -q -o out$g.txt \
			"$@" -c "./trprog $(printf '%s' "$cmd" | sed "s/OUT/out$g.txt/g")" \
			>/dev/null 2>err$g.txt &
		eval "same_pid$g=\$!"
	done
	for g in 1 0; do
		eval "wait \"\$same_pid$g\""
		expect_eq "$what (DTRACE_CGEN=$g): status" 0 "$?"
		[ -f out$g.txt ] || : >out$g.txt
	done
	expect_file_eq "$what: the same output" out0.txt out1.txt
	expect_eq "$what: some output" 1 "$([ -s out1.txt ] && echo 1)"
	n=$(grep -c '^dtrace: BPF: [0-9]* generated programs*, ' err1.txt)
	case $path in
	generated) expect_eq "$what: generated" 1 "$n" ;;
	*) expect_eq "$what: the generic program" 0 "$n" ;;
	esac
	expect_eq "$what: generic with DTRACE_CGEN=0 (-v says nothing)" 0 \
		"$(grep -c '^dtrace: BPF: ' err0.txt)"
	expect_eq "$what: no drops" "" "$(grep -i drop err1.txt err0.txt)"
}

# same_faults WHAT N [PATTERN]: the fault lines of the two runs of
# same() alike (their probes' pids made one), N of them; PATTERN the
# fault's (invalid address)
same_faults() {
	for g in 0 1; do
		grep "${3:-invalid address}" err$g.txt |
			sed 's/tr[0-9]*:/tr:/' >flt$g.txt
	done
	expect_file_eq "$1: the same errors" flt0.txt flt1.txt
	expect_eq "$1: $2 errors" "$2" "$(wc -l <flt1.txt | tr -d ' ')"
}

# rec_read WHAT N: -v of the DTRACE_CGEN=1 run counts N records read
rec_read() {
	expect_eq "$1: records read" " $2 record$([ "$2" = 1 ] || echo s) read" \
		"$(grep '^dtrace: BPF: .*, [0-9]* records* read$' err1.txt |
			sed 's/.*,//')"
}

# self-> in the kernel: -v says how many clauses the kernel ran and
# whether the kernel keeps variables
kvars() {
	expect_eq "$1: clauses in the kernel" \
		"dtrace: $2 clause$([ "$2" = 1 ] || echo s) aggregated in the kernel" \
		"$(grep 'aggregated in the kernel' err1.txt)"
	expect_eq "$1: variables in the kernel" "$3" \
		"$(grep -c 'self-> variables* live in the kernel' err1.txt)"
}

# The cases, in groups run side by side (bg_checks, at most 4 at once:
# each same() runs two dtraces, each mostly waiting on the kernel to
# attach and detach), each group in its own directory with its own
# files (trprog linked in) and its cases one after another there.
cg_dir() {
	ln ../trprog trprog 2>/dev/null || cp ../trprog trprog || exit 99
}

# every aggregating function, printf and trace, record gates, copyinstr()
cg_aggs() {
	cg_dir
	# tick N fires tr:::tick(i, word, -1000 * i) for i = 0..N-1.
	cat >a.d <<-'EOF'
	tr$target:::tick
	{
		@c[arg0 % 3, pid == $target] = count();
		@s[(int)arg0 & 1] = sum(arg2);
		@a = avg(arg2 / -7);
		@mn[arg0 > 5] = min(arg2);
		@mx = max((unsigned int)arg2);
		@q = quantize(arg2);
		@l[arg0 % 2] = lquantize(arg0, 0, 10, 3);
		@lq = lquantize(arg2, -8000, 0, 1000);
	}
	tr$target:::tick /(unsigned long)arg2 > 5 && arg0 != 7/ { @u = count(); }
	tr$target:::tick /arg2 < -3000/ { @sl = sum(arg0); }
	tr$target:::tick /(unsigned long)arg2 <= 3000/ { @ul = max(arg0); }
	tr$target:::tick /arg0 < 4 || arg2 % 3 == -1/
	{
		@v[probename, arg0 < 6 ? 1 : 2] = sum(arg0 << 3);
	}
	tr$target:::tick /!(arg0 ^ 5)/ { @x[~arg0, -arg2 >> 4] = min(arg2 % 7); }
	tr$target:::tick { printf("%d %d\n", arg0, arg2); }
	EOF
	same "every aggregating function, keys, predicates" generated "'tick 12'" \
		-s a.d
	expect_eq "every aggregating function: clauses in the kernel" \
		"dtrace: 6 clauses aggregated in the kernel" \
		"$(grep 'aggregated in the kernel' err1.txt)"

	same "printf, trace and execname from the record" generated "'tick 5'" \
		-n 'tr$target:::tick /arg0 != 2/ { printf("%d %s\n", arg2, execname); trace(arg0); }'

	# record gates: where every clause user space runs has an integer
	# predicate, the program tests them and writes a record only for the
	# hits where one held (-v counts the records read); anything else --
	# a predicate reading a self-> variable an earlier clause sets in user
	# space (after a string's store, which the kernel does not make with
	# it: kplan_vin.c's kstore_ok()) -- a record every hit; an argument
	# the site does not have reads 0 in the gate as in the record, so the
	# gate decides (cgen_plan.c's ARG: it wrote a record every hit
	# before)
	same "record gates: printf, trace, ustack() behind integer predicates" \
		generated "'tick 40'" \
		-n 'tr$target:::tick /arg0 == 5 || arg2 < -36000/ { printf("%d %s\n", arg0, copyinstr(arg1)); }' \
		-n 'tr$target:::tick /(arg0 & 7) == 3/ { trace(arg2); }' \
		-n 'tr$target:::tick /(unsigned)arg2 == 4294966296/ { ustack(); }' \
		-n 'tr$target:::tick { @ = count(); }'
	rec_read "record gates: printf, trace, ustack()" 10
	expect_grep "record gates: ustack() at arg0 1" 'trprog`' out1.txt
	same "record gates: exit()" generated "'tick 12'" \
		-n 'tr$target:::tick /arg0 == 6/ { printf("%d\n", arg0); exit(0); }'
	rec_read "record gates: exit()" 1
	same "record gates: a self-> variable set in user space" generated "'tick 12'" \
		-n 'tr$target:::tick /arg0 > 2/ { this->e = strtok(execname, " "); self->n++; printf("%d %s\n", self->n, this->e); }' \
		-n 'tr$target:::tick /self->n == 2/ { printf("two\n"); }'
	rec_read "record gates: a self-> variable set in user space" 12
	same "record gates: an argument the site lacks" generated "'tick 12'" \
		-n 'tr$target:::tick /arg5 == 0 && arg0 == 1/ { printf("%d %s\n", arg0, strtok(execname, " ")); }'
	rec_read "record gates: an argument the site lacks" 1
	# ... in a clause the kernel runs: 0 there, as in the record
	# (cgen_plan.c's ARG), one record, the printing hit's
	same "an argument the site lacks, in the kernel" generated "'tick 12'" \
		-n 'tr$target:::tick /arg5 == 0 && arg0 == 1/ { printf("%d\n", arg0); }'
	rec_read "an argument the site lacks, in the kernel" 1

	cat >s.d <<-'EOF'
	tr$target:::tick { @[copyinstr(arg1)] = sum(arg0); }
	tr$target:::tick /copyinstr(arg1) == "beta" || arg0 == 3/
	{
		self->n++;
		printf("%d %s %d %s\n", arg0, copyinstr(arg1), self->n, execname);
	}
	tr$target:::tick /arg0 & 1/ { @odd = count(); }
	EOF
	same "copyinstr(), string predicates, self->" generated "'tick 9'" -s s.d

	# args[N] printed as an integer, typed per probe (kplan_out.c's
	# args_per_probe(), out_ty()): tick's int args[0] and done's,
	# narrowed and in arithmetic, computed at the hit; msg's args[0], a
	# string, leaves the clause to user space at that probe alone.  The
	# tree before ran the clause in user space everywhere ("args[] is
	# typed per probe").
	same "args[N] printed, typed per probe" generated \
		"'tick 3' 'msg 1' done" \
		-n 'tr$target:::tick, tr$target:::done, tr$target:::msg {
			printf("%s %d %x %d\n", probename, args[0],
			(uint8_t)(args[0] - 1), args[0] - 5); }'
	expect_eq "args[N] printed, typed per probe: the kernel's" 1 \
		"$(grep -c '^dtrace: 1 clause printing values computed in the kernel$' err1.txt)"
	expect_eq "args[N] printed, typed per probe: user space's at msg" 1 \
		"$(grep -c 'ran in user space at 1 of its .*:msg: args\[0\] is no integer there' err1.txt)"
	expect_eq "args[N] printed, typed per probe: the values" \
		"tick 2 1 -3" "$(grep '^tick 2 ' out1.txt)"

	# the README's first example's shape: self->ts stored beside a
	# printf() of args[] typed per probe (msg's string and int) at
	# one provider's one probe name, whose sites type them alike
	# (kplan_here.c's one_typing()), the store's variable no read
	# (kplan_vars.c's open_bits()): both clauses the kernel's.  The
	# tree before ran the printing clause in user space ("args[] is
	# typed per probe", then "its plan would differ with its
	# variables set and unset").  Two probe names in one clause type
	# them apart: user space's, -v naming the gate.
	same "self-> beside args[N] typed per probe" generated \
		"msg 'tick 2' msg 'tick 1'" \
		-n 'tr$target:::msg { self->ts = timestamp;
			printf("%s %d\n", args[0], args[1]); }
		tr$target:::tick /self->ts/ { @ = count(); self->ts = 0; }'
	expect_eq "self-> beside args[N] typed per probe: the kernel's" 1 \
		"$(grep -c '^dtrace: 1 clause printing values computed in the kernel$' err1.txt)"
	expect_eq "self-> beside args[N] typed per probe: none in user space" \
		0 "$(grep -c 'runs* in user space' err1.txt)"
	expect_eq "self-> beside args[N] typed per probe: the values" \
		"hello 7 hello 7 2" "$(tr '\n' ' ' <out1.txt | tr -s ' ' |
			sed 's/ $//')"
	same "self-> beside args[N] of two probe names" generated \
		"'tick 2' done" \
		-n 'tr$target:::tick, tr$target:::done { self->n++;
			printf("%d %d\n", args[0], self->n); }'
	expect_grep "self-> beside args[N] of two probe names: -v says why" \
		'clause 1 (.*) runs in user space, .*args\[\] is typed per probe' \
		err1.txt
}

# pr_psargs a record lacks (cg_ids, where trprog's noargs works)
psargs_noargs() {
	# printed by a kernel clause: dtrace formats pr_psargs from the
	# record's copy, whole and under string functions (kplan_str.c's
	# kp_out_leaves()); a record without it (noargs: the argument area
	# made unreadable) is an illegal operation at its argument, as
	# run.c's builtin() has it, the clause's later output not printed
	same "pr_psargs printed from the record" generated \
		"'tick 2' noargs 'tick 1'" \
		-n 'tr$target:::tick { printf("%d [%s] %d %s\n", arg0,
			curpsinfo->pr_psargs, strlen(curpsinfo->pr_psargs),
			basename(curpsinfo->pr_psargs)); trace(arg0 + 10); }'
	expect_eq "pr_psargs printed from the record: the kernel's" \
		"dtrace: 1 clause printing values computed in the kernel" \
		"$(grep 'computed in the kernel' err1.txt)"
	expect_eq "pr_psargs printed: no clause user space's" 0 \
		"$(grep -c 'runs in user space' err1.txt)"
	expect_eq "pr_psargs printed: its hits" \
		"0 [./trprog tick 2 noargs tick 1] 29 trprog tick 2 noargs tick 1" \
		"$(grep '^0 ' out1.txt | head -1)"
	same_faults "pr_psargs unreadable" 1 'illegal operation'
	expect_eq "pr_psargs unreadable: at its argument" 1 \
		"$(grep -c 'action #2$' flt1.txt)"
	# a statement the kernel runs after it: that fault cannot end the
	# clause at the hit, so the clause stays user space's, said why
	same "pr_psargs printed before a count" generated "'tick 2' noargs 'tick 1'" \
		-n 'tr$target:::tick { printf("%d %s\n", arg0,
			curpsinfo->pr_psargs); @n = count(); }'
	expect_eq "pr_psargs printed before a count: why user space's" 1 \
		"$(grep -c 'argument 2: pr_psargs, a string the record may lack, is printed from it only where nothing' err1.txt)"
	# after a user stack's count, which dtrace makes from the record
	# after the area's faults are reported (kplan_out.c's
	# ukey_after_ok()): the fault would drop the faulting hit's count
	same "pr_psargs printed after a stack's count" generated \
		"'tick 2' noargs 'tick 1'" \
		-n 'tr$target:::tick { @[ustack()] = count();
			printf("%d %s\n", arg0, curpsinfo->pr_psargs); }'
	# as a key (../d/stmt.c's d_stmt_pkey(), and beside a stack): the
	# clause the kernel's, dtrace making the update from the record's
	# copy as it makes a stack key's; a record without it (noargs) an
	# illegal operation at the key, as run.c's, one per clause; the
	# counts known.  The tree before kept both clauses in user space.
	same "pr_psargs as a key" generated "'tick 2' noargs 'tick 1'" \
		-n 'tr$target:::tick { @[uid, probename, curpsinfo->pr_psargs] = sum(arg0 + 1); }' \
		-n 'tr$target:::tick { @s[ustack(1), curpsinfo->pr_psargs] = count(); }'
	expect_eq "pr_psargs as a key: the kernel's" \
		"dtrace: 1 clause keying by curpsinfo->pr_psargs in the kernel, each count made from its record" \
		"$(grep 'keying by curpsinfo' err1.txt)"
	expect_eq "pr_psargs as a key: beside a stack, the kernel's" \
		"dtrace: 1 clause keying by the user stack in the kernel, each count made from its record" \
		"$(grep 'keying by the user stack' err1.txt)"
	expect_eq "pr_psargs as a key: no clause user space's" 0 \
		"$(grep -c 'runs in user space' err1.txt)"
	expect_eq "pr_psargs as a key: the sum" \
		"$(id -u) tick ./trprog tick 2 noargs tick 1 3" \
		"$(awk '$2 == "tick" && $3 == "./trprog" { $1 = $1; print }' out1.txt)"
	expect_eq "pr_psargs as a key: the stack's count" 2 \
		"$(awk '$1 == "./trprog" { print $NF }' out1.txt)"
	same_faults "pr_psargs as a key, unreadable: one a clause" 2 \
		'illegal operation'
	# a statement the kernel runs after it: the fault could not end
	# the clause at the hit, so the clause stays user space's, said why
	same "pr_psargs as a key before a count" generated \
		"'tick 2' noargs 'tick 1'" \
		-n 'tr$target:::tick { @[curpsinfo->pr_psargs] = count(); @n = count(); }'
	expect_eq "pr_psargs as a key before a count: why user space's" 1 \
		"$(grep -c 'key 1, curpsinfo->pr_psargs, a string the record may lack, keys an update' err1.txt)"
	# an empty area (arg_end at arg_start: emptyargs) is none: the
	# record carries no pr_psargs (psargs_rec(), cgen_psargs()), not ""
	same "pr_psargs of an empty area" generated \
		"'tick 1' emptyargs 'tick 1'" \
		-n 'tr$target:::tick { printf("%d [%s] %d\n", arg0,
			curpsinfo->pr_psargs, strlen(curpsinfo->pr_psargs)); }'
	expect_eq "pr_psargs of an empty area: the first hit's alone" \
		"0 [./trprog tick 1 emptyargs tick 1] 32" "$(grep . out1.txt)"
	same_faults "pr_psargs of an empty area" 1 'illegal operation'
}

# uid, gid, ppid, curpsinfo at the hit; stack arguments; copyin()
cg_ids() {
	cg_dir
	# uid and gid (always 8 bytes: a record of constant size) and ppid (8
	# bytes only when the parent could be read: the record built in cgbuf,
	# before the strings), as the generic program reads them at the hit
	same "uid and gid at the hit" generated "'tick 3'" \
		-n 'tr$target:::tick { printf("%d %d %d\n", arg0, uid, gid); }'
	expect_eq "uid and gid: the caller's" "2 $(id -u) $(id -g)" \
		"$(grep '^2 ' out1.txt)"
	same "ppid, uid and a string at the hit" generated "'tick 4'" \
		-n 'tr$target:::tick { printf("%d %d %d %s\n", arg0, ppid == $pid,
			uid, copyinstr(arg1)); }' \
		-n 'tr$target:::tick /uid == 0/ { @[ppid == $pid, arg0 & 1] = count(); }'
	expect_eq "ppid: dtrace's, for its -c command" "3 1 $(id -u)" \
		"$(grep '^3 ' out1.txt | cut -d' ' -f1-3)"
	# the user stack after those fields: the generated program once
	# flagged the record from the stack slot and dropped their flags, so
	# the stack was read from the uid's bytes (garbage frames)
	same "uid, ppid and ustack() at the hit" generated "'tick 3'" \
		-n 'tr$target:::tick { printf("%d %d %d\n", arg0, uid, ppid == $pid);
			ustack(); }'
	expect_grep "uid, ppid and ustack(): the stack's first frame" \
		'trprog`' out1.txt
	# curpsinfo's effective ids and session (8 bytes each only when read;
	# the process group is timeout's, dtrace's parent: $ppid)
	same "pr_euid, pr_egid, pr_pgid and pr_sid at the hit" generated "'tick 2'" \
		-n 'tr$target:::tick { printf("%d %d %d %d %d %s\n", arg0,
			curpsinfo->pr_euid, curpsinfo->pr_egid,
			curpsinfo->pr_pgid == $ppid, curpsinfo->pr_sid,
			copyinstr(arg1)); }'
	expect_eq "effective ids and session: the caller's" \
		"1 $(id -u) $(id -g) 1 $(ps -o sid= -p $$ | tr -d ' ')" \
		"$(grep '^1 ' out1.txt | cut -d' ' -f1-5)"
	# curpsinfo->pr_psargs (a length and at most 80 bytes, only when the
	# argument area reads: built in cgbuf, after the session, before the
	# strings); a command line longer than that cut to DTrace's 79 bytes
	ps8="'sleep 0' 'sleep 0' 'sleep 0' 'sleep 0'"
	same "pr_psargs at the hit, a string beside" generated \
		"'tick 2' $ps8 $ps8 'tick 1'" \
		-n 'tr$target:::tick { printf("%d [%s] %s\n", arg0,
			curpsinfo->pr_psargs, copyinstr(arg1)); }' \
		-n 'tr$target:::tick /curpsinfo->pr_psargs != ""/ { @ = count(); }'
	expect_eq "pr_psargs: the command's, cut" \
		"1 [./trprog tick 2$(printf ' sleep 0%.0s' 1 2 3 4 5 6 7 8)] beta" \
		"$(grep '^1 ' out1.txt)"
	# strsize cuts pr_psargs as it cuts every string, to strsize - 1
	# bytes: strlen() and basename() measure and cut what printf()'s %s
	# prints, on both paths (before, strlen() measured them all, 47:
	# "[./trpro] 47 trprog ")
	same "pr_psargs at strsize 8" generated "'tick 1' $ps8" -x strsize=8 \
		-n 'tr$target:::tick { printf("[%s] %d %s\n",
			curpsinfo->pr_psargs, strlen(curpsinfo->pr_psargs),
			basename(curpsinfo->pr_psargs)); }'
	expect_eq "pr_psargs at strsize 8: 7 bytes, strlen() 7" \
		"[./trpro] 7 trpro" "$(cat out1.txt)"
	# a record without pr_psargs: trprog's noargs needs
	# prctl(PR_SET_MM_MAP), which only a kernel built with
	# CONFIG_CHECKPOINT_RESTORE has; without it those cases are
	# skipped, said (a map the kernel refuses fails)
	na=$(./trprog noargs)
	case $na in
	'ok noargs') psargs_noargs ;;
	'error noargs: no PR_SET_MM_MAP'*)
		echo "# trprog $na: the cases of a record without pr_psargs skipped" ;;
	*) fail "trprog noargs: '$na'" ;;
	esac
	# arguments 7 to 12 are on the stack (memory at %rsp + offset): read
	# with bpf_probe_read_user(), for the record and for the plan, beside a
	# probe with a string argument and one with plain registers
	same "stack arguments, a string argument, three events" generated \
		"'tick 3' msg big big" \
		-n 'tr$target:::big { @s = sum(arg11 - arg6); @m = max(arg7 * arg0); }' \
		-n 'tr$target:::big /arg9 == 10/ { printf("%d %d\n", arg8, arg11); }' \
		-n 'tr$target:::msg { printf("%s %d\n", args[0], args[1]); }' \
		-n 'tr$target:::tick { @t = count(); }'
	# one program an event's spec, shared by its sites; a site link's is
	# its site's alone (it carries the event's index): one a link
	nl=$(sed -n 's/^dtrace: BPF: \([0-9]*\) site links*, no uprobe event$/\1/p' \
		err1.txt)
	expect_eq "stack arguments: three programs, or one a site link" 1 \
		"$(grep -c "^dtrace: BPF: ${nl:-3} generated programs, " err1.txt)"

	same "copyin() at the hit" generated "'tick 5'" \
		-n 'tr$target:::tick { printf("%d\n", *(char *)copyin(arg1, 1)); }' \
		-n 'tr$target:::tick /arg0 > 1/ { printf("%s %s\n", stringof(copyin(arg1, 4)), copyinstr(arg1)); }'
	# a copy that faults (arg2 is no address): user space reads it later
	# and reports the fault, as the generic program's record makes it do
	same "copyin() at the hit that faults" generated "'tick 3'" \
		-n 'tr$target:::tick { printf("%d\n", *(char *)copyin(arg2, 1)); }' \
		-n 'tr$target:::tick { printf("%d\n", arg0); }'
	same_faults "copyin() at the hit that faults" 3
}

# vtimestamp
cg_vts() {
	cg_dir
	# vtimestamp: 8 bytes right after the arguments, before uid, from the
	# clock of the switch program generated beside (-v: two programs); per
	# thread, set and never decreasing.  A thread whose clock the kernel
	# lost (a switch it did not report: run-vtimestamp.sh) faults these
	# clauses: such a pair of runs is made again once, then not compared.
	for try in 1 2; do
		for g in 1 0; do
			rm -f out$g.txt
			DTRACE_CGEN=$g timeout -s KILL 120 "$DTRACE" -v -q -o out$g.txt \
				-n 'tr$target:::tick { printf("%d %d %d %d %s\n", arg0,
					vtimestamp > 0, vtimestamp >= self->v, uid,
					copyinstr(arg1)); self->v = vtimestamp; }' \
				-n 'tr$target:::tick /vtimestamp > 0/ { @ = count(); }' \
				-c "./trprog 'tick 4'" >/dev/null 2>err$g.txt
			expect_eq "vtimestamp (DTRACE_CGEN=$g): status" 0 "$?"
		done
		vtlost=$(grep -l 'vtimestamp of thread [0-9]* is unknown' err0.txt err1.txt)
		[ -z "$vtlost" ] && break
		echo "# a thread's vtimestamp was lost ($vtlost): running again" >&2
	done
	# (one program per site link, or one for the event, and the switch's)
	expect_eq "vtimestamp: generated, and its switch program" 1 \
		"$(grep -cE '^dtrace: BPF: ([2-9]|[1-9][0-9]+) generated programs, ' err1.txt)"
	expect_eq "vtimestamp: generic with DTRACE_CGEN=0" 0 \
		"$(grep -c '^dtrace: BPF: ' err0.txt)"
	if [ -z "$vtlost" ]; then
		expect_file_eq "vtimestamp: the same output" out0.txt out1.txt
		expect_eq "vtimestamp: set, not decreasing, uid beside" \
			"3 1 1 $(id -u) delta" "$(grep '^3 ' out1.txt)"
		expect_eq "vtimestamp: every hit's" 4 "$(tail -1 out1.txt | tr -d ' ')"
	fi
}

# self-> and this-> in the kernel, arrays
cg_self() {
	cg_dir
	cat >t.d <<-'EOF'
	pid$target::trl_call:entry { self->t = timestamp; self->x = arg0; }
	pid$target::trl_call:return /self->t/
	{
		@q = quantize((timestamp - self->t) * 0);
		@n = count();
		@ok = sum(timestamp >= self->t);
		@x[self->x % 3] = sum(self->x);
		self->t = 0;
		self->x = 0;
	}
	pid$target::trl_call:return /!self->t/ { @zero = count(); }
	EOF
	same "self->: an entry/return pair timed" generated "'lib 20'" -s t.d
	kvars "self->: an entry/return pair timed" 3 1

	cat >t.d <<-'EOF'
	tr$target:::tick { self->n = self->n + 1; @c[tid == pid] = count(); }
	tr$target:::tick /self->n == 3/ { @three = count(); }
	tr$target:::tick /self->n > 2/ { @[self->n] = count(); }
	EOF
	same "self->: counters in 6 threads" generated "'threads 6 5'" -s t.d
	kvars "self->: counters in 6 threads" 3 1

	# a self-> variable read again in its clause is the first load's value
	# (cgen_plan.c's vld_again()): after its predicate, and again after a
	# store to another variable, which must not be what the third read gets
	cat >t.d <<-'EOF'
	tr$target:::tick { self->a = arg0 + 1; }
	tr$target:::tick /self->a > 1/
	{
		self->b = self->a * 10;
		@[self->a, self->b] = count();
	}
	EOF
	same "self->: read again after a store to another" generated "'tick 5'" \
		-s t.d
	kvars "self->: read again after a store to another" 2 1

	# ++, -- (prefix and postfix) and every compound assignment in the
	# kernel, on self-> and this->; a global's ++ and a division by a
	# variable (which may fault) stay in user space
	cat >t.d <<-'EOF'
	tr$target:::tick
	{
		self->n++; ++self->n; self->d--; --self->d;
		self->s += arg0; self->m -= arg0 * 2;
		self->x |= 1 << (arg0 % 5); self->y ^= arg0 + 3; self->a &= ~arg0;
		self->w = (long)1000 + arg0; self->w /= 3;
		self->r = (long)100 + arg0; self->r %= 7;
		self->z = (long)1; self->z <<= arg0 % 4;
		self->b = (long)-1000 + arg0; self->b >>= 3;
		self->c = (long)3 + arg0; self->c *= -5;
		this->t++; this->t += arg0;
	}
	tr$target:::tick /self->n > 4/
	{
		@a[self->n, self->d, self->s, self->m] = count();
		@b[self->x, self->y, self->a, self->w] = count();
		@c[self->r, self->z, self->b, self->c] = sum(this->t);
	}
	tr$target:::tick { g++; @g[g] = count(); }
	tr$target:::tick { self->v = (long)100; self->v /= arg0 % 3; @v[self->v] = count(); }
	EOF
	same "self->: ++, -- and compound assignment" generated "'threads 4 5'" \
		-s t.d
	kvars "self->: ++, -- and compound assignment" 2 1

	cat >t.d <<-'EOF'
	tr$target:::tick { this->d = arg0 * 2; self->k = arg0 % 3 ? self->k : arg0; }
	tr$target:::tick /this->d > 4/ { @[this->d, self->k] = count(); this->d = (long)0; }
	tr$target:::tick /this->d == 0/ { @z = count(); }
	tr$target:::tick /arg0 > 8/ { printf("%d\n", arg0); }
	EOF
	same "this-> across clauses, printf beside" generated "'tick 12'" -s t.d
	kvars "this-> across clauses, printf beside" 3 1

	# thread-local arrays in the kernel (cgtlsa): one to four integer keys,
	# a key's type part of the key (self->c[(char)1] and self->c[1] are two
	# elements, as in user space), ++, op= and a store of 0 deleting; an
	# array whose stores give another type than its zero's (timestamp)
	# too, its reads computing alike set and unset (run-cgen-tlarr.sh)
	cat >t.d <<-'EOF'
	tr$target:::tick
	{
		self->a[arg0 % 3]++;
		self->b[arg0 % 2, (int)arg0 % 3] += arg0;
		self->c[(char)arg0] = arg0 * 2;
		self->c[(long)arg0] = (long)1;
		self->d[arg0, arg0 + 1, arg0 + 2, (short)arg0] -= 3;
	}
	tr$target:::tick /self->a[arg0 % 3] > 1/
	{
		@a[arg0 % 3, self->a[arg0 % 3]] = count();
		@b[self->b[0, 1], self->b[1, 2], self->b[1, (int)1]] = count();
	}
	tr$target:::tick
	{
		@c[self->c[arg0], self->c[(char)arg0]] = sum(self->c[(long)arg0]);
		@d[self->d[arg0, arg0 + 1, arg0 + 2, (short)arg0],
		    self->d[arg0, arg0 + 1, arg0 + 2, arg0]] = count();
	}
	tr$target:::tick /arg0 == 4/ { self->a[(long)1] = 0; }
	tr$target:::tick { self->t[arg0 % 2] = timestamp; }
	tr$target:::tick /self->t[0]/ { @t = count(); }
	EOF
	same "self-> arrays" generated "'tick 12' 'threads 3 4'" -s t.d
	kvars "self-> arrays" 6 1
}

# -p of a spinning process
cg_spin() {
	cg_dir
	# -p of a process that fires without pause (two threads spinning): it
	# is held still until its plans are armed too, so none of its hits runs
	# in user space with user space's self-> variables; each thread's count
	# is its self->n's last value, and dtrace says nothing of hits before
	# the plan was armed
	for r in 1 2; do
		rm -f cmd.fifo spin.txt out.txt
		mkfifo cmd.fifo || exit 99
		./trprog <cmd.fifo >spin.txt 2>&1 &
		tp=$!
		exec 3>cmd.fifo
		echo "spin 2" >&3
		"$DTRACE" -q -p "$tp" -n 'BEGIN { printf("ready\n"); }' \
			-n 'tr$target:::tick { self->n++; @c[tid] = count(); @m[tid] = max(self->n); }' \
			-n 'END { printa("%d %@d %@d\n", @c, @m); }' \
			>out.txt 2>err.txt &
		dp=$!
		wait_until 600 grep -q '^ready$' out.txt
		sleep 0.3 # hits after the arming too
		kill -INT "$dp"
		wait "$dp"
		expect_eq "-p of a spinning process, round $r: status" 0 "$?"
		echo stop >&3
		echo quit >&3
		exec 3>&-
		wait "$tp"
		expect_eq "-p of a spinning process, round $r: no hit before its plan" \
			"" "$(grep 'before the process' err.txt)"
		expect_eq "-p of a spinning process, round $r: its 2 threads" 2 \
			"$(grep -cE '^[0-9]+ [0-9]+ [0-9]+$' out.txt)"
		expect_eq "-p of a spinning process, round $r: count = self->n" "" \
			"$(awk 'NF == 3 && $2 != $3' out.txt)"
	done
}

# self-> read in user space, string predicates
cg_selfu() {
	cg_dir
	# self->k is printed beside a string variable the kernel does not
	# keep (strtok()'s; execname itself it keeps): that clause runs in user space, self->k read from its
	# record (kplan_vin.c's "Shared self-> variables"), and the clauses
	# storing self->k and self->j, which reads it, in the kernel
	cat >t.d <<-'EOF'
	tr$target:::tick /arg0 % 3 == 0/ { self->k = arg0; self->u = 1; }
	tr$target:::tick /self->u/ { self->j = self->k + 1; @u = count(); }
	tr$target:::tick /self->j/ { @j = sum(self->j); }
	tr$target:::tick /self->k/ { this->e = strtok(execname, " "); printf("%d %d %s\n", arg0, self->k, this->e); }
	tr$target:::tick { @all = count(); }
	EOF
	same "self-> read by printf in user space" generated "'tick 9'" -s t.d
	kvars "self-> read by printf in user space" 4 1

	# dtrace:::ERROR runs in user space in the faulting thread's context:
	# the self-> variables it reads are user space's, with every clause
	# touching them (the string predicate's fault fires it)
	cat >t.d <<-'EOF'
	tr$target:::tick { self->n = self->n + 1; }
	tr$target:::tick /copyinstr(arg2) == "x"/ { @never = count(); }
	dtrace:::ERROR { @err[self->n] = count(); }
	tr$target:::tick { @all = count(); }
	EOF
	same "self-> read by dtrace:::ERROR" generated "'tick 4'" -s t.d
	kvars "self-> read by dtrace:::ERROR" 2 0
	expect_eq "self-> read by dtrace:::ERROR: one entry per count" 4 \
		"$(grep -c '^ *[1-4]  *1$' out1.txt)"

	# unset, self->t - 1 is -1 (signed); set from timestamp, unsigned: the
	# comparison differs, so the predicate is tested in one form per
	# case, chosen at the hit by self->t's value (kplan_emit.c's
	# pred_forms()): every clause the kernel's
	cat >t.d <<-'EOF'
	tr$target:::tick /arg0 == 4/ { self->t = timestamp; }
	tr$target:::tick /self->t - 1 > 0/ { @big = count(); }
	tr$target:::tick { @all = count(); }
	EOF
	same "a plan that depends on a variable being set" generated "'tick 9'" \
		-s t.d
	kvars "a plan that depends on a variable being set" 3 1

	# string predicates in the kernel: copyinstr(argN) == / != a literal
	cat >t.d <<-'EOF'
	tr$target:::tick /copyinstr(arg1) == "beta"/ { @b = count(); @s = sum(arg0); }
	tr$target:::tick /"gamma" != copyinstr(arg1) && arg0 > 2/ { @ng[arg0 % 2] = count(); }
	tr$target:::tick /copyinstr(arg1) == ""/ { @empty = count(); }
	tr$target:::tick /copyinstr(arg1) == "bet"/ { @prefix = count(); }
	tr$target:::tick { printf("%d %s\n", arg0, copyinstr(arg1)); }
	EOF
	same "string predicates" generated "'tick 12'" -s t.d
	kvars "string predicates" 4 0

	# the literal compared a word at a time: 8-byte words, then 4, 2 and 1
	# for the tail, bytes above 0x7f (words not an immediate), a string
	# longer than the literal with it as prefix, and the same length with
	# the last byte different; a literal of 64 bytes (more than the kernel
	# compares) leaves its clause to user space
	cat >t.d <<-'EOF'
	tr$target:::tick /copyinstr(arg1) == "alph"/ { @alph = count(); }
	tr$target:::tick /copyinstr(arg1) == "alpha"/ { @alpha = count(); }
	tr$target:::tick /copyinstr(arg1) != "gammb"/ { @notgammb = count(); }
	tr$target:::tick /copyinstr(arg1) == "gammb"/ { @gammb = count(); }
	tr$target:::msg /copyinstr(arg0) == "a\033[2J\a\r\n\177\233\377z\\b"/ { @hostile = count(); }
	tr$target:::msg /copyinstr(arg0) == "a\033[2J\a\r\n\177"/ { @hprefix = count(); }
	tr$target:::msg /copyinstr(arg0) != "a\033[2J\a\r\n\177\233\377z\\c"/ { @hlast = count(); }
	tr$target:::msg /copyinstr(arg0) == "\377\377\377\377hello"/ { @never = count(); }
	tr$target:::msg /copyinstr(arg0) == "hello"/ { @hello = count(); }
	tr$target:::msg /copyinstr(arg0) == "hel\377"/ { @hel = count(); }
	tr$target:::msg /copyinstr(arg0) != "0123456789012345678901234567890123456789012345678901234567890123"/ { @long = count(); }
	EOF
	same "string predicates a word at a time" generated \
		"'tick 12' msg hostile msg" -s t.d
	kvars "string predicates a word at a time" 10 0
	printf '\n%17d\n%17d\n%17d\n%17d\n%17d\n%17d\n' 3 12 1 3 2 3 \
		>expected.txt
	expect_file_eq "string predicates a word at a time: the counts" \
		expected.txt out1.txt

	# a string the kernel cannot read (arg2 is no address): the hit goes
	# to user space whole, which reports the fault as the generic path does
	cat >t.d <<-'EOF'
	tr$target:::tick /copyinstr(arg2) == "x"/ { @bad = count(); }
	tr$target:::tick /copyinstr(arg1) == "beta"/ { @b = count(); }
	tr$target:::tick { @all = count(); }
	EOF
	same "a string predicate that faults" generated "'tick 6'" -s t.d
	kvars "a string predicate that faults" 3 0
	same_faults "a string predicate that faults" 6
}

# string keys, this-> strings
cg_strk() {
	cg_dir
	# aggregations keyed by copyinstr(argN), alone or beside other keys,
	# in the kernel (kaggs_s); a hostile string's key prints escaped as
	# user space's; a key that faults sends the hit to user space
	cat >t.d <<-'EOF'
	tr$target:::tick { @[copyinstr(arg1)] = count(); }
	tr$target:::tick { @s[arg0 % 2, copyinstr(arg1)] = sum(arg0); }
	tr$target:::tick /arg0 > 3/ { @q[copyinstr(arg1)] = quantize(arg0); }
	tr$target:::tick { @m[copyinstr(arg1), probename] = max(arg0); }
	tr$target:::msg { @h[copyinstr(arg0), arg1] = count(); }
	EOF
	same "string keys" generated "'tick 12' msg hostile" -s t.d
	kvars "string keys" 5 0
	cat >t.d <<-'EOF'
	tr$target:::tick { @bad[copyinstr(arg2)] = count(); }
	tr$target:::tick { @all = count(); }
	EOF
	same "a string key that faults" generated "'tick 3'" -s t.d
	kvars "a string key that faults" 2 0
	same_faults "a string key that faults" 3

	# a this-> string that is copyinstr(argN) wherever it is read (stored
	# earlier in its clause, or in a clause without a predicate before it
	# on the same probes), compared and used as a key in the kernel; a
	# store whose string faults sends the hit to user space, as the
	# comparison's does, even with no read of it
	cat >t.d <<-'EOF'
	tr$target:::tick { this->s = copyinstr(arg1); @[this->s] = count(); }
	tr$target:::tick /this->s != "gamma" && arg0 > 1/ { @ng[arg0 % 2] = count(); }
	tr$target:::tick { @b[this->s == "beta", this->s] = sum(arg0); }
	tr$target:::msg { this->m = copyinstr(arg0); @h[this->m, arg1] = count(); }
	EOF
	same "this-> strings" generated "'tick 12' msg hostile" -s t.d
	kvars "this-> strings" 4 0
	cat >t.d <<-'EOF'
	tr$target:::tick { this->t = copyinstr(arg2); @all = count(); }
	tr$target:::tick { @n = count(); }
	EOF
	same "a this-> string that faults" generated "'tick 6'" -s t.d
	kvars "a this-> string that faults" 2 0
	same_faults "a this-> string that faults" 6
	# ... not where it may be read unset ("" then) or set otherwise: a read
	# before the store, a clause with a predicate setting it, a second
	# argument's string (each is kept as its bytes instead, kplan_svar.c's
	# str_var(): this->p, set under a predicate and only compared, and,
	# since string variables key kaggs_v (VKEY), this->s and this->a: all
	# six clauses are the kernel's; three before VKEY)
	cat >t.d <<-'EOF'
	tr$target:::tick /this->s == ""/ { @unset = count(); }
	tr$target:::tick { this->s = copyinstr(arg1); @[this->s] = count(); }
	tr$target:::tick /arg0 > 2/ { this->p = copyinstr(arg1); }
	tr$target:::tick /this->p == "beta"/ { @p = count(); }
	tr$target:::tick { this->a = copyinstr(arg1); this->a = copyinstr(arg2); @a[this->a] = count(); }
	tr$target:::tick { @n = count(); }
	EOF
	same "this-> strings not the argument's" generated "'tick 6'" -s t.d
	kvars "this-> strings not the argument's" 6 0

	# with self-> variables in the kernel a string is compared there too,
	# its fault the hit's (the record's fault bits): the string
	# predicate's clause is the kernel's
	cat >t.d <<-'EOF'
	tr$target:::tick /copyinstr(arg1) == "beta"/ { @b = count(); }
	tr$target:::tick { self->n = self->n + 1; }
	tr$target:::tick /self->n > 3/ { @c = count(); }
	EOF
	same "self-> and a string predicate" generated "'tick 9'" -s t.d
	kvars "self-> and a string predicate" 3 1
}

# faults beside self->, site links
cg_flt() {
	cg_dir
	# ... and one that faults ends its clause in the kernel, what it did
	# before kept (@s's entries), and dtrace reports the fault and fires
	# ERROR with DTrace's arguments in its place among the clauses user
	# space runs, as the interpreter does (arg2 is no address; arg0 > 1
	# faults in the body, at @k's first key)
	cat >t.d <<-'EOF'
	tr$target:::tick { self->n = self->n + 1; }
	tr$target:::tick { printf("a %d\n", arg0); }
	tr$target:::tick /copyinstr(arg2) == "x"/ { @never = count(); }
	tr$target:::tick { printf("b %d\n", arg0); }
	tr$target:::tick /arg0 > 1/ {
		@s[self->n] = sum(copyinstr(arg1) == "beta");
		@k[copyinstr(arg2) != "y", self->n] = count();
		@after = count();
	}
	tr$target:::tick { @all[self->n] = count(); }
	dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
	EOF
	same "faults at the hit beside self->" generated "'tick 4'" -s t.d
	kvars "faults at the hit beside self->" 4 1
	same_faults "faults at the hit beside self->" 6
	expect_eq "faults at the hit beside self->: 2 in the body" 2 \
		"$(grep -Ec 'invalid address \(0xfffffffffffff(830|448)\) in action #3$' flt1.txt)"
	# (the epid as the message names it: how many there are depends on the
	# sites the compiler gave trprog)
	epid=$(sed -n 's/^dtrace: error on enabled probe ID \([0-9]*\) .*invalid address (0xfffffffffffff448) in action #3$/\1/p' \
		err1.txt | tail -n 1)
	expect_eq "faults at the hit beside self->: ERROR's arguments" \
		"ERROR ${epid:-?} 3 -1 1 0xfffffffffffff448" \
		"$(grep "^ERROR ${epid:-?} " out1.txt | tail -n 1)"

	# the right side of && and || is compared only when the left does not
	# decide, as run.c evaluates it: the kernel skips it (UBPF_K_SC), so it
	# faults only where the interpreter's would
	cat >t.d <<-'EOF'
	tr$target:::tick { self->n = self->n + 1; }
	tr$target:::tick /arg0 > 1 && copyinstr(arg2) == "x"/ { @never = count(); }
	tr$target:::tick /arg0 == 0 || copyinstr(arg2) != "x"/ { @or[self->n] = count(); }
	tr$target:::tick {
		@v[self->n, arg0 < 3 && copyinstr(arg1) == "beta",
		    arg0 > 2 || copyinstr(arg1) == "gamma"] = count();
	}
	tr$target:::tick /copyinstr(arg1) == "alpha" && self->n/ { @a = count(); }
	tr$target:::tick { printf("%d\n", arg0); }
	dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
	EOF
	same "&& and || beside self->, their right sides faulting" generated \
		"'tick 6'" -s t.d
	kvars "&& and || beside self->, their right sides faulting" 5 1
	same_faults "&& and || beside self->" 9

	# a string that runs into an unreadable page faults there, at the page's
	# address, as the interpreter's read a page at a time does; 255 bytes
	# up to it are copyinstr()'s whole string, no fault (the process lives
	# on while user space reads the strings with DTRACE_CGEN=0: after its
	# ticks it fires done, whose clause prints "done", and waits for that
	# line in the output, trprog's "lines", which dtrace prints once it
	# has run every record before done's: one ring, read in order; the
	# fourth line, after ERROR's of the three ticks -- waiting for one
	# line, the process exited after the first tick's ERROR line, and
	# user space's reads of the next ticks' strings faulted at their
	# starts, "0xffe" and "0xf01")
	cat >t.d <<-'EOF'
	tr$target:::tick { self->n = self->n + 1; }
	tr$target:::tick /copyinstr(arg1) == "xy"/ { @never = count(); }
	tr$target:::tick { @z[self->n, copyinstr(arg2) == "zzz"] = count(); }
	dtrace:::ERROR { printf("ERROR %d %d %d 0x%x\n", arg1, arg2, arg4, arg5 & 0xfff); }
	tr$target:::done { printf("done\n"); }
	EOF
	same "a string that faults past its first page" generated \
		"'edge 3' done 'lines OUT 4'" -s t.d
	kvars "a string that faults past its first page" 3 1
	for g in 0 1; do
		grep 'invalid address' err$g.txt |
			sed 's/tr[0-9]*:/tr:/; s/(0x[0-9a-f]*\([0-9a-f]\{3\}\))/(0x...\1)/' \
				>flt$g.txt
	done
	expect_file_eq "a string that faults past its first page: the same errors" \
		flt0.txt flt1.txt
	expect_eq "a string that faults past its first page: at the page" 3 \
		"$(grep -c '(0x...000) in predicate$' flt1.txt)"

	# a site link's program is its event's alone and carries the event's
	# index and its process's pid (no cookie read at the hit, and pid_tgid
	# only for the record where the plan reads no pid, tid or self->): four
	# sites of tick, pair's and done's, record gates and aggregations in the
	# kernel, each hit decoded with its own event's arguments (an index
	# wrong by one site names another's), a gate reading pid; the records
	# only where a gate held, 3 + 3 ticks, 8 pairs, 1 done (a pid wrong in
	# the program leaves the process unarmed: a record every hit)
	cat >ev.d <<-'EOF'
	tr$target:::tick /arg0 % 4 == 1/ { printf("tick %d %s %d\n", arg0, copyinstr(arg1), pid == $target); }
	tr$target:::pair /arg1 > 4/ { printf("pair %s %d\n", copyinstr(arg0), arg1); }
	tr$target:::done /pid == $target/ { printf("done %d %d\n", arg0, tid == pid); }
	tr$target:::tick, tr$target:::pair { @[probename] = count(); }
	tr$target:::tick /arg0 < 3/ { @t[arg2] = sum(arg0); }
	EOF
	same "site links: each program its event's" generated \
		"'tick 12' pair 'threads 2 3' done" -s ev.d
	expect_eq "site links: records only where a gate held" 1 \
		"$(grep -c '^dtrace: BPF: .*, 15 records read$' err1.txt)"
	# links from 6.12 (the uprobe_multi pid filter is the thread group's)
	links=$(uname -r | awk -F'[.-]' '{ print ($1 > 6 || ($1 == 6 && $2 >= 12)) }')
	expect_eq "site links: taken where the kernel has them" "$links" \
		"$(grep -c '^dtrace: BPF: [0-9]* site links*, no uprobe event' err1.txt)"
}

# exited threads, BEGIN and END
cg_exit() {
	cg_dir
	# threads that exited take their self-> variables out of the kernel's
	# maps: 8 threads set one and an array's element and exit, the main
	# thread sets one and lives on
	rm -f out.txt prog.txt
	"$DTRACE" -v -q -o out.txt -n 'tr$target:::tick { self->x = 1; self->e[arg0, 2] = 1; }' \
		-n 'tr$target:::done { self->y = 1; @ = count(); }' \
		-c "./trprog 'threads 8 3' 'sleep 300' done 'sleep 20000'" \
		>prog.txt 2>err.txt &
	dpid=$!
	wait_until 300 grep -q '^ok done' prog.txt
	kill -INT "$dpid"
	wait "$dpid"
	expect_eq "self-> of exited threads: status" 0 "$?"
	expect_grep "self-> of exited threads: the live thread's kept" \
		'^dtrace: 1 self-> variable live in the kernel$' err.txt

	# nothing traced: no program, no map
	rm -f out.txt
	"$DTRACE" -v -q -o out.txt -n 'BEGIN { printf("b\n"); exit(0); }' \
		-n 'END { printf("e\n"); }' >/dev/null 2>err.txt
	expect_eq "BEGIN and END: status" 0 "$?"
	printf 'b\ne\n\n' >expected.txt
	expect_file_eq "BEGIN and END: output" expected.txt out.txt
	expect_eq "BEGIN and END: no program" 1 \
		"$(grep -c '^dtrace: BPF: no program loaded$' err.txt)"
}

bg_max=4
bg_checks aggs cg_aggs
bg_checks ids cg_ids
bg_checks vts cg_vts
bg_checks self cg_self
bg_checks spin cg_spin
bg_checks selfu cg_selfu
bg_checks strk cg_strk
bg_checks flt cg_flt
bg_checks exit cg_exit
bg_join

finish
