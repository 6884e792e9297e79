#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kprov-spec.sh: speculating clauses at the kernel providers' probes
# (syscall, profile-N, proc).  Where every speculating clause fires at a
# probe with a generated program (no BEGIN, END, ERROR or tick-N), the
# speculations are the kernel's whole (kplan_spec.c's d_kplan_kspec(),
# doc/DESIGN.md's step 5: the buffers' words stepped by the programs,
# the records held by dtrace, a kernel probe's out area after its kctx,
# arguments and vtimestamp, bpf.c's rec_kout_at(), bpf_kspec_fire()),
# and -v says so (kspec()); else the clauses' values are computed at the
# probe into the record's out area (kplan_spec.c's "Speculations",
# kplan_out.c's kp_sout_where(), cgen_kprov.c) while dtrace keeps the
# buffers, and -v says that and why the speculations stay user space's
# (sout(), stays()).  Each script runs with the generated
# programs (DTRACE_CGEN=1), aggregating in user space (DTRACE_KAGG=0)
# and with the generic programs (DTRACE_CGEN=0); the three outputs must
# be byte for byte the same.
# In the kernel (step 5; on main at 405e17b each of their "-v kernel"
# checks failed, -v saying "speculations stay user space's: clause 1:
# it may fire where no generated program at a uprobe runs (...)"):
#  - sys, sysraw and late below;
#  - sysq and sysj: sys.d without -q, the held records' default line
#    and JSON record, kpprog pinned to CPU 1 (with the CPU left at 0
#    in bpf_kspec_fire()'s fire of a kernel probe, their CPU checks and
#    three-way comparisons fail);
#  - topens: openat's entry speculating its path on 8 threads of
#    kpprog, committed at the return where the call opened, discarded
#    where not (the files of the even calls exist): every thread's
#    opened paths, in its order, three ways the same (sorted: the
#    threads' commits interleave);
#  - klit: one buffer 8 threads speculate into at openat flat out while
#    thread 0 takes and commits it (lit.d's shape at a kernel probe);
#  - mix (sp, a USDT program): one ID that profile-997 and sp:::end
#    speculate into, taken at sp:::begin, the sample's line held ahead
#    of the end's and committed with it, three ways; user space's
#    speculations (-v: a sample may run inside another program between
#    its stamp and its step); and fkv, a syscall clause speculating
#    beside a USDT clause keeping self->, user space's too (-v).
# Covered, on tests/data/kprov/kpprog.c:
#  - syscall on a call's own tracepoint: openat's entry speculating its
#    arguments and copyinstr(arg1), committed at the return;
#  - syscall on the raw tracepoints (DTRACE_SYSCALL_RAW=1): the same,
#    and a glob (open*) whose calls share one program, reading the
#    probe (id) at the hit (cgen_kprov.c's kp_ident());
#  - the area beside the record's user stack and argument area
#    (ustack(), curpsinfo->pr_psargs in a clause of the same probe);
#  - profile-997: the sample's arg1 in the target's text, its predicate
#    computed in the kernel too (kplan_vars.c's spred_ok());
#  - proc: exec-success and exit of the -c command's children;
#  - a read at the probe: copyinstr() at openat's return of the path
#    kept at its entry, a buffer kpprog rewrites right after the call
#    returns: every line the bytes the process had at the probe (the
#    user space path, DTRACE_CGEN=0, reads them when dtrace runs the
#    record: other bytes, or a fault once the process is gone).
# Before kp_sout_where() (main at fb0123b) these clauses ran from the
# records: -v said "its probes may be a kernel provider's" and no
# "printing values computed in the kernel" (every "-v sout" check
# fails), and the read at the probe printed no line of the path at the
# probe (its check fails); the three-way comparisons passed there too.
# With kp_sout_where() but not bpf_agg.c's plan for a run whose only
# kernel work is a sout clause's values (no other kernel clause, no
# record gate), the programs were DTRACE_KAGG=0's ("proc: the programs
# compute the values" fails).
# About 13 s on an idle 2-CPU machine before step 5's cases; 17 s at
# load 5 after (4.6 s user, 8 s system CPU).
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
tracefs_at -d events/syscalls || skip "no tracefs with syscalls events"

kpprog_build

# three NAME CMD DTRACE-ARGS...: dtrace -v -q on ./kpprog CMD with
# DTRACE_CGEN=1 (NAME.g), DTRACE_KAGG=0 (NAME.u) and DTRACE_CGEN=0
# (NAME.0): the same output, not empty, no error said; NAME.g.err is
# the first's messages
three() {
	tn=$1 tc=$2
	shift 2
	for m in g u 0; do
		kpprog_run "$tn" $m "$tc" "$@"
	done
	three_same "$tn"
}

# sout NAME N: -v said N speculating clauses print values computed at
# the probe, and no speculating clause's reason for staying out
sout() {
	ws=s
	[ "$2" -ne 1 ] || ws=
	expect_grep "$1: -v sout" \
		"^dtrace: $2 clause$ws with speculations printing values computed in the kernel, at the probe: speculate() and the buffers are user space's\$" \
		"$1.g.err"
	expect_eq "$1: -v gives no reason" "" \
		"$(grep 'speculates in user space' "$1.g.err")"
}

# mrun NAME M PRE CMD DTRACE-ARGS...: as lib.sh's kpprog_run, without
# -q, on the command CMD, dtrace run under PRE (a command and its
# arguments, or ""); te is M's variable
mrun() {
	mr_n=$1 mr_m=$2 mr_p=$3 mr_c=$4
	shift 4
	case $mr_m in
	g) te="DTRACE_CGEN=1" ;;
	u) te="DTRACE_KAGG=0" ;;
	0) te="DTRACE_CGEN=0" ;;
	esac
	rm -f "$mr_n.$mr_m"
	env $te $mr_p timeout -s KILL 120 "$DTRACE" -v -o "$mr_n.$mr_m" \
		-c "$mr_c" "$@" >/dev/null 2>"$mr_n.$mr_m.err"
	expect_eq "$mr_n ($te): status" 0 "$?"
	[ -f "$mr_n.$mr_m" ] || : >"$mr_n.$mr_m"
}

# kspec NAME N: -v said N clauses with speculations run in the kernel,
# no record was missing at a close, and no clause's values are printed
# from the sout path or why speculations stay user space's
kspec() {
	ws=s
	[ "$2" -ne 1 ] || ws=
	expect_grep "$1: -v kernel" \
		"^dtrace: $2 clause$ws with speculations run in the kernel: the buffers' words are the kernel's, their records held by dtrace\$" \
		"$1.g.err"
	expect_eq "$1: no record missing at a close" "" \
		"$(grep 'missing at their buffer' "$1.g.err")"
	expect_eq "$1: -v no sout, no why" "" \
		"$(grep -E 'with speculations (printing values|run in user space)|speculations stay|speculates in user space' "$1.g.err")"
}

# stays NAME [WHY]: -v said the speculations stay user space's, by
# default because BEGIN's or END's clause takes or commits the ID (slice
# 2), else WHY (a pattern)
stays() {
	expect_grep "$1: -v stays" \
		"^dtrace: speculations stay user space's: ${2:-clause [0-9]*: it may fire where no generated program runs (dtrace's own probes, tick-N: a later step)\$}" \
		"$1.g.err"
}

# ---------------------------------------------------------------------
# syscall, on the call's own tracepoint and on the raw ones

cat >sys.d <<'EOF'
syscall::openat:entry /pid == $target/ { self->s = speculation(); }
syscall::openat:entry /self->s/ { speculate(self->s); printf("%d %s %x\n", (int)arg0, copyinstr(arg1), arg2); }
syscall::openat:return /self->s && (int)arg0 >= 0/ { commit(self->s); self->s = 0; }
syscall::openat:return /self->s/ { discard(self->s); self->s = 0; }
EOF
three sys "opens 3" -s sys.d
printf -- '-100 /dev/null 0\n-100 /dev/null 0\n-100 /dev/null 0\n\n' >sys.exp
expect_file_eq "sys: the committed lines" sys.exp sys.g
kspec sys 4

# One buffer that the 8 threads speculate into flat out (speculate(1)),
# thread 0 taking it at its getcpu(2) before the start and committing
# it at the one after its last call, a marker printed right after
# (run-cgen-spec.sh's lit.d at a kernel probe): the records whose steps
# came before the commit's are held by dtrace, some still in other
# CPUs' hits or not read when the commit's record is (the barrier, the
# cut and the pass: bpf.c's rec_kout_at() reads a kernel probe's tags
# ahead, bpf_kspec_fire() hands them over), so every committed line is
# an openat's, they come together before the marker, and thread 0's own
# are all there in order.  How many of the others' depends on the
# interleaving: the three ways are not compared.  The ring holds the
# run (16 MB over the possible CPUs, as lit.d's).  As lit.d's, the race
# the barrier and the pass guard against did not happen here without
# them: with rec_kout_at()'s kernel probe part taken out (no tag read
# ahead, every hit's handed over at its place) 6 of 6 runs passed;
# tests/unit/t-kread.c is the rule's proof.  With bpf_kspec_fire()
# handing nothing over for a kernel probe, every line is missing.
cat >klit.d <<'EOF'
syscall::getcpu:entry /pid == $target && tid != pid/ { self->g++; }
syscall::getcpu:entry /self->g == 1/ { self->s = speculation(); }
syscall::openat:entry /pid == $target && tid != pid/ { speculate(1); printf("%s\n", copyinstr(arg1)); }
syscall::getcpu:entry /self->g == 2/ { commit(self->s); self->s = 0; }
syscall::getcpu:entry /self->g == 2/ { printf("marker\n"); }
EOF
ncpu=$(getconf _NPROCESSORS_CONF 2>/dev/null || echo 1)
lbs=$((16 / ncpu))
[ "$lbs" -ge 1 ] || lbs=1
kpprog_run klit g "topens 300 8" -x bufsize=${lbs}m -s klit.d
n=$(wc -l <klit.g)
expect_eq "klit: the marker, then dtrace's last line" "marker||" \
	"$(tail -2 klit.g | tr '\n' '|')"
expect_eq "klit: every line before the marker an openat's" "" \
	"$(head -n $((n - 2)) klit.g | grep -vE '^sf/t[0-7]-i[0-9]+$')"
i=0
while [ $i -lt 300 ]; do
	echo "sf/t0-i$i"
	i=$((i + 1))
done >klit.exp
grep '^sf/t0-' klit.g >klit.t0
expect_file_eq "klit: thread 0's own, in order" klit.exp klit.t0
expect_eq "klit: no drop" "" "$(grep -i drop klit.g.err)"
kspec klit 3

# ... without -q: the held records' default line and JSON record, their
# CPU and probe the record's (bpf_kspec_fire()), kpprog pinned to CPU 1
# so that a CPU left at 0 shows
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	for f in q j; do
		fo=
		[ $f = q ] || fo="-x oformat=json"
		for m in g u 0; do
			mrun sys$f $m "taskset -c 1" "./kpprog opens 3" $fo \
				-s sys.d
		done
		expect_file_eq "sys$f: DTRACE_KAGG=0's output" sys$f.u sys$f.g
		expect_file_eq "sys$f: DTRACE_CGEN=0's output" sys$f.0 sys$f.g
		kspec sys$f 4
	done
	expect_eq "sysq: the entries' lines, CPU 1" 3 \
		"$(grep -c '^  1 .* openat:entry -100 /dev/null 0$' sysq.g)"
	expect_eq "sysj: the entries' records, CPU 1" 3 \
		"$(grep -c '^{"cpu":1,"id":[0-9]*,"provider":"syscall",.*"name":"entry","output":"-100 /dev/null 0\\n"}$' sysj.g)"
else
	echo "# one CPU or no taskset: sysq and sysj skipped"
fi

DTRACE_SYSCALL_RAW=1 three sysraw "opens 3" -s sys.d
expect_file_eq "sysraw: the committed lines" sys.exp sysraw.g
kspec sysraw 4

# 8 threads, each with its own buffer (nspec 8): the entry's path held,
# committed at the return where the call opened (the even calls' files
# exist), discarded where not
mkdir sf
: >topens.exp
for t in 0 1 2 3 4 5 6 7; do
	i=0
	while [ $i -lt 40 ]; do
		: >sf/t$t-i$i
		echo "sf/t$t-i$i 0" >>topens.exp
		i=$((i + 2))
	done
done
sort topens.exp >topens.exps
cat >topens.d <<'EOF'
syscall::openat:entry /pid == $target && tid != pid/ { self->s = speculation(); }
syscall::openat:entry /self->s/ { speculate(self->s); printf("%s %x\n", copyinstr(arg1), arg2); }
syscall::openat:return /self->s && (int)arg0 >= 0/ { commit(self->s); self->s = 0; }
syscall::openat:return /self->s/ { discard(self->s); self->s = 0; }
EOF
for m in g u 0; do
	kpprog_run topens $m "topens 40 8" -x nspec=8 -s topens.d
	grep . topens.$m | sort >topens.$m.s
	expect_file_eq "topens ($m): every opened path, once" topens.exps \
		topens.$m.s
	expect_eq "topens ($m): no failed speculation, no drop" "" \
		"$(grep -e failed -e drop "topens.$m.err")"
done
# each thread's in its order (its calls' i rising)
for t in 0 1 2 3 4 5 6 7; do
	expect_eq "topens: thread $t's commits in order" \
		"$(grep "^sf/t$t-" topens.exp | paste -sd' ' -)" \
		"$(grep "^sf/t$t-" topens.g | paste -sd' ' -)"
done
kspec topens 4

# open, openat and openat2 share one program on the raw tracepoint:
# the probe's id read at the hit, each line the probe's own
cat >glob.d <<'EOF'
BEGIN { s = speculation(); }
syscall::open*:entry /pid == $target/ { speculate(s); printf("%d %d\n", id, (int)arg0 == -100); }
END { commit(s); }
EOF
DTRACE_SYSCALL_RAW=1 three glob "opens 2" -s glob.d
sout glob 1
stays glob
expect_eq "glob: open's and openat's lines" "2 2" \
	"$(awk 'NF == 2 { n[$2]++ } END { printf "%d %d", n[0], n[1] }' glob.g)"
expect_grep "glob: the calls' programs shared" \
	'^dtrace: BPF: [0-9]* generated programs, ' glob.g.err

# the area beside what the record carries after it (cgen.c: the
# argument area, the user stack), each read at its offset
cat >rec.d <<'EOF'
BEGIN { s = speculation(); }
syscall::getcpu:entry /pid == $target/ { speculate(s); printf("%d %s\n", arg2 == 0, execname); }
syscall::getcpu:entry /pid == $target/ { @[ustack(), curpsinfo->pr_psargs] = count(); }
END { commit(s); }
EOF
three rec "getcpu 3" -s rec.d
sout rec 1
stays rec
expect_eq "rec: the committed lines" "1 kpprog 1 kpprog 1 kpprog" \
	"$(grep '^1 ' rec.g | paste -sd' ' -)"
expect_grep "rec: the stack" 'kpprog`main' rec.g
# Its speculating clause's predicate (pid == $target) is the kernel's
# (kplan_vars.c's spred_ok()), so only the target's calls make records:
# another process calling getcpu throughout makes none (before, every
# call of every process wrote one, 170,807 in a second beside such a
# loop, and a busy machine's dropped some: ci17's "6666 drops").  The
# two on CPUs of their own, so the loop's hits take no time of the
# target's CPU.
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	taskset -c 0 ./kpprog getcpu 1000000000 >/dev/null &
	hp=$!
	bg_pids="$bg_pids $hp"
	taskset -c 1 timeout -s KILL 120 "$DTRACE" -v -q -o recx.g \
		-c "./kpprog getcpu 3" -s rec.d >/dev/null 2>recx.g.err
	expect_eq "rec beside another process's calls: status" 0 "$?"
	expect_eq "rec beside another process's calls: it ran throughout" 0 \
		"$(kill -0 $hp 2>/dev/null; echo $?)"
	expect_eq "rec beside another process's calls: records read" 3 \
		"$(sed -n 's/.*, \([0-9]*\) records read$/\1/p' recx.g.err)"
	expect_eq "rec beside another process's calls: the committed lines" \
		"1 kpprog 1 kpprog 1 kpprog" \
		"$(grep '^1 ' recx.g 2>/dev/null | paste -sd' ' -)"
	# cgbuf taken where the hit first needs it (cgen.c's own_need()):
	# the loop's getcpu hits on the raw tracepoint (no bpf_prog_active
	# raised, so a profile-N sample runs inside them) fail their
	# /pid == $target/ before needing cgbuf, and so do the samples on
	# CPU 0: none takes the owner word, none counts a drop.  Before
	# (main at 19e59dd), every hit of the getcpu program took it in
	# its prologue, and each sample landing there said a drop: 2 to 60
	# in this second on a loaded 2-CPU machine (this check failed).
	cat >own.d <<'EOF'
syscall::getcpu:entry /pid == $target/ { @u[ustack()] = count(); }
profile-4999 /pid == $target/ { @p[ustack()] = count(); }
syscall::getcpu:entry { @n = count(); }
END { printa("n %@d\n", @n); trunc(@u); trunc(@p); }
EOF
	DTRACE_SYSCALL_RAW=1 taskset -c 1 timeout -s KILL 120 "$DTRACE" -v -q \
		-o own.g -c "sleep 1" -s own.d >/dev/null 2>own.g.err
	expect_eq "own: status" 0 "$?"
	expect_eq "own: the loop ran throughout" 0 \
		"$(kill -0 $hp 2>/dev/null; echo $?)"
	expect_eq "own: the loop's calls counted (over 100000)" 1 \
		"$(awk '$1 == "n" { print ($2 > 100000) }' own.g 2>/dev/null)"
	expect_eq "own: no drop said" "" \
		"$(grep ' drops on CPU ' own.g.err)"
	kill $hp 2>/dev/null
	wait $hp 2>/dev/null
	forget_pid $hp
	# ... and a drop counted where it happens: every getcpu record is
	# built in cgbuf (the argument area), a sample landing in one's
	# build needs cgbuf for its own record and drops there, after its
	# counting clause ran (the ring holds every record: every drop is
	# the owner word's, and -v must say so).  So @s is the samples
	# whose record was read (@p, and those whose record errs: a sample
	# of the exiting process has no argument area) plus the drops.
	# Before, the sample took the word in its prologue: @s was @p
	# (916 of 917, 1,035 drops said: this check failed).
	cat >acc.d <<'EOF'
syscall::getcpu:entry /pid == $target/ { @a[curpsinfo->pr_psargs] = count(); }
profile-4999 /pid == $target/ { @s = count(); }
profile-4999 /pid == $target/ { @p[curpsinfo->pr_psargs] = count(); }
END { printa("a %s %@d\n", @a); printa("s %@d\n", @s); printa("p %s %@d\n", @p); }
EOF
	DTRACE_SYSCALL_RAW=1 taskset -c 1 timeout -s KILL 120 "$DTRACE" -v -q \
		-x bufsize=64m -o acc.g -c "./kpprog getcpu 300000" -s acc.d \
		>/dev/null 2>acc.g.err
	expect_eq "acc: status" 0 "$?"
	expect_eq "acc: every getcpu counted" 300000 \
		"$(awk '$1 == "a" { n += $NF } END { print n + 0 }' acc.g)"
	d=$(awk '/ drops on CPU / { s += $2 } END { print s + 0 }' acc.g.err)
	expect_eq "acc: every drop the owner word's (-v)" "$d" \
		"$(awk '/ drops on CPU .* of them: the CPU/ { s += substr($7, 2) }
			END { print s + 0 }' acc.g.err)"
	expect_eq "acc: the samples are those read, erring and dropped" \
		"$(awk '$1 == "s" { print $2 }' acc.g)" \
		"$(($(awk '$1 == "p" { n += $NF } END { print n + 0 }' acc.g) +
			$(grep -c 'error on enabled probe.*profile-4999' acc.g.err) +
			d))"
	[ "$d" -gt 0 ] ||
		echo "# acc: no drop in this run: its accounting proved nothing"
else
	echo "# one CPU or no taskset: the run beside another process's calls skipped"
fi

# ---------------------------------------------------------------------
# profile-997: the first sample in kpprog's text (non-PIE: nm's
# addresses), then exit()

set -- $(readelf -lW kpprog | awk '$1 == "LOAD" && / R E / { print $3, $6 }')
[ "$#" -eq 2 ] || fail "readelf: no executable LOAD segment in kpprog"
lo=$(printf '%d' "${1:-0}")
hi=$((lo + $(printf '%d' "${2:-0}")))
cat >prof.d <<EOF
BEGIN { s = speculation(); }
profile-997 /pid == \$target && arg1 >= $lo && arg1 < $hi/ { speculate(s); printf("%s %d\n", execname, arg1 >= $lo && arg1 < $hi); }
profile-997 /pid == \$target && arg1 >= $lo && arg1 < $hi/ { exit(0); }
END { commit(s); }
EOF
three prof "spin 300000000" -s prof.d
printf 'kpprog 1\n\n' >prof.exp
expect_file_eq "prof: the sample's line" prof.exp prof.g
sout prof 1
stays prof 'exit() is decided at the hit '
expect_grep "prof: -v spred" \
	'^dtrace: 1 of them with predicates computed in the kernel, at the probe: dtrace tests their truth$' \
	prof.g.err

# ---------------------------------------------------------------------
# proc: a child's exec-success and the children's exits

cp kpprog kpchild
cat >proc.d <<'EOF'
BEGIN { s = speculation(); }
proc:::exec-success /ppid == $target/ { speculate(s); printf("exec %d\n", pid != $target); }
proc:::exit /ppid == $target/ { speculate(s); printf("exit %d\n", arg0); }
END { commit(s); }
EOF
three proc "forkexec ./kpchild" -s proc.d
printf 'exec 1\nexit 1\nexit 2\n\n' >proc.exp
expect_file_eq "proc: the children's lines" proc.exp proc.g
sout proc 2
stays proc

# ---------------------------------------------------------------------
# The read at the probe: the path kept at openat's entry (a kernel
# clause's self->p), read by the speculating clause at its return,
# before kpprog rewrites the buffer

cat >late.d <<'EOF'
syscall::openat:entry /pid == $target/ { self->p = arg1; }
syscall::openat:entry /pid == $target/ { self->s = speculation(); }
syscall::openat:return /self->s/ { speculate(self->s); printf("%d %s\n", (int)arg0, copyinstr(self->p)); }
syscall::openat:return /self->s/ { commit(self->s); self->s = 0; }
EOF
: >late.exp
for i in 0 1 2 3 4 5 6 7 8 9; do
	echo "-2 /nonexistent/rw-$i" >>late.exp
done
echo >>late.exp
for m in g 0; do
	kpprog_run late $m "rewrites 10" -s late.d
done
expect_file_eq "late: every hit read at the probe" late.exp late.g
kspec late 3
expect_eq "late: -v says no late read" "" \
	"$(grep 'when dtrace runs the record' late.g.err)"
n=$(grep -cxFf late.exp late.0)
expect_eq "late: some hits not read at the probe (DTRACE_CGEN=0)" 1 \
	"$((n < 10))"

# ---------------------------------------------------------------------
# One ID that profile-997 and a USDT probe speculate into: taken at
# sp:::begin of the first transaction, the first sample of the thread
# speculating its line (self->k then set: one line only), the last
# transaction's sp:::end speculating its own and committing (sp.c, one
# thread: 20,000 transactions, about 0.2 s of its CPU time, some 200
# samples)

if tracefs_at -w uprobe_events; then
	trace_progs_copy sp || {
		require_G
		test_progs_build sp
	}
	cat >mix.d <<'EOF'
self int k;
sp$target:::begin /arg1 == 0/ { self->s = speculation(); }
profile-997 /self->s && !self->k/ { speculate(self->s); printf("%s sampled\n", execname); self->k = 1; }
sp$target:::end /self->s && arg1 == 19999/ { speculate(self->s); printf("t%d end %d\n", arg0, self->k); }
sp$target:::end /self->s && arg1 == 19999/ { commit(self->s); self->s = 0; }
EOF
	printf 'sp sampled\nt0 end 1\n\n' >mix.exp
	for m in g u 0; do
		mrun mix $m "" "./sp 20000 1" -q -s mix.d
		# a sample may drop (one landing in a uprobe's program on its
		# CPU): the thread runs on, and a later sample speculates
		expect_file_eq "mix ($te): the sample's line, then the end's" \
			mix.exp mix.$m
	done
	# the sample may run inside sp's uprobe program after its stamp
	# and before its step (review revk5: 38-50 of 2,300 samples out
	# of order at profile-4999): user space's
	stays mix 'clause 2: it may fire at profile-N, whose sample may run inside another program .*'
	# a syscall speculating clause keeping self-> beside a USDT clause
	# keeping self->: a fork child that hits sp:::begin before it is
	# armed keeps its self-> variables in user space for its life, and
	# its write()s' records would step no buffer (review revk5: all of
	# three children's lines lost): user space's
	cat >fkv.d <<'EOF'
sp$target:::begin { self->b = arg0 + 1; }
syscall::write:entry /pid == $target && !self->s/ { self->s = speculation(); }
syscall::write:entry /self->s/ { speculate(self->s); printf("w %d\n", self->b); }
syscall::exit_group:entry /self->s/ { commit(self->s); self->s = 0; }
EOF
	mrun fkv g "" "./sp 10 1" -q -s fkv.d
	stays fkv 'clause 2: it keeps self-> variables at a kernel probe beside clauses keeping them at uprobe sites: .*'
else
	echo "# no uprobe_events: mix (profile-997 and a USDT probe) skipped"
fi

finish
