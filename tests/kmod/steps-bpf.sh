# SPDX-License-Identifier: MIT
#
# steps-bpf.sh - dtrace's BPF backend (dtrace-G/consumer/bpf.c) on the
# guest's kernel, Debian 12's 6.1, sourced by /init first (name order),
# before any module is loaded: the backends dtrace can choose are BPF
# programs on uprobe events, or uprobe events alone.  Covered:
#  - with no DTRACE_BACKEND, dtrace traces with the BPF backend: a BPF
#    program among its descriptors while it runs, and no line saying
#    that the backend cannot be used (dtrace says why when it falls
#    back, e.g. the verifier's verdict);
#  - tests/run-trace.sh with DTRACE_BACKEND=bpf, which makes dtrace stop
#    rather than trace on another backend, so a kernel that refuses the
#    program fails every run; 5 enable/disable cycles instead of 200
#    (TRACE_CYCLES: each is a dtrace start, about 3 s emulated);
#  - tests/run-kagg.sh (DTRACE_BACKEND=bpf): clauses aggregated in the
#    kernel, under bpf_loop(), give what user space gives; and
#    tests/run-kagg-fn.sh: stddev()'s 128-bit squares and llquantize()'s
#    straight-line buckets in the generated programs, the same;
#  - exit() decided in a kernel probe's program (syscall, profile):
#    the programs load, the status is the exit()'s, the counts exact;
#  - speculating clauses at kernel probes (syscall on a call's
#    tracepoint and on the raw ones, profile), their values computed
#    there into the record's out area: the programs load, the values
#    are the ones at the probe;
#  - plain printf() clauses at kernel probes (the same three, and a
#    self-> string kept in the kernel at write(2)), their values
#    computed into the same area: the same;
#  - system calls on the raw tracepoints (DTRACE_SYSCALL_RAW=1): the
#    dispatchers' tail calls and the raw tracepoint programs they call
#    load, and give the counts, in the kernel;
#  - tests/run-kagg-tick.sh (DTRACE_BACKEND=bpf): printa(), clear() and
#    trunc() at tick-N, the kernel's aggregations folded in at each
#    firing (its barrier a map of maps' update), per interval what user
#    space gives;
#  - tests/run-kagg-ival.sh (DTRACE_BACKEND=bpf): the interval report
#    beside self->, the kernel's aggregations keyed by interval (the
#    hit's division in the prologue, the key's pad word written apart),
#    flat out and per interval what user space gives (its library named
#    like the tick is not built here: no compiler);
#  - tests/run-kagg-args.sh (DTRACE_BACKEND=bpf): integer args[N] typed
#    per probe in the generated programs (UBPF_K_NORM's narrowing of
#    the argument), what user space gives; -v when a plan falls back;
#  - tests/run-cgen-spec.sh (DTRACE_BACKEND=bpf): speculations beside
#    clauses the generated programs run, on eight threads too, what
#    user space and the generic program give;
#  - the proc provider's programs on raw tracepoints, generated and
#    generic: create, exec-success and exit of a forking -c command;
#  - the kernel providers' programs (syscall, profile) and ustack()'s
#    stack copy load and give results (at profile-N and a system call
#    in generated programs), and so does the unwinder that
#    walks the stack in the kernel (bpf/unw.bpf.c), at a USDT probe and at profile-N
#    (tests/data/kstack/kstk.c's main -> outer -> inner, unwound by its
#    CFI); so does copyin()'s copy at the hit (the program's memmask
#    loop), and copyoutstr()'s and copyout()'s writes at the hit
#    (usdt_hit_w: a literal, bytes read at another argument), its fault
#    an ERROR;
#  - a self-> string kept in the kernel, compared with a literal and
#    measured by strlen() there (cgen_svar.c's vseq(), vslen()), and a
#    this-> string printed (cgen_out.c's sstr()): the programs load and
#    the clauses run in the kernel;
#  - self-> and this-> strings stored from a literal and from one
#    another (cgen_out.c's cgen_out_lit(), smov()): the programs load
#    and the clauses run in the kernel; two self-> strings compared
#    (cgen_svar.c's vveq()), the same; a this-> string compared and
#    measured (svar_at(): its bytes in cgbuf), the same;
#  - a thread-local array of timestamps (self->s[k] = timestamp, read
#    in a predicate and timestamp - self->s[k]): the programs load,
#    the clauses run in the kernel, the counts exact;
#  - printing clauses past predicates that fail and hold, the out area
#    started by the first that prints (cgen_out.c's cgen_out_need()),
#    a this-> string read before any store of the firing: the program
#    loads and the clauses run in the kernel;
#  - predicates that fail, the hit ending at the exit where nothing
#    before could need the record: the later clauses run, a gate's
#    record is written, the plan runs for the hits (the records read:
#    the program with cgarm1 loaded directly at the cookie's index
#    verified);
#  - string variables as keys short (kaggs_w) and long (kaggs_v)
#    beside a printing clause's argument predicate: the program loads,
#    the sums exact;
#  - two string variables as one statement's keys at strsize 256 (a
#    552-byte kaggs_v key in cgbuf's key room): the map made, the
#    program loads, the sums exact;
#  - execname and literals as keys (cgen_svar.c's ckey(), lkey():
#    kaggs_v) and execname compared with literals and a self-> string
#    (ccmp(), cvcmp()): the programs load, the clauses run in the
#    kernel, the counts exact;
#  - execname compared with copyinstr(arg0) and args[0] (cgen_svar.c's
#    cacmp()), a ?: of execname and a literal as a key (mkey()) and of
#    copyinstr(arg0) and a literal or another copyinstr() (smkey()), errno
#    at a system call's return as a key
#    (kplan_expr.c's kp_errno()) and an exit() decided by errno there:
#    the programs load, the clauses run in the kernel, the status is
#    the exit()'s;
#  - a self-> and a this-> string compared with copyinstr(arg0)
#    (cgen_svar.c's vacmp(): a fault site's, one without) and execname
#    or copyinstr(arg0) beside copyinstr(arg0) as a key (cwkey(),
#    skey2()): the programs load, the clauses run in the kernel; so
#    do string variables ordered against copyinstr(arg0) and literals
#    (vacmp_ord(), vseq_ord()) and three string keys, and copyinstr()
#    ordered against literals (seq_ord(), with fault sites and without)
#    and a literal longer than strsize - 1;
#  - opensnoop's idiom, printf() of copyinstr(self->p) then
#    self->p = 0 in one clause (cgen_out.c's ostr() with its jump to
#    the clause's end on a fault): the programs load, the clause runs
#    in the kernel;
#  - vtimestamp's programs (usdt_hit_vt, the sched_switch one) load,
#    and a thread's 500 ms sleep between two hits adds less than half
#    of timestamp's delta to its vtimestamp;
#  - a -c command held at its dlopen() (dlhold.c) by the per-thread
#    perf events (no uprobe_multi link before 6.12): the plugin's hits
#    right after dlopen() returns are all counted, and nothing is said.
#  - tests/run-cgen-preempt.sh (DTRACE_BACKEND=bpf) with the kernel
#    switched to preempt=full (bp_preempt()): a system call's program
#    run halfway through another thread's preempted uprobe program
#    finds cgbuf (kvm_buf) taken and drops, every line whole, the
#    counts exact; the run must see such a drop (14 to 50 s).
# Both scripts run on the programs tests/kmod/run.sh built
# (TRACE_PROGS=/kt), from /kt/src/tests, with busybox's tools.

if [ "${KMOD_HAVE_BPF:-no}" != yes ]; then
	skip_test "BPF backend steps" "dtrace built without the BPF backend"
	return 0
fi

# bp_progs PID: how many BPF programs PID holds open
bp_progs() {
	grep -l '^prog_tag' /proc/"$1"/fdinfo/* 2>/dev/null | wc -l
}

# The default choice: BPF, silently
rm -f bd.txt bd.prog
dtrace -q -o bd.txt -n 'tr$target:::tick { printf("tick %d\n", arg0); }' \
	-c "/kt/trprog 'tick 2' 'sleep 3000'" >bd.prog 2>bd.err </dev/null &
bp_dt=$!
wait_until 600 grep -q '^ok tick' bd.prog 2>/dev/null ||
	diag "dtrace: $(cat bd.err)"
bp_n=$(bp_progs "$bp_dt")
check "no DTRACE_BACKEND: dtrace traces with a BPF program" \
	test "${bp_n:-0}" -gt 0
wait "$bp_dt"
expect_eq "no DTRACE_BACKEND: status" 0 "$?"
expect_eq "no DTRACE_BACKEND: the BPF backend was not refused" "" \
	"$(cat bd.err)"
expect_eq "no DTRACE_BACKEND: the hits" "tick 0 tick 1" \
	"$(grep tick bd.txt | paste -sd' ' -)"

# bp_test NAME VAR=VALUE...: tests/NAME.sh in the guest; ok when it
# exits with 0 (a skip is not ok: everything it needs is here)
bp_test() {
	bp_name=$1
	shift
	bp_t0=$(date +%s)
	env top_srcdir=/kt/src DTRACE=/kt/dtrace TRACE_PROGS=/kt HAVE_BPF=yes \
		DTRACE_BACKEND=bpf "$@" sh "/kt/src/tests/$bp_name.sh" \
		>"$bp_name.log" 2>&1 </dev/null
	bp_status=$?
	diag "$bp_name.sh took $(($(date +%s) - bp_t0)) s"
	if [ "$bp_status" -eq 0 ]; then
		ok "$bp_name.sh, DTRACE_BACKEND=bpf: $(tail -n 1 "$bp_name.log")"
	else
		not_ok "$bp_name.sh, DTRACE_BACKEND=bpf: exit status $bp_status"
		diag "$(grep -v '^#' "$bp_name.log" | tail -n 60)"
	fi
}

# bp_preempt: tests/run-cgen-preempt.sh on the kernel switched to
# preempt=full (6.1 has PREEMPT_DYNAMIC: debugfs's sched/preempt takes
# the model; Debian boots voluntary, put back after), where a uprobe's
# program runs with migration disabled but not preemption
# (bpf_prog_run_array_sleepable()): two threads on the one CPU, the
# other's system call's program run halfway through a uprobe program,
# cgbuf's owner word taken.  PREEMPT_NEST=1: a drop must be said, or no
# program nested (22 to 90 drops a run here, none under voluntary).
bp_preempt() {
	bp_pf=/sys/kernel/debug/sched/preempt
	if ! [ -w "$bp_pf" ]; then
		skip_test "run-cgen-preempt.sh under preempt=full" \
			"no $bp_pf (no PREEMPT_DYNAMIC, or no debugfs)"
		return 0
	fi
	bp_pm=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$bp_pf")
	echo full >"$bp_pf"
	if ! expect_eq "preempt=full (was ${bp_pm:-unknown})" full \
		"$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$bp_pf")"; then
		echo "$bp_pm" >"$bp_pf"
		return 0
	fi
	bp_test run-cgen-preempt PREEMPT_NEST=1 PREEMPT_N=3000 PREEMPT_T=2
	diag "$(grep -e ' hits, ' -e ' involuntary ' run-cgen-preempt.log)"
	echo "$bp_pm" >"$bp_pf"
	expect_eq "the preemption model put back" "$bp_pm" \
		"$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$bp_pf")"
}
if [ "${KMOD_BPF_ONLY:-}" = preempt ]; then
	bp_preempt
	return 0
fi
if [ "${KMOD_BPF_ONLY:-}" = spec ]; then
	bp_test run-cgen-spec
	return 0
fi

# Asked for by name, the backend loads (or the scripts would wait out
# their timeouts on every run: they are not run then)
if DTRACE_BACKEND=bpf dtrace -q -n 'BEGIN { exit(0); }' >bl.out 2>bl.err \
	</dev/null; then
	ok "DTRACE_BACKEND=bpf: the program loads"
	bp_test run-trace TRACE_CYCLES=5 TRACE_EMULATED=1
	bp_test run-kagg TRACE_EMULATED=1
	bp_test run-kagg-fn
	bp_test run-kagg-tick
	bp_test run-kagg-ival
	bp_test run-kagg-args
	bp_test run-cgen-spec
else
	not_ok "DTRACE_BACKEND=bpf: the program loads"
	diag "$(grep '^dtrace: ' bl.err)"
	# the verifier's log ends with the instructions it refused
	diag "$(grep -v '^dtrace: ' bl.err | tail -n 60)"
	not_ok "run-trace.sh, DTRACE_BACKEND=bpf # not run: no BPF backend"
	not_ok "run-kagg.sh, DTRACE_BACKEND=bpf # not run: no BPF backend"
	not_ok "run-kagg-fn.sh, DTRACE_BACKEND=bpf # not run: no BPF backend"
	not_ok "run-kagg-tick.sh, DTRACE_BACKEND=bpf # not run: no BPF backend"
	not_ok "run-kagg-ival.sh, DTRACE_BACKEND=bpf # not run: no BPF backend"
	not_ok "run-kagg-args.sh, DTRACE_BACKEND=bpf # not run: no BPF backend"
	not_ok "run-cgen-spec.sh, DTRACE_BACKEND=bpf # not run: no BPF backend"
fi
# bp_kstr WHAT PREFIX EXPECTED N -n ...: trprog's msg probe traced with
# string variables the generated program keeps: the lines starting with
# PREFIX, joined, are EXPECTED, and -v counts N clauses printing in the
# kernel (one the verifier refused would not be)
bp_kstr() {
	bk_what=$1 bk_pre=$2 bk_exp=$3 bk_n=$4
	shift 4
	rm -f bk.txt # -o appends
	DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt "$@" \
		-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
	expect_eq "$bk_what in the kernel: the output" \
		"$bk_exp" "$(grep "^$bk_pre" bk.txt | paste -sd' ' -)"
	bk_c=clauses
	[ "$bk_n" = 1 ] && bk_c=clause
	check "$bk_what in the kernel: -v" grep -q \
		"^dtrace: $bk_n $bk_c printing values computed in the kernel\$" \
		bk.err
	grep -q 'printing values computed' bk.err || diag "$(tail -n 40 bk.err)"
}
# self->s compared and measured, this->t printed
bp_kstr "string variables compared, measured, printed" '[st] ' \
	"s 7 5 t hello" 2 \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); }' \
	-n 'tr$target:::msg /self->s == "hello"/ { printf("s %d %d\n", arg1, strlen(self->s)); }' \
	-n 'tr$target:::msg { this->t = copyinstr(arg0); printf("t %s\n", this->t); }'
# opensnoop's idiom: the copy's fault would end the clause before its
# clear (OSTR's jump: cgen_out.c's ostr())
bp_kstr "a copy then a store in one clause" 'p ' "p hello 7" 1 \
	-n 'tr$target:::msg { self->p = arg0; self->n = arg1; }' \
	-n 'tr$target:::msg /self->p/ { printf("p %s %d\n", copyinstr(self->p), self->n); self->p = 0; }'
# string variables stored from a literal and from one another (SLIT,
# SMOV: cgen_out.c's cgen_out_lit(), smov()), self-> and this->
bp_kstr "string variables stored from a literal and one another" 'm ' \
	"m lit 1" 1 \
	-n 'tr$target:::msg { self->u = "lit"; this->x = self->u; self->m = this->x; }' \
	-n 'tr$target:::msg { printf("m %s %d\n", self->m, self->m == "lit"); }'
# two self-> strings compared (VVEQ: cgen_svar.c's vveq(), unrolled
# for strsize's words)
bp_kstr "two string variables compared" 'v ' "v 1 0" 1 \
	-n 'tr$target:::msg { self->a = copyinstr(arg0); self->b = "hello"; }' \
	-n 'tr$target:::msg { printf("v %d %d\n", self->a == self->b, self->b != self->a); }'
# a this-> string compared and measured (VSEQ, VSLEN of its bytes in
# cgbuf: cgen_svar.c's svar_at())
bp_kstr "a this-> string compared and measured" 't ' "t 5 0" 1 \
	-n 'tr$target:::msg { this->t = copyinstr(arg0); }' \
	-n 'tr$target:::msg /this->t == "hello"/ { printf("t %d %d\n", strlen(this->t), this->t != "hello"); }'
# a thread-local array of timestamps (kplan_vars.c's KV_ELEMS): the
# latency idiom's start and done, in the kernel, the counts exact
rm -f ba.txt # -o appends
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o ba.txt \
	-n 'tr$target:::tick /arg0 % 2 == 0/ { self->s[arg0 / 2] = timestamp; }' \
	-n 'tr$target:::tick /arg0 % 2 == 1 && self->s[arg0 / 2]/ { @n = count(); @q = sum((timestamp - self->s[arg0 / 2]) / 100000000000); self->s[arg0 / 2] = 0; }' \
	-n 'END { printa("n %@d %@d\n", @n, @q); }' \
	-c "/kt/trprog 'tick 10'" >ba.prog 2>ba.err </dev/null
expect_eq "an array of timestamps in the kernel: the output" "n 5 0" \
	"$(grep '^n ' ba.txt)"
check "an array of timestamps in the kernel: -v" grep -q \
	'^dtrace: 2 clauses aggregated in the kernel$' ba.err
grep -q 'aggregated in the kernel' ba.err || diag "$(tail -n 40 ba.err)"
# printing clauses past predicates that fail and hold: the out area
# started by the first clause that writes into it, once a hit
# (cgen_out.c's cgen_out_need(): S_OBUF a register's 0 in the
# prologue, which this verifier tracks, not an immediate's), a this->
# string read before any store of the firing through S_OBUF still 0
bp_kstr "the out area started past the predicates" 'o ' \
	"o e 0 o 7 o hello 7 o h 5" 5 \
	-n 'tr$target:::msg /this->t == ""/ { printf("o e %d\n", strlen(this->t)); }' \
	-n 'tr$target:::msg /arg1 == 6/ { printf("x %d\n", arg1); }' \
	-n 'tr$target:::msg /arg1 == 7/ { printf("o %d\n", arg1); }' \
	-n 'tr$target:::msg /arg1 > 6/ { this->t = copyinstr(arg0); printf("o %s %d\n", this->t, arg1); }' \
	-n 'tr$target:::msg /this->t == "hello"/ { printf("o h %d\n", strlen(this->t)); }'
# predicates that fail, the first with nothing before it that could
# need the record: the hit ends at the exit (cgen_plan.c's e->xpj); the
# clauses after it still run, a gate's record is written when a later
# gate fails, and the plan ran for the hits (2 records read of 20: the
# program, cgarm1's u32 loaded directly, BPF_PSEUDO_MAP_VALUE, at the
# event's index from the attach cookie, verified on this kernel, which
# has no uprobe_multi link)
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::tick /arg0 > 100/ { @big = count(); }' \
	-n 'tr$target:::tick { @all = count(); }' \
	-n 'tr$target:::tick /arg0 == 2/ { printf("p %d %d\n", arg0, curpsinfo->pr_ppid != -1); }' \
	-n 'tr$target:::tick /arg0 == 3/ { printf("p %d %d\n", arg0, curpsinfo->pr_ppid != -1); }' \
	-n 'END { printa("p all %@d\n", @all); }' \
	-c "/kt/trprog 'tick 20'" >bk.prog 2>bk.err </dev/null
expect_eq "failing predicates in the kernel: the output" \
	"p 2 1 p 3 1 p all 20" "$(grep '^p ' bk.txt | paste -sd' ' -)"
check "failing predicates in the kernel: -v" grep -q \
	'^dtrace: BPF: .*, 2 records read$' bk.err
grep -q 'records read' bk.err || diag "$(tail -n 40 bk.err)"
# string variables as aggregation keys (VKEY: cgen_svar.c's vkey(),
# the key built in cgbuf, kaggs_v), self-> and this->
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); this->t = self->s; @k[self->s, arg1] = count(); @t[this->t] = sum(arg1); }' \
	-n 'END { printa("k %s %d %@d\n", @k); printa("t %s %@d\n", @t); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "string variables as keys in the kernel: the output" \
	"k hello 7 1 t hello 7" "$(grep '^[kt] ' bk.txt | paste -sd' ' -)"
check "string variables as keys in the kernel: -v" grep -q \
	'^dtrace: 1 clause aggregated in the kernel$' bk.err
grep -q 'aggregated in the kernel' bk.err || diag "$(tail -n 40 bk.err)"
# string variables as keys short and long: "hello" ends within
# kaggs_w's 32 bytes, 40 a's do not (kaggs_v): the program with both
# maps and the branch on the key's byte 31 (cgen_agg.c's agg_at())
# verified, each key summed on its own; a printing clause whose
# predicate compares an argument (cgen.c's pretest where a site link
# names the event; this kernel's cookie: the plan's test alone)
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); @k[self->s] = sum(arg1); self->l = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; @k[self->l] = sum(arg1 + 1); }' \
	-n 'tr$target:::tick /arg0 == 2/ { printf("q %d\n", arg0); }' \
	-n 'END { printa("k %s %@d\n", @k); }' \
	-c "/kt/trprog msg 'tick 5'" >bk.prog 2>bk.err </dev/null
expect_eq "short and long string keys in the kernel: the output" \
	"q 2 k hello 7 k aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 8" \
	"$(grep '^[kq] ' bk.txt | paste -sd' ' -)"
check "short and long string keys in the kernel: -v" grep -q \
	'^dtrace: 1 clause aggregated in the kernel$' bk.err
grep -q 'aggregated in the kernel' bk.err || diag "$(tail -n 40 bk.err)"
# two string variables as one statement's keys at strsize 256: two
# rooms of 256 bytes side by side, a kaggs_v key of 552 bytes (past
# MAX_BPF_STACK, which held a hash map's key_size until Linux 5.11) built
# in cgbuf's key room past its owner word (cgen.c's cg_room_off()): the
# map made, the program verified, each pair summed on its own
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); self->t = "tail"; @p[self->s, self->t] = sum(arg1); @p[self->t, self->s] = sum(arg1 + 1); }' \
	-n 'END { printa("p %s %s %@d\n", @p); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "two string variables as keys at strsize 256: the output" \
	"p hello tail 7 p tail hello 8" "$(grep '^p ' bk.txt | paste -sd' ' -)"
check "two string variables as keys at strsize 256: -v" grep -q \
	'^dtrace: 1 clause aggregated in the kernel$' bk.err
grep -q 'aggregated in the kernel' bk.err || diag "$(tail -n 40 bk.err)"
# string variables ordered (VVCMP: cgen_svar.c's vvcmp(), two
# zero-padded copies in cgbuf compared a word at a time), this-> with
# this-> and self->
bp_kstr "string variables ordered" 'o ' "o 1 0 1 1" 1 \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); this->t = "hello"; this->u = "help"; }' \
	-n 'tr$target:::msg { printf("o %d %d %d %d\n", this->t < this->u, self->s > this->u, self->s == this->t, this->u >= self->s); }'
# execname and literals (kplan_str.c's "execname and literals"): execname
# and a ?: of literals and a literal as keys (CKEY, LKEY: kaggs_v),
# execname compared with literals (CCMP) and a self-> string (CVCMP)
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { @e[execname, arg1] = count(); @l[arg1 > 5 ? "big" : "small"] = count(); @x["x"] = sum(arg1); }' \
	-n 'tr$target:::msg /execname == "trprog" && "zz" > execname/ { @p = count(); }' \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); }' \
	-n 'tr$target:::msg /execname != self->s/ { @v = count(); }' \
	-n 'END { printa("e %s %d %@d\n", @e); printa("l %s %@d\n", @l); printa("x %s %@d\n", @x); printa("p %@d\n", @p); printa("v %@d\n", @v); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "execname and literals in the kernel: the output" \
	"e trprog 7 1 l big 1 x x 7 p 1 v 1" \
	"$(grep '^[elxpv] ' bk.txt | paste -sd' ' -)"
check "execname and literals in the kernel: -v" grep -q \
	'^dtrace: 4 clauses aggregated in the kernel$' bk.err
grep -q 'aggregated in the kernel' bk.err || diag "$(tail -n 40 bk.err)"
# execname against the argument's string (CACMP: "trprog" against
# "hello"), a ?: of execname or copyinstr(arg0) and a literal as a key
# (MKEY, SMKEY), errno at write(2)'s return as a key and deciding an
# exit() at the hit (the first write's return: 1 counted)
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg /execname != copyinstr(arg0)/ { @c = count(); }' \
	-n 'tr$target:::msg /execname > args[0] && copyinstr(arg0) < execname/ { @d = count(); }' \
	-n 'tr$target:::msg { @m[arg1 > 5 ? execname : "small"] = count(); @n[arg1 > 7 ? execname : "small"] = count(); @s[arg1 > 5 ? copyinstr(arg0) : "small"] = count(); @o[arg1 > 7 ? copyinstr(arg0) : "small"] = count(); @p[arg1 > 5 ? copyinstr(arg0) : copyinstr(arg0)] = count(); }' \
	-n 'syscall::write:return /pid == $target/ { @w[errno] = count(); }' \
	-n 'syscall::write:return /pid == $target && errno == 0/ { exit(7); }' \
	-n 'END { printa("c %@d\n", @c); printa("d %@d\n", @d); printa("m %s %@d\n", @m); printa("n %s %@d\n", @n); printa("s %s %@d\n", @s); printa("o %s %@d\n", @o); printa("p %s %@d\n", @p); printa("w %d %@d\n", @w); }' \
	-c "/kt/trprog msg 'tick 1'" >bk.prog 2>bk.err </dev/null
expect_eq "execname against copyinstr(), errno: status" 7 "$?"
expect_eq "execname against copyinstr(), errno: the output" \
	"c 1 d 1 m trprog 1 n small 1 s hello 1 o small 1 p hello 1 w 0 1" \
	"$(grep '^[cdmnsopw] ' bk.txt | paste -sd' ' -)"
check "execname against copyinstr(), errno: -v" grep -q \
	'^dtrace: 4 clauses aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
# a self-> string against the argument's string (VACMP: a fault site,
# the copy's last byte read again, the compare unrolled for strsize's
# words), a this-> one without fault sites, and execname or another
# copyinstr() beside copyinstr(arg0) in one kaggs_s key (CWKEY; SKEY2,
# the second string's copy at a variable offset)
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); }' \
	-n 'tr$target:::msg /self->s == copyinstr(arg0)/ { @a = count(); }' \
	-n 'tr$target:::msg { @b[copyinstr(arg0) != self->s] = count(); }' \
	-n 'END { printa("a %@d\n", @a); printa("b %d %@d\n", @b); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "a string variable against copyinstr(): the output" "a 1 b 0 1" \
	"$(grep '^[ab] ' bk.txt | paste -sd' ' -)"
check "a string variable against copyinstr(): -v" grep -q \
	'^dtrace: 3 clauses aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { this->t = copyinstr(arg0); }' \
	-n 'tr$target:::msg /this->t == copyinstr(arg0)/ { @c[execname, copyinstr(arg0)] = count(); }' \
	-n 'tr$target:::msg { @d[copyinstr(arg0), arg1, copyinstr(arg0)] = count(); }' \
	-n 'END { printa("c %s %s %@d\n", @c); printa("d %s %d %s %@d\n", @d); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "this-> against copyinstr(), execname beside it: the output" \
	"c trprog hello 1 d hello 7 hello 1" \
	"$(grep '^[cd] ' bk.txt | paste -sd' ' -)"
check "this-> against copyinstr(), execname beside it: -v" grep -q \
	'^dtrace: 3 clauses aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
# string variables ordered against copyinstr(arg0) (VACMP's order:
# cgen_svar.c's vacmp_ord(), a fault site's with self->, one without
# beside a this-> == that seq_stack() leaves in cgbuf) and against
# literals (VSEQ's: vseq_ord()), and three string keys (CWKEY and
# SKEY2 in one kaggs_s key)
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); }' \
	-n 'tr$target:::msg /self->s <= copyinstr(arg0)/ { @a = count(); }' \
	-n 'tr$target:::msg { @b[self->s < "help", "hello" >= self->s, copyinstr(arg0) > self->s] = count(); }' \
	-n 'END { printa("a %@d\n", @a); printa("b %d %d %d %@d\n", @b); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "string variables ordered against copyinstr(): the output" \
	"a 1 b 1 1 0 1" "$(grep '^[ab] ' bk.txt | paste -sd' ' -)"
check "string variables ordered against copyinstr(): -v" grep -q \
	'^dtrace: 3 clauses aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { this->t = copyinstr(arg0); }' \
	-n 'tr$target:::msg /this->t > copyinstr(arg0) || copyinstr(arg0) <= this->t/ { @c = count(); }' \
	-n 'tr$target:::msg /this->t == copyinstr(arg0)/ { @d = count(); }' \
	-n 'END { printa("c %@d\n", @c); printa("d %@d\n", @d); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "this-> ordered against copyinstr(): the output" "c 1 d 1" \
	"$(grep '^[cd] ' bk.txt | paste -sd' ' -)"
check "this-> ordered against copyinstr(): -v" grep -q \
	'^dtrace: 3 clauses aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg { @e[execname, copyinstr(arg0), arg1, copyinstr(arg0)] = count(); }' \
	-n 'END { printa("e %s %s %d %s %@d\n", @e); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "three string keys: the output" "e trprog hello 7 hello 1" \
	"$(grep '^e ' bk.txt | paste -sd' ' -)"
check "three string keys: -v" grep -q \
	'^dtrace: 1 clause aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
# copyinstr(arg0) and args[0] ordered against literals with no
# variable (SEQ with an order: cgen_svar.c's seq_ord(), the copy cut
# and zero-padded in cgbuf), without fault sites and with them (a
# self-> variable kept: the last byte read again; != of a literal the
# prefix test cannot tell, compared whole there too), and a self-> string
# against a literal longer than strsize - 1 (vseq_ord()'s word past
# the room)
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'tr$target:::msg /copyinstr(arg0) < "help"/ { @a = count(); }' \
	-n 'tr$target:::msg { @b[args[0] >= "hello", "hellp" > copyinstr(arg0)] = count(); }' \
	-n 'END { printa("a %@d\n", @a); printa("b %d %d %@d\n", @b); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "copyinstr() ordered against literals: the output" "a 1 b 1 1 1" \
	"$(grep '^[ab] ' bk.txt | paste -sd' ' -)"
check "copyinstr() ordered against literals: -v" grep -q \
	'^dtrace: 2 clauses aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt -x strsize=8 \
	-n 'tr$target:::msg { self->s = copyinstr(arg0); self->n = arg1; }' \
	-n 'tr$target:::msg /copyinstr(arg0) <= "hello"/ { @c = sum(self->n); }' \
	-n 'tr$target:::msg { @d[self->s < "hello world", copyinstr(arg0) > "hellO, longer", copyinstr(arg0) != "hello!"] = count(); }' \
	-n 'END { printa("c %@d\n", @c); printa("d %d %d %d %@d\n", @d); }' \
	-c "/kt/trprog msg" >bk.prog 2>bk.err </dev/null
expect_eq "ordered against literals, fault sites: the output" \
	"c 7 d 1 1 1 1" "$(grep '^[cd] ' bk.txt | paste -sd' ' -)"
check "ordered against literals, fault sites: -v" grep -q \
	'^dtrace: 3 clauses aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
# The other BPF programs dtrace loads, on this kernel's verifier: the
# kernel providers' (syscall, profile; consumer/kprov.c) and the user
# stack copy of ustack() in the USDT program.  trprog writes one line
# per command (line-buffered stdout): three write(2) calls.
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -q -o bk.txt \
	-n 'syscall::write:entry /pid == $target/ { @w = count(); }' \
	-n 'END { printa("writes %@d\n", @w); }' \
	-c "/kt/trprog 'tick 1' msg pair" >bk.prog 2>bk.err </dev/null
expect_eq "syscall::write:entry counts the target's writes" "writes 3" \
	"$(grep writes bk.txt)"
[ -s bk.err ] && diag "$(tail -n 40 bk.err)"
# The proc provider on raw tracepoints (kprov_proc.c): 6.1's
# sched_process_exit passes the task alone (no group_dead: the exit
# is the thread whose id is the process's), task_newtask the task and
# its clone flags (the child's pid read from task_struct); generated
# and generic programs (DTRACE_CGEN=0).  busybox sh forks for a
# command followed by another.
for bp_cg in 1 0; do
	rm -f bk.txt
	DTRACE_BACKEND=bpf DTRACE_CGEN=$bp_cg timeout 120 dtrace -q -o bk.txt \
		-n 'proc:::create /pid == $target/ { printf("pc create %d\n", arg0 > 0); }' \
		-n 'proc:::exec-success /progenyof($target)/ { printf("pc exec %s\n", execname); }' \
		-n 'proc:::exit /progenyof($target)/ { printf("pc exit %s %d\n", pid == $target ? "target" : execname, arg0); }' \
		-c "sh -c '/kt/trprog msg; true'" >bk.prog 2>bk.err </dev/null
	expect_eq "proc on raw tracepoints (cgen $bp_cg): the events" \
		"pc create 1 pc exec trprog pc exit trprog 1 pc exit target 1" \
		"$(grep '^pc ' bk.txt | paste -sd' ' -)"
	[ -s bk.err ] && diag "$(tail -n 40 bk.err)"
done
# exit() decided in a kernel probe's program (kplan_exit.c's "exit() at a
# traced probe"): the exit test and cmpxchg at a tracepoint and at a
# perf event load on this verifier, and the count runs in the kernel
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'syscall::write:entry /pid == $target/ { @w = count(); }' \
	-n 'syscall::exit_group:entry /pid == $target/ { exit(7); }' \
	-n 'END { printa("writes %@d\n", @w); }' \
	-c "/kt/trprog 'tick 1' msg pair" >bk.prog 2>bk.err </dev/null
expect_eq "exit() at syscall::exit_group:entry: status" 7 "$?"
expect_eq "exit() at syscall::exit_group:entry: the writes before" \
	"writes 3" "$(grep writes bk.txt)"
check "exit() at syscall::exit_group:entry: decided in the kernel" \
	grep -q '^dtrace: 1 clause aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
# the same calls on the raw tracepoints (DTRACE_SYSCALL_RAW=1, as a
# glob such as syscall:::entry takes them): each direction's dispatcher
# tail-calls the call's generated program (kprov_syscall.c); the
# arguments read from pt_regs, self-> between entry and return, both
# clauses in the kernel
rm -f bk.txt
DTRACE_BACKEND=bpf DTRACE_SYSCALL_RAW=1 timeout 120 dtrace -v -q -o bk.txt \
	-n 'syscall::write:entry /pid == $target && arg0 == 1/ { self->in = arg2; }' \
	-n 'syscall::write:return /self->in/ { @w[arg0 == self->in] = count(); self->in = 0; }' \
	-n 'END { printa("raw writes %d %@d\n", @w); }' \
	-c "/kt/trprog 'tick 1' msg pair" >bk.prog 2>bk.err </dev/null
expect_eq "the raw tracepoints' generated programs: the writes" \
	"raw writes 1 3" "$(grep 'raw writes' bk.txt)"
check "the raw tracepoints' generated programs: in the kernel" \
	grep -q '^dtrace: 2 clauses aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
check "the raw tracepoints' generated programs: generated" \
	grep -q '^dtrace: BPF: 4 generated programs, ' bk.err ||
	diag "$(tail -n 40 bk.err)"
# ... a glob over every call: the calls' programs shared (the probe's
# identity read at the hit from the identity map, cgen_kprov.c's
# kp_ident()), one per direction with the dispatchers, probefunc and
# probename keys in the kernel
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'syscall:::entry /pid == $target/ { self->in = 1; @[probefunc, probename] = count(); }' \
	-n 'syscall:::return /self->in/ { @[probefunc, probename] = count(); self->in = 0; }' \
	-n 'END { printa("glob %s %s %@d\n", @); }' \
	-c "/kt/trprog 'tick 1' msg pair" >bk.prog 2>bk.err </dev/null
expect_eq "the raw tracepoints' shared programs: the writes" \
	"glob write entry 3 glob write return 3" \
	"$(grep '^glob write ' bk.txt | paste -sd' ' -)"
check "the raw tracepoints' shared programs: one per direction" \
	grep -q '^dtrace: BPF: 4 generated programs, ' bk.err ||
	diag "$(tail -n 40 bk.err)"
# Speculating clauses at kernel probes: at write(2)'s return the buffer
# taken at its entry, on the call's tracepoint, the buffers' words the
# kernel's (step 5: kplan_spec.c, the held records in the area after a
# kernel probe's arguments); their values computed in the program at
# the probe into the record's out area, the buffers user space's
# (kplan_spec.c's "Speculations"): a glob's programs shared on the raw
# tracepoints (BEGIN takes the ID), and at profile-997 with its
# predicate: the programs load on this verifier
rm -f bs.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bs.txt \
	-n 'syscall::write:entry /pid == $target && arg0 == 1/ { self->p = arg1; }' \
	-n 'syscall::write:entry /pid == $target && arg0 == 1/ { self->s = speculation(); }' \
	-n 'syscall::write:return /self->s/ { speculate(self->s); printf("spec %d %s", (int)arg0 > 0, copyinstr(self->p)); }' \
	-n 'syscall::write:return /self->s/ { commit(self->s); self->s = 0; }' \
	-c "/kt/trprog 'tick 1' msg pair" >bs.prog 2>bs.err </dev/null
expect_eq "speculating at write(2)'s return: the buffers at the probe" \
	"spec 1 ok tick spec 1 ok msg spec 1 ok pair" \
	"$(grep -o 'spec 1 ok [a-z]*' bs.txt | paste -sd' ' -)"
check "speculating at write(2)'s return: the buffers in the kernel" \
	grep -q '^dtrace: 3 clauses with speculations run in the kernel' \
	bs.err || diag "$(tail -n 40 bs.err)"
rm -f bs.txt
DTRACE_BACKEND=bpf DTRACE_SYSCALL_RAW=1 timeout 120 dtrace -v -q -o bs.txt \
	-n 'BEGIN { s = speculation(); }' \
	-n 'syscall::write*:entry /pid == $target/ { speculate(s); printf("globspec %d %d\n", arg0, arg2 > 0); }' \
	-n 'END { commit(s); }' \
	-c "/kt/trprog 'tick 1' msg pair" >bs.prog 2>bs.err </dev/null
expect_eq "speculating on the raw tracepoints: the writes" \
	"globspec 1 1 globspec 1 1 globspec 1 1" \
	"$(grep '^globspec' bs.txt | paste -sd' ' -)"
check "speculating on the raw tracepoints: values computed in the kernel" \
	grep -q '^dtrace: 1 clause with speculations printing values computed in the kernel' \
	bs.err || diag "$(tail -n 40 bs.err)"
rm -f bs.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bs.txt \
	-n 'BEGIN { s = speculation(); }' \
	-n 'profile-997 /arg0 != 0 || arg1 != 0/ { speculate(s); printf("sample %d\n", arg0 != 0 || arg1 != 0); }' \
	-n 'profile-997 /arg0 != 0 || arg1 != 0/ { exit(0); }' \
	-n 'END { commit(s); }' >bs.prog 2>bs.err </dev/null
expect_eq "speculating at profile-997: the exiting sample" "sample 1" \
	"$(grep '^sample' bs.txt)"
check "speculating at profile-997: predicate computed in the kernel" \
	grep -q '^dtrace: 1 of them with predicates computed in the kernel' \
	bs.err || diag "$(tail -n 40 bs.err)"
# Plain printf() clauses at kernel probes, their values computed in the
# program at the probe into the same area (kplan_out.c's kp_out_ok()):
# write(2)'s return, on the call's tracepoint, of the buffer kept at its
# entry; a glob's programs shared on the raw tracepoints; profile-997:
# the programs load on this verifier
rm -f bo.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bo.txt \
	-n 'syscall::write:entry /pid == $target && arg0 == 1/ { self->p = arg1; }' \
	-n 'syscall::write:return /self->p/ { printf("plain %d %s", (int)arg0 > 0, copyinstr(self->p)); }' \
	-n 'syscall::write:return /self->p/ { self->p = 0; }' \
	-c "/kt/trprog 'tick 1' msg pair" >bo.prog 2>bo.err </dev/null
expect_eq "printf() at write(2)'s return: the buffers at the probe" \
	"plain 1 ok tick plain 1 ok msg plain 1 ok pair" \
	"$(grep -o 'plain 1 ok [a-z]*' bo.txt | paste -sd' ' -)"
check "printf() at write(2)'s return: values computed in the kernel" \
	grep -q '^dtrace: 1 clause printing values computed in the kernel' \
	bo.err || diag "$(tail -n 40 bo.err)"
# ... a self-> string the kernel keeps at a kernel probe (str_var()):
# copied at write(2)'s entry, compared, measured and printed at its
# return
rm -f bo.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bo.txt \
	-n 'syscall::write:entry /pid == $target && arg0 == 1/ { self->s = copyinstr(arg1); }' \
	-n 'syscall::write:return /self->s != ""/ { printf("svar %d %s", strlen(self->s) > 0, self->s); self->s = 0; }' \
	-c "/kt/trprog 'tick 1' msg pair" >bo.prog 2>bo.err </dev/null
expect_eq "a self-> string at write(2): the buffers at the probe" \
	"svar 1 ok tick svar 1 ok msg svar 1 ok pair" \
	"$(grep -o 'svar 1 ok [a-z]*' bo.txt | paste -sd' ' -)"
check "a self-> string at write(2): values computed in the kernel" \
	grep -q '^dtrace: 1 clause printing values computed in the kernel' \
	bo.err || diag "$(tail -n 40 bo.err)"
rm -f bo.txt
DTRACE_BACKEND=bpf DTRACE_SYSCALL_RAW=1 timeout 120 dtrace -v -q -o bo.txt \
	-n 'syscall::write*:entry /pid == $target/ { printf("globout %d %d %s\n", arg0, arg2 > 0, execname); }' \
	-c "/kt/trprog 'tick 1' msg pair" >bo.prog 2>bo.err </dev/null
expect_eq "printf() on the raw tracepoints: the writes" \
	"globout 1 1 trprog globout 1 1 trprog globout 1 1 trprog" \
	"$(grep '^globout' bo.txt | paste -sd' ' -)"
check "printf() on the raw tracepoints: values computed in the kernel" \
	grep -q '^dtrace: 1 clause printing values computed in the kernel' \
	bo.err || diag "$(tail -n 40 bo.err)"
rm -f bo.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bo.txt \
	-n 'profile-997 /arg0 != 0 || arg1 != 0/ { printf("osample %d\n", arg0 != 0 || arg1 != 0); }' \
	-n 'profile-997 /arg0 != 0 || arg1 != 0/ { exit(0); }' >bo.prog 2>bo.err </dev/null
expect_eq "printf() at profile-997: the exiting sample" "osample 1" \
	"$(grep '^osample' bo.txt)"
check "printf() at profile-997: values computed in the kernel" \
	grep -q '^dtrace: 1 clause printing values computed in the kernel' \
	bo.err || diag "$(tail -n 40 bo.err)"
rm -f bk.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bk.txt \
	-n 'profile-997 { @p = count(); }' \
	-n 'profile-997 /arg0 != 0 || arg1 != 0/ { exit(0); }' \
	-n 'END { printa("samples %@d\n", @p); }' >bk.prog 2>bk.err </dev/null
expect_eq "exit() at profile-997: status" 0 "$?"
expect_eq "exit() at profile-997: the exiting sample counted" \
	"samples 1" "$(grep samples bk.txt)"
check "exit() at profile-997: decided in the kernel" \
	grep -q '^dtrace: 1 clause aggregated in the kernel$' bk.err ||
	diag "$(tail -n 40 bk.err)"
rm -f bp.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -q -o bp.txt \
	-n 'profile-997 { @p = count(); } tick-1s { exit(0); }' \
	-n 'END { printa("samples %@d\n", @p); }' >bp.err 2>&1 </dev/null
bp_s=$(sed -n 's/^samples //p' bp.txt)
check "profile-997 samples in one second (${bp_s:-none})" \
	test "${bp_s:-0}" -gt 0
[ -s bp.err ] && diag "$(tail -n 40 bp.err)"
rm -f bu.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -q -o bu.txt \
	-n 'tr$target:::tick { @u[ustack()] = count(); }' \
	-c "/kt/trprog 'tick 2'" >bu.prog 2>bu.err </dev/null
check "ustack() at a USDT probe names trprog's main" \
	grep -q 'trprog`main' bu.txt
grep -q 'trprog`main' bu.txt || diag "$(cat bu.txt; tail -n 40 bu.err)"
# ... and the unwinder its generated program tail-calls (bpf/unw.bpf.c:
# bpf_loop(), bpf_find_vma()) loads on this verifier (-v says if not;
# loaded before the command goes, DTRACE_USTACK_WALK=start, so that a
# short run cannot give the loading up)
DTRACE_USTACK_WALK=start DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bu.txt \
	-n 'tr$target:::tick { @u[ustack()] = count(); }' \
	-c "/kt/trprog 'tick 2'" >bu.prog 2>bv.err </dev/null
check "ustack()'s stack walk in the kernel loads" \
	sh -c "grep -q '^dtrace: BPF: user stacks: ' bv.err &&
		! grep -q 'no stack walk in the kernel' bv.err"
grep -q 'no stack walk' bv.err && diag "$(tail -n 40 bv.err)"
rm -f bs.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bs.txt \
	-n 'profile-997 /pid == $target/ { @s[ustack()] = count(); }' \
	-c "/kt/kstk spin 300" >bs.prog 2>bs.err </dev/null
# (its program generated, ../cgen_ustk.c's kp_uregs(): 6.1's verifier takes
# bpf_task_pt_regs() in a perf event's program)
check "ustack() at profile-997: a generated program" \
	grep -q '^dtrace: BPF: [0-9]* generated program' bs.err
bs_k=$(grep -o 'kstk`[a-z_]*' bs.txt | grep -A2 -x 'kstk`inner' | head -n 3 |
	paste -sd' ' -)
expect_eq "ustack() at profile-997 names kstk's inner, outer, main" \
	"kstk\`inner kstk\`outer kstk\`main" "$bs_k"
[ "$bs_k" = "kstk\`inner kstk\`outer kstk\`main" ] ||
	diag "$(head -n 40 bs.txt; tail -n 40 bs.err)"
# at write(2)'s own tracepoint (bpf_task_pt_regs()) and at proc:::exit
rm -f bw.txt bx.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -v -q -o bw.txt \
	-n 'syscall::write:entry /pid == $target/ { @w[ustack()] = count(); }' \
	-c "/kt/kstk write 2" >bw.prog 2>bw.err </dev/null
check "ustack() at syscall::write:entry: a generated program" \
	grep -q '^dtrace: BPF: [0-9]* generated program' bw.err
bw_k=$(sed -n 's/^ *\(kstk`[a-z_]*\).*/\1/p' bw.txt | paste -sd' ' -)
expect_eq "ustack() at syscall::write:entry names do_write, main" \
	"kstk\`do_write kstk\`main kstk\`_start" "$bw_k"
DTRACE_BACKEND=bpf timeout 120 dtrace -q -o bx.txt \
	-n 'proc:::exit /pid == $target/ { ustack(); }' \
	-c "/kt/kstk exit" >bx.prog 2>bx.err </dev/null
bw_x=$(sed -n 's/^ *\([^ +][^ +]*\).*/\1/p' bx.txt | paste -sd' ' -)
diag "proc:::exit's ustack(): $bw_x"
expect_eq "ustack() at proc:::exit starts in libc's _exit" \
	"libc.so.6\`_exit" "${bw_x%% *}"
[ "$bw_k" = "kstk\`do_write kstk\`main kstk\`_start" ] ||
	diag "$(head -n 40 bw.txt; tail -n 40 bw.err bx.err)"
rm -f bc.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -q -o bc.txt \
	-n 'tr$target:::msg { printf("copyin [%s] %x\n",
	    stringof(copyin(arg0, 5)), *(uint32_t *)copyin(arg0, 4)); }' \
	-c "/kt/trprog msg" >bc.prog 2>bc.err </dev/null
expect_eq "copyin() at a USDT probe: copied at the hit" \
	"copyin [hello] 6c6c6568" "$(grep copyin bc.txt)"
[ -s bc.err ] && diag "$(tail -n 40 bc.err)"
# copyoutstr() under -w, written at the hit by usdt_hit_w (a kernel
# not locked down): cpout prints its buffer right after the probe, then
# fires it with 0x10, where the write faults
rm -f bo.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -w -q -o bo.txt \
	-n 'cpout$target:::fill { copyoutstr("written-by-dtrace", arg0, 8); }
	    ERROR { printf("ERROR %d 0x%x\n", arg4, arg5); }
	    cpout$target:::done { exit(0); }' \
	-c /kt/cpout >bo.prog 2>bo.err </dev/null
expect_eq "copyoutstr() at a USDT probe: written before it returned" \
	"after the probe: [written--bytes]" "$(cat bo.prog)"
expect_eq "copyoutstr() to an unmapped address: ERROR's arguments" \
	"ERROR 1 0x10" "$(grep ERROR bo.txt)"
[ -s bo.err ] && diag "$(tail -n 40 bo.err)"
# copyoutstr(copyinstr(argA), ...) and copyout(copyin(argA, n), ...):
# the bytes read at the hit at another argument's address, then
# written; from 0x10 the read faults, nothing is written and the
# clause's copyin faults there
for c in 'copyoutstr(copyinstr(arg1), arg0, 9)|from-the-bytes' \
	'copyoutstr(copyinstr(arg1), arg0, 32)|from-the-source' \
	'copyout(copyin(arg1, 4), arg0, 4)|frominal-bytes'; do
	rm -f bo.txt
	DTRACE_BACKEND=bpf timeout 120 dtrace -w -q -o bo.txt \
		-n "cpout\$target:::copy { ${c%|*}; }
		    ERROR { printf(\"ERROR %d 0x%x\\n\", arg4, arg5); }" \
		-c '/kt/cpout copy' >bo.prog 2>bo.err </dev/null
	expect_eq "${c%|*} at a USDT probe: written before it returned" \
		"after the copy: [${c#*|}]
after a copy from 0x10: [original-bytes]" "$(cat bo.prog)"
	expect_eq "${c%|*} from an unmapped address: ERROR's arguments" \
		"ERROR 1 0x10" "$(grep ERROR bo.txt)"
	[ -s bo.err ] && diag "$(tail -n 40 bo.err)"
done
rm -f bv.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -q -o bv.txt \
	-n 'tr$target:::tick /!self->v/ { self->v = vtimestamp;
	    self->t = timestamp; }' \
	-n 'tr$target:::tick /self->v && timestamp > self->t/ {
	    printf("vt %d ts %d\n", vtimestamp - self->v,
	    timestamp - self->t); }' \
	-c "/kt/trprog 'tick 1' 'sleep 500' 'tick 1'" >bv.prog 2>bv.err </dev/null
expect_eq "vtimestamp across a 500 ms sleep: under half of timestamp's" ok \
	"$(awk '/^vt / { print ($2 * 2 < $4 && $4 >= 500000000) ? "ok" : $0 }' \
	bv.txt)"
[ -s bv.err ] && diag "$(tail -n 40 bv.err)"

rm -f bh.txt
DTRACE_BACKEND=bpf timeout 120 dtrace -q -Z -o bh.txt \
	-n 'trplug$target:::hello { @ = count(); }' \
	-n 'END { printa("hello %@d\n", @); }' \
	-c "/kt/trprog 'open /kt/trplug.so' 'plug 3'" >bh.prog 2>bh.err </dev/null
expect_eq "-c held at its dlopen(): every hit right after it" "hello 3" \
	"$(grep hello bh.txt)"
expect_eq "-c held at its dlopen(): nothing said" "" \
	"$(grep -v 'has exited' bh.err)"

bp_preempt

expect_eq "no uprobe events left by the BPF runs" "" \
	"$(grep dtrace_ /sys/kernel/tracing/uprobe_events 2>&1)"
