#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-ustack.sh: user stacks and the names of user addresses in
# dtrace -n, against real processes: ustack(), ustack(n), ucaller,
# ufunc(), umod(), usym(), uaddr(), printf's %A and %k,
# @[ustack()] = count(), @[ufunc()] = count() and kin, -x srcline,
# -x mangled, -x stackindent, -x oformat=json, separate debug files.
#
# tests/data/ustack/ustk.c calls a() -> b() -> c() and d() -> c(); c()
# fires ustk:::fire.  It is built with gcc -O2 -fomit-frame-pointer
# (Debian's default: no frame pointers to follow, the stack is unwound
# with the CFI), with -fno-omit-frame-pointer, and with clang; ustkpp.cc
# is C++ (a method of a class in a namespace).  Each expected frame is
# computed from the binary itself, independently of dtrace: the probe
# site from its stapsdt note (readelf) against the function's symbol
# (nm), each return address as the instruction after the caller's only
# call to the callee (objdump).  libc's frames depend on the C library's
# build, so only their module is compared (a run of them reads as one
# "libc.so.6`..." line); the program's own frames, _start's included,
# are compared exactly.
#
# Every target exits right after its last hit, so its records are read
# after it is gone: the names come from the modules dtrace kept.  One
# case makes it certain: a -p process (not dtrace's child) that fires and
# exits while dtrace waits.  Another recurses deeper than a 1k copy and
# exits while dtrace is stopped: its stack ends with the marker
# "[truncated: N bytes of stack copied]" ({"truncated": N} in JSON),
# and the stacks that unwind to _start within the copy have none.  A
# -p process that exec()s ls: ls's stacks are unwound after the session
# made from the first program's modules drops them (dtrace aborted in
# libdw, having unwound with a backend freed with them).  A hit read
# after its process exec()'d: named with the first program's modules,
# not the new one's, which setarch -R loads at the same address.  A
# library dlclose()d and another dlopen()ed at its address (dlswap.c):
# each hit's frames named from the library it ran in under -c (held at
# each dlopen()), and where nothing holds the process (strace traces
# it) named so too, dated by the fork tracker's mapping records, or
# given as addresses, never the other library's names, even where the
# libraries are swapped out and back between two reads of the maps.
#
# The stack walked in the kernel (bpf/unw.bpf.c; x86-64, generated
# programs) against the copy's unwinding with the walk off, byte for
# byte: tests/data/ustack/uwalk.c's stacks (a qsort() callback,
# recursion within and past 128 frames, an rbp-based CFA, a signal
# handler, an exec()'d image), dlswap's, and dlswap's with libraries
# whose CFI differs where the other has its code (uwswap[ab].c: the
# walk's mapping check must run again after the swap even where the
# thread's checks are reused), and a library's text mapped again at its
# addresses from another offset of its file (uwpgoff[m].c: the check
# must compare the offset too, and the frame be named from where the new
# mapping has it or not at all, with ld.bfd's layout and lld's); -v's
# counts show that stacks were walked.
#
# Both backends where the BPF one is built (DTRACE_BACKEND=uprobe gives
# the perf events' PERF_SAMPLE_REGS_USER/STACK_USER path), the BPF one
# with its generated programs (dtrace-G/consumer/cgen_ustk.c's
# ustack_copy(); -v says so) and its generic one (DTRACE_CGEN=0).
# @[ustack()] = count() and @[ustack(2)] = count() under a self->
# predicate are the generated programs' clauses (-v), each count made
# by dtrace from the record (kplan_out.c's "User stacks as aggregation
# keys"), the same with DTRACE_KAGG=0; on main at 42beaea 6 checks
# fail (-v: user space's).  Needs root,
# tracefs uprobe events, nm, readelf, objdump, objcopy and strip.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/ustack

[ "$(id -u)" -eq 0 ] || skip "not root: uprobe_events and perf_event_open need root"
require_G nm readelf objdump objcopy strip
require_uprobe_events
gcc=$(gcc_driver "$CC" c) || skip "no gcc"
gxx=$(gcc_driver "$CXX" c++) || skip "no g++"

DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

# ---------------------------------------------------------------------
# Build

"$DTRACE" -h -s "$data/ustk.d" -o ustk.h || fail "dtrace -h"

# build NAME COMPILER FLAGS...: NAME from ustk.c
build() {
	b_name=$1
	b_cc=$2
	shift 2
	# shellcheck disable=SC2086
	$b_cc "$@" -I. -c "$data/ustk.c" -o "$b_name.o" &&
		"$DTRACE" -G -s "$data/ustk.d" "$b_name.o" -o "$b_name-p.o" &&
		$b_cc -o "$b_name" "$b_name.o" "$b_name-p.o" ||
		fail "building $b_name"
}
build ustk-omit "$gcc" -O2 -fomit-frame-pointer
build ustk-fp "$gcc" -O2 -fno-omit-frame-pointer
build ustk-g "$gcc" -O2 -g
clang=${CLANG:-}
[ -n "$clang" ] && command -v "$clang" >/dev/null 2>&1 || clang=
[ -n "$clang" ] && build ustk-clang "$clang" -O2 &&
	build ustk-clang-g "$clang" -O2 -g
$gxx -O2 -I. -c "$data/ustkpp.cc" -o ustkpp.o &&
	"$DTRACE" -G -s "$data/ustk.d" ustkpp.o -o ustkpp-p.o &&
	$gxx -o ustkpp ustkpp.o ustkpp-p.o || fail "building ustkpp"

# ---------------------------------------------------------------------
# The frames, from the binary

# an awk function: the value of a hex number (mawk has no strtonum)
hexfn='function hex(s,  i, v) { sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
	return v }'

# site BIN FUNC: FUNC+0xOFF of the probe site inside FUNC
site() {
	s_fn=$(nm -S "$1" | awk -v f="$2" '$4 == f { print $1, $2; exit }')
	readelf -n "$1" | awk -v fn="$s_fn" -v f="$2" "$hexfn"'
		BEGIN { split(fn, a, " "); lo = hex(a[1]); hi = lo + hex(a[2]) }
		/Location:/ { sub(",", "", $2); v = hex($2)
			if (v >= lo && v < hi) { printf "%s+0x%x\n", f, v - lo; n++ } }
		END { if (n != 1) print "(no single site in " f ")" }'
}

# ret BIN CALLER CALLEE: CALLER+0xOFF of the return address of CALLER's
# only call to CALLEE (CALLEE as objdump names a target: "<c>",
# "<__libc_start_main@")
ret() {
	objdump -d --no-show-raw-insn "$1" | awk -v fn="<$2>:" -v callee="$3" \
		-v f="$2" "$hexfn"'
		$2 == fn { inside = 1; start = hex($1); next }
		inside && NF == 0 { inside = 0 }
		inside && want { sub(":", "", $1)
			printf "%s+0x%x\n", f, hex($1) - start
			want = 0; n++ }
		inside && $2 == "call" && index($0, callee) { want = 1 }
		END { if (n != 1) print "(no single call to " callee " in " f ")" }'
}

# frames BIN FRAME...: the frames as ustack() prints them
frames() {
	f_bin=$1
	shift
	for f; do
		case $f in
		libc) printf '%14slibc.so.6`...\n' '' ;;
		*) printf '%14s%s`%s\n' '' "$f_bin" "$f" ;;
		esac
	done
}

# stack_abc BIN / stack_dc BIN: main -> a -> b -> c, main -> d -> c
stack_abc() {
	frames "$1" "$(site "$1" c)" "$(ret "$1" b '<c>')" \
		"$(ret "$1" a '<b>')" "$(ret "$1" main '<a>')" libc \
		"$(ret "$1" _start '<__libc_start_main')"
}
stack_dc() {
	frames "$1" "$(site "$1" c)" "$(ret "$1" d '<c>')" \
		"$(ret "$1" main '<d>')" libc \
		"$(ret "$1" _start '<__libc_start_main')"
}

# ---------------------------------------------------------------------
# Running

# trun ARGS...: dtrace, its output (libc's frames as one line) in
# out.txt, stderr in err.txt, the status in $status
trun() {
	timeout -s KILL 120 "$DTRACE" "$@" >raw.txt 2>err.txt </dev/null
	status=$?
	awk '/^ *libc\.so\.6`/ { if (!inlibc) printf "%14slibc.so.6`...\n", ""
				inlibc = 1; next }
	     { inlibc = 0; print }' raw.txt >out.txt
}

# expect_run WHAT EXPECTED-FILE: the run went well and printed that
expect_run() {
	expect_eq "$1: exit status" 0 "$status"
	expect_file_eq "$1" "$2" out.txt
	if [ -s err.txt ]; then
		fail "$1: stderr: $(cat err.txt)"
	fi
}

backends=default
[ "${HAVE_BPF:-no}" = yes ] && backends="bpf generic uprobe"

# kern_run WHAT LINE EXPECTED-FILE ARGS...: trun ARGS, with -v on bpf
# ($pk_v), where -v must say LINE and no clause runs in user space (its
# counts then taken out of err.txt), then expect_run, and on bpf the
# same with DTRACE_KAGG=0
kern_run() {
	kr_what=$1 kr_line=$2 kr_exp=$3
	shift 3
	trun ${pk_v:+"$pk_v"} "$@"
	if [ "$be" = bpf ]; then
		expect_grep "$be: $kr_what: the clause in the kernel" \
			"$kr_line" err.txt
		expect_eq "$be: $kr_what: no clause in user space" \
			0 "$(grep -c 'user space' err.txt)"
		{ grep -v '^dtrace: \(1 clause \(keying\|aggregated\|printing\)\|0 self-> variables\|BPF: \|1 traced thread\)' \
			err.txt || :; } >err.v
		mv err.v err.txt
	fi
	expect_run "$be: $kr_what" "$kr_exp"
	if [ "$be" = bpf ]; then
		DTRACE_KAGG=0 trun "$@"
		expect_run "$be: $kr_what, DTRACE_KAGG=0" "$kr_exp"
	fi
}

# ustk_be BE: the checks below on backend BE (bpf, its generic program
# or uprobe; default: the one dtrace picks), in directory be-BE with
# copies of the programs.  The backends run side by side (lib.sh's
# bg_checks): most of a run is the kernel's attaching and detaching.
ustk_be() {
	be=$1
	cp ../ustk-* . || exit 99
	unset DTRACE_CGEN
	if [ "$be" = default ]; then
		unset DTRACE_BACKEND
	elif [ "$be" = generic ]; then
		DTRACE_BACKEND=bpf DTRACE_CGEN=0
		export DTRACE_BACKEND DTRACE_CGEN
	else
		DTRACE_BACKEND=$be
		export DTRACE_BACKEND
	fi
	if [ "$be" = bpf ]; then
		trun -v -q -c './ustk-omit 1 0' -n 'ustk$target:::fire { ustack(); }'
		expect_grep "bpf: the stack copied by a generated program" \
			'^dtrace: BPF: 1 generated program, ' err.txt
	fi

	# ustack() as a statement, one hit per path, without and with frame
	# pointers and from clang: the same frames, the right offsets
	for bin in ustk-omit ustk-fp ${clang:+ustk-clang}; do
		{ echo; stack_abc $bin; echo; stack_dc $bin; echo; } >expected.txt
		trun -q -c "./$bin 1 1" -n 'ustk$target:::fire { ustack(); }'
		expect_run "$be: ustack() in $bin" expected.txt
	done

	# printed stacks (doc/DESIGN.md §8 "Printed user stacks from the
	# record"): printf()'s %k of ustack(2), trace(jstack(1)) beside
	# arg0, and on the BPF backends trace(ustack(3)) at a kernel probe
	# (its frames libc's), the same on every backend; with generated
	# programs (bpf) both clauses are the kernel's (-v: kplan_out.c's
	# OSTK), dtrace unwinding and naming the record's stack as it
	# formats them, and none runs in user space
	{
		for p in abc:2 dc:0; do
			printf '%s \n' "${p#*:}"
			"stack_${p%:*}" ustk-omit | head -n 2 | sed 's/^ *//'
			echo '|'
			"stack_${p%:*}" ustk-omit | head -n 1
		done
		case $be in bpf | generic) printf '\n%14slibc.so.6`...\n' '' ;; esac
		echo
	} >expected.txt
	set -- -n 'ustk$target:::fire {
		printf("%d %k|", arg0, ustack(2)); trace(jstack(1)); }'
	case $be in bpf | generic) set -- "$@" -n 'syscall::exit_group:entry
		/pid == $target/ { trace(ustack(3)); }' ;;
	esac
	pk_v=
	[ "$be" = bpf ] && pk_v=-v
	trun ${pk_v:+"$pk_v"} -q -c './ustk-omit 1 1' "$@"
	if [ "$be" = bpf ]; then
		expect_grep "$be: printed stacks: the clauses in the kernel" \
			'^dtrace: 2 clauses printing values computed in the kernel$' \
			err.txt
		expect_eq "$be: printed stacks: no clause in user space" 0 \
			"$(grep -c 'runs in user space' err.txt)"
		{ grep -v '^dtrace: \(2 clauses printing\|BPF: \|1 traced thread\)' \
			err.txt || :; } >err.v
		mv err.v err.txt
	fi
	expect_run "$be: printed stacks" expected.txt

	# ufunc(), usym(), umod() and uaddr() of integers the kernel
	# computes (arg1, arg2, arg0: no module's, an address; a self->
	# variable the kernel keeps), printed whole and inside strjoin():
	# with generated programs (bpf) the clause is the kernel's, each
	# address a leaf of the out area named when dtrace formats the
	# record, with its pid and time (kplan_str.c's ftime_func()); the
	# same on every backend and with DTRACE_KAGG=0 (on main the clause
	# is user space's: -v "argument 1, ufunc(), a string the kernel
	# does not compute")
	for a0 in 2 0; do
		printf '  %-50s  %-50s  %-50s  %-50s  %-50s\n' \
			'ustk-omit`b' 'ustk-omit`b' 'libc.so.6' \
			'ustk-omit`b+0x4' "0x$a0"
		printf '[ustk-omit`b] [ustk-omit!]\n'
	done >expected.txt
	echo >>expected.txt
	set -- -q -c './ustk-omit 1 1' -n 'ustk$target:::fire {
		self->p = arg1 + 4; }
		ustk$target:::fire { ufunc(arg1); usym(arg1); umod(arg2);
		uaddr(self->p); uaddr(arg0); printf("\n[%s] [%s]\n",
		ufunc(arg1), strjoin(umod(arg1), "!")); }'
	kern_run "ufunc() and kin printed" \
		'^dtrace: 1 clause printing values computed in the kernel$' \
		expected.txt "$@"
	# ... but in a speculating clause, user space's (a held record of
	# the kernel's buffers is formatted without the process's modules:
	# bpf_kspec_fire()'s fire named b 0x...), -v saying so
	if [ "$be" = bpf ]; then
		printf 'ustk-omit`b 2\nustk-omit`b 3\n\n' >expected.txt
		trun -v -q -c './ustk-omit 2 1' -n 'ustk$target:::fire {
			self->s = speculation(); speculate(self->s);
			printf("%s %d\n", ufunc(arg1), arg0); }
			ustk$target:::fire /arg0 > 1/ { commit(self->s); }
			ustk$target:::fire /arg0 <= 1/ { discard(self->s); }'
		expect_grep "$be: ufunc() speculated: user space's" \
			"argument 1: a user address's name in a speculating clause" \
			err.txt
		{ grep -v '^dtrace: ' err.txt || :; } >err.v
		mv err.v err.txt
		expect_run "$be: ufunc() speculated" expected.txt
	fi

	# @[ustack()] = count(): exact counts per distinct stack, beside a
	# clause that aggregates in the kernel; with generated programs
	# (bpf) the clause is the kernel's, its count made by dtrace from
	# the record's stack (-v: kplan_out.c's "User stacks as
	# aggregation keys"), and the same with DTRACE_KAGG=0 (user space's)
	{
		printf '\n\n'
		stack_dc ustk-omit
		printf '%17s\n\n' 2
		stack_abc ustk-omit
		printf '%17s\n%17s\n' 3 5
	} >expected.txt
	set -- -q -c './ustk-omit 3 2' \
		-n 'ustk$target:::fire { @[ustack()] = count(); }' \
		-n 'ustk$target:::fire { @n = count(); }'
	trun ${pk_v:+"$pk_v"} "$@"
	uk_v='^dtrace: 1 clause keying by the user stack in the kernel, each count made from its record$'
	if [ "$be" = bpf ]; then
		expect_grep "$be: @[ustack()] = count(): the clause in the kernel" \
			"$uk_v" err.txt
		expect_eq "$be: @[ustack()] = count(): no clause in user space" \
			0 "$(grep -c 'runs in user space' err.txt)"
		{ grep -v '^dtrace: \(1 clause \(keying\|aggregated\)\|BPF: \|1 traced thread\)' \
			err.txt || :; } >err.v
		mv err.v err.txt
	fi
	expect_run "$be: @[ustack()] = count()" expected.txt
	if [ "$be" = bpf ]; then
		DTRACE_KAGG=0 trun "$@"
		expect_run "$be: @[ustack()] = count(), DTRACE_KAGG=0" expected.txt
	fi

	# ukey_run WHAT DTRACE-ARGS...: trun -v, the clause the kernel's
	# (-v: uk_v), none in user space
	ukey_run() {
		ur_w=$1
		shift
		trun -v "$@"
		expect_grep "$be: $ur_w: the clause in the kernel" "$uk_v" \
			err.txt
		expect_eq "$be: $ur_w: no clause in user space" 0 \
			"$(grep -c 'runs in user space' err.txt)"
	}

	# ... beside literal keys, a string and an integer, as the
	# book's uoncpu.d keys its stacks (@["\n  on-cpu:", ustack()]):
	# the literals are constants of the statement, the count made by
	# dtrace from the record as before (../d/stmt.c's
	# d_stmt_ukey_at()); as DTRACE_KAGG=0's.  The tree before kept the
	# clause in user space.
	if [ "$be" = bpf ]; then
		set -- -q -c './ustk-omit 3 2' \
			-n 'ustk$target:::fire { @["on-cpu:", ustack(), 7] = count(); }'
		ukey_run '@["on-cpu:", ustack(), 7]' "$@"
		mv out.txt lit.out
		DTRACE_KAGG=0 trun "$@"
		expect_file_eq "$be: @[\"on-cpu:\", ustack(), 7]: as DTRACE_KAGG=0's" \
			out.txt lit.out
		expect_eq "$be: @[\"on-cpu:\", ustack(), 7]: the counts" "7 2|7 3" \
			"$(awk '$1 == 7 { print $1, $2 }' lit.out | sort | tr '\n' '|' | sed 's/|$//')"
	fi

	# ... beside what every record carries (execname, the probe's
	# names, uid, gid, pid and tid): d_run_pre() evaluates them from
	# the record as the interpreter does (../d/stmt.c's record_key()),
	# as DTRACE_KAGG=0's (each run's own pid in its lines: the pid and
	# tid of the target's one thread, made P); the counts known.  The
	# tree before kept the clause in user space.
	if [ "$be" = bpf ]; then
		set -- -q -c './ustk-omit 3 2' \
			-n 'ustk$target:::fire { @[execname, probename, ustack(), uid, gid, pid, tid] = count(); }'
		ukey_run "record keys beside ustack()" "$@"
		awk 'NF == 5 && $3 == $4 { $3 = "P"; $4 = "P" } { print }' \
			out.txt >rec.out
		DTRACE_KAGG=0 trun "$@"
		awk 'NF == 5 && $3 == $4 { $3 = "P"; $4 = "P" } { print }' \
			out.txt >rec0.out
		expect_file_eq "$be: record keys beside ustack(): as DTRACE_KAGG=0's" \
			rec0.out rec.out
		expect_eq "$be: record keys beside ustack(): the counts" \
			"$(id -u) $(id -g) P P 2|$(id -u) $(id -g) P P 3" \
			"$(awk '$3 == "P" { print }' rec.out | sort | tr '\n' '|' | sed 's/|$//')"
		expect_eq "$be: record keys beside ustack(): execname and probename" \
			2 "$(grep -c '^ *ustk-omit  *fire *$' rec.out)"
	fi

	# ... under a predicate reading a self-> variable the kernel keeps
	# (both clauses the kernel's on bpf), ustack(2): the hits it passes
	{
		printf '\n\n'
		stack_abc ustk-omit | head -n 2
		printf '%17s\n\n' 1
		stack_dc ustk-omit | head -n 2
		printf '%17s\n' 2
	} >expected.txt
	set -- -q -c './ustk-omit 3 2' -n 'ustk$target:::fire { self->n++; }
		ustk$target:::fire /self->n > 1 && arg0 != 3/ {
		@[ustack(2)] = count(); }'
	kern_run "@[ustack(2)] under self->" "$uk_v" expected.txt "$@"
	if [ "$be" = bpf ]; then
		# ... before a copy that faults at every hit: counted all
		# the same, the faults said, as the generic program does (a
		# statement after the count that may end the clause from the
		# out area keeps the clause user space's)
		set -- -q -c './ustk-omit 3 2' -n 'ustk$target:::fire {
			@[ustack()] = count(); printf("%s", copyinstr(arg0)); }'
		trun "$@"
		sed 's/ustk[0-9]*/ustk/g' err.txt >fault.err
		mv out.txt fault.out
		DTRACE_CGEN=0 trun "$@"
		sed -i 's/ustk[0-9]*/ustk/g' err.txt
		expect_file_eq "$be: @[ustack()] before a fault: the output" \
			out.txt fault.out
		expect_file_eq "$be: @[ustack()] before a fault: the faults" \
			err.txt fault.err
	fi
}
for be in $backends; do
	bg_checks "be-$be" ustk_be "$be"
done
bg_join
unset DTRACE_BACKEND DTRACE_CGEN

# ustack(2), and %k (a stack not indented); -x stackindent
{
	echo
	stack_abc ustk-omit | head -n 2
	printf '\n'
	stack_abc ustk-omit | head -n 2 | sed 's/^ *//'
	echo
	stack_abc ustk-omit | head -n 1 | sed 's/^ */    /'
} >expected.txt
trun -q -c './ustk-omit 1 0' -n 'ustk$target:::fire { ustack(2); printf("%k", ustack(2)); }'
trun_a=$(cat out.txt)
trun -q -x stackindent=4 -c './ustk-omit 1 0' -n 'ustk$target:::fire { ustack(1); }'
printf '%s\n%s\n' "$trun_a" "$(cat out.txt)" >out.txt
expect_run "ustack(2), %k, stackindent" expected.txt

# ufunc(), usym(), umod(), uaddr() as DTrace prints them ("  %-50s"),
# printf's %A of an address and of ucaller, %s of a name; libc's module
b_c=$(ret ustk-omit b '<c>')
printf '  %-50s  %-50s  %-50s  %-50s  %-50s\n[%s] [%s] [%s]\n\n' \
	'ustk-omit`b' 'ustk-omit`b' 'ustk-omit' 'ustk-omit`b+0x4' \
	'libc.so.6' 'ustk-omit`b+0x4' "ustk-omit\`$b_c" 'ustk-omit`b' \
	>expected.txt
trun -q -c './ustk-omit 1 0' -n 'ustk$target:::fire {
	ufunc(arg1); usym(arg1); umod(arg1); uaddr(arg1 + 4); umod(arg2);
	printf("\n[%A] [%A] [%s]\n", arg1 + 4, ucaller, ufunc(ucaller)); }'
expect_run "ufunc usym umod uaddr %A ucaller" expected.txt

# as aggregation keys: one entry per function, whatever the address
printf '\n  %-50s  %-50s %16d\n' 'ustk-omit`b' 'ustk-omit' 3 >expected.txt
trun -q -c './ustk-omit 3 0' -n 'ustk$target:::fire {
	@[ufunc(ucaller), umod(ucaller)] = count(); }'
expect_run "ufunc() and umod() keys" expected.txt

# C++: demangled, and with -x mangled as the symbol table has it
pp_site=$(site ustkpp _ZN4shop4Cart8checkoutEi)
pp_main=$(ret ustkpp main '<_ZN4shop4Cart8checkoutEi>')
{
	echo
	frames ustkpp "shop::Cart::checkout(int)+${pp_site#*+}" "$pp_main"
	echo
	frames ustkpp "$pp_site" "$pp_main"
} >expected.txt
trun -q -c ./ustkpp -n 'ustk$target:::fire { ustack(2); }'
trun_a=$(cat out.txt)
trun -q -x mangled -c ./ustkpp -n 'ustk$target:::fire { ustack(2); }'
printf '%s\n%s\n' "$trun_a" "$(cat out.txt)" >out.txt
expect_run "C++ names" expected.txt

# -x srcline: the source line of each frame (the lines are marked in
# ustk.c: a caller's frame is the line of its call), and of uaddr() (b's
# first instruction: the line that names it)
line_of() {
	grep -n "/\* $1[ :*]" "$data/ustk.c" | cut -d: -f1
}
# (gcc's tables, and clang's, which have no .debug_aranges)
for bin in ustk-g ${clang:+ustk-clang-g}; do
	{
		echo
		printf '%14s%s`%s [ustk.c:%s]\n' \
			'' $bin "$(site $bin c)" "$(line_of FIRE)" \
			'' $bin "$(ret $bin b '<c>')" "$(line_of CALL_C)" \
			'' $bin "$(ret $bin a '<b>')" "$(line_of CALL_B)" \
			'' $bin "$(ret $bin main '<a>')" "$(line_of CALL_A)"
		printf '  %-50s\n\n' "$bin\`b [ustk.c:$(line_of B)]"
	} >expected.txt
	trun -q -x srcline -c "./$bin 1 0" -n 'ustk$target:::fire {
		ustack(4); uaddr(arg1); printf("\n"); }'
	expect_run "-x srcline, $bin" expected.txt
done

# Separate debug files: a program stripped of its symbols names its
# frames from the debug file its .gnu_debuglink names (next to it, in
# .debug/, checked by build-id, or by CRC where it has none) or that
# /usr/lib/debug/.build-id holds; one that another user owns is read
# through a copy (elfsafe.c); a file of another build, or whose CRC is
# wrong, names nothing (frames by address)
# split_dbg SRC NAME [DEBUG]: NAME is SRC stripped, linked to DEBUG (default
# NAME.debug) holding SRC's debug information
split_dbg() {
	cp "$1" "$2" && objcopy --only-keep-debug "$1" "${3:-$2.debug}" &&
		strip --strip-all "$2" &&
		objcopy --add-gnu-debuglink="${3:-$2.debug}" "$2" ||
		fail "splitting $1 into $2"
}
named_as() { stack_abc ustk-g | sed "s/ustk-g\`/$1\`/"; }
# unnamed NAME: the program's frames by address, libc's named
unnamed() {
	expect_eq "$1: status" 0 "$status"
	expect_eq "$1: frames by address" 5 "$(grep -c "^ *$1\`0x[0-9a-f]*$" out.txt)"
	expect_eq "$1: libc's named" 1 "$(grep -c '^ *libc\.so\.6`\.\.\.$' out.txt)"
}
# the debug file next to it, in .debug/, and another user's
split_dbg ustk-g ustk-dl
mkdir -p .debug own && split_dbg ustk-g ustk-ds .debug/ustk-ds.debug
split_dbg ustk-g own/ustk-du && chown -R nobody own 2>/dev/null
for bin in ustk-dl ustk-ds own/ustk-du; do
	{ echo; named_as "${bin#own/}"; echo; } >expected.txt
	trun -q -c "./$bin 1 0" -n 'ustk$target:::fire { ustack(); }'
	expect_run "separate debug file: $bin" expected.txt
done
# a debug file of another build: another build-id
$gcc -O1 -g -I. -c "$data/ustk.c" -o ustk-o1.o &&
	"$DTRACE" -G -s "$data/ustk.d" ustk-o1.o -o ustk-o1-p.o &&
	$gcc -o ustk-o1 ustk-o1.o ustk-o1-p.o || fail "building ustk-o1"
cp ustk-g ustk-dw && strip --strip-all ustk-dw &&
	objcopy --only-keep-debug ustk-o1 ustk-dw.debug &&
	objcopy --add-gnu-debuglink=ustk-dw.debug ustk-dw || fail "ustk-dw"
trun -q -c "./ustk-dw 1 0" -n 'ustk$target:::fire { ustack(); }'
unnamed ustk-dw
# no build-id: the link's CRC decides
$gcc -O2 -g -I. -c "$data/ustk.c" -o ustk-nb.o &&
	"$DTRACE" -G -s "$data/ustk.d" ustk-nb.o -o ustk-nb-p.o &&
	$gcc -Wl,--build-id=none -o ustk-nbid ustk-nb.o ustk-nb-p.o &&
	split_dbg ustk-nbid ustk-nb && split_dbg ustk-nbid ustk-nc ||
	fail "building ustk-nbid"
printf 'x' >>ustk-nc.debug
{ echo; stack_abc ustk-nbid | sed 's/ustk-nbid`/ustk-nb`/'; echo; } >expected.txt
trun -q -c "./ustk-nb 1 0" -n 'ustk$target:::fire { ustack(); }'
expect_run "separate debug file by CRC: ustk-nb" expected.txt
trun -q -c "./ustk-nc 1 0" -n 'ustk$target:::fire { ustack(); }'
unnamed ustk-nc
# /usr/lib/debug/.build-id, where root may write there
bid=$(readelf -n ustk-g | awk '/Build ID:/ { print $3; exit }')
bdir=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)
bfile=$bdir/$(echo "$bid" | cut -c3-).debug
if [ -n "$bid" ] && [ ! -e "$bfile" ] && mkdir -p "$bdir" 2>/dev/null &&
   objcopy --only-keep-debug ustk-g "$bfile" 2>/dev/null; then
	cp ustk-g ustk-bi && strip --strip-all ustk-bi
	trun -q -c "./ustk-bi 1 0" -n 'ustk$target:::fire { ustack(); }'
	rm -f "$bfile"
	rmdir "$bdir" 2>/dev/null
	{ echo; named_as ustk-bi; echo; } >expected.txt
	expect_run "debug file by build-id under /usr/lib/debug" expected.txt
else
	echo "# /usr/lib/debug/.build-id not writable: its case not run"
fi

# -x oformat=json: a stack key is an array of frames
{
	printf '{"aggregation":"","keys":[['
	stack_dc ustk-omit | head -n 3 | sed 's/^ *//; s/.*/"&"/' | paste -s -d, -
	printf '],"libc.so.6"],"value":1}\n'
} | tr -d '\n' >expected.txt
echo >>expected.txt
trun -q -x oformat=json -c './ustk-omit 0 1' -n 'ustk$target:::fire {
	@[ustack(3), umod(arg2)] = count(); }'
expect_run "-x oformat=json" expected.txt

# A traced process that is not dtrace's child fires and exits before
# dtrace reads its records: /proc has nothing of it any more, and the
# names come from the modules dtrace read while it ran
rm -f go.in raw.txt
mkfifo go.in
exec 3<>go.in
./ustk-omit 1 0 wait <&3 &
target=$!
bg_pids="$bg_pids $target"
exec_seen "$target" ustk-omit
timeout -s KILL 120 "$DTRACE" -q -p "$target" -o raw.txt \
	-n 'BEGIN { printf("ready\n"); } ustk$target:::fire { ustack(); }' \
	2>err.txt &
dpid=$!
bg_pids="$bg_pids $dpid"
if wait_until 600 grep -qs '^ready$' raw.txt; then
	echo go >&3
	wait "$target"
	forget_pid "$target"
	wait "$dpid"
	status=$?
	forget_pid "$dpid"
	awk '/^ *libc\.so\.6`/ { if (!inlibc) printf "%14slibc.so.6`...\n", ""
				inlibc = 1; next }
	     { inlibc = 0; print }' raw.txt >out.txt
	{ echo ready; echo; stack_abc ustk-omit; echo; } >expected.txt
	expect_run "-p process gone before its records are read" expected.txt
else
	fail "dtrace -p did not start: $(cat err.txt)"
fi
exec 3>&-

# A stack deeper than the copy, of a process gone before its record is
# read (dtrace is stopped meanwhile, so the live process cannot be
# read): the unwinder runs out of copied bytes, and the stack says so
# in its last line, and in JSON as {"truncated": bytes copied}
cat >deep.c <<'C'
#include <unistd.h>
int rec(int n)
{
	volatile char pad[300];

	pad[0] = (char)n;
	if (n == 0)
		return pad[0];
	return rec(n - 1) + pad[0];
}
int main(void)
{
	char go[8];

	if (read(0, go, sizeof(go)) <= 0)
		return 2;
	return rec(60) & 1;
}
C
$CC -O0 -o deep deep.c || fail "cannot build deep"
# deep_run D-ARGS...: ./deep fires, and exits, while dtrace is stopped
deep_run() {
	rm -f go.in raw.txt
	mkfifo go.in
	exec 3<>go.in
	./deep <&3 &
	target=$!
	bg_pids="$bg_pids $target"
	exec_seen "$target" deep
	# dtrace itself (not timeout) is stopped: it ends with its -p
	"$DTRACE" -q -p "$target" -o raw.txt -x ustacksize=1k "$@" \
		2>err.txt &
	dpid=$!
	bg_pids="$bg_pids $dpid"
	if wait_until 600 grep -qs 'ready' raw.txt; then
		kill -STOP "$dpid"
		# stopped (state T) before the target fires
		wait_until 100 awk '{ sub(/.*\) /, ""); exit $1 != "T" }' \
			"/proc/$dpid/stat" ||
			fail "dtrace did not stop"
		echo go >&3
		# it exits while dtrace is stopped; dtrace is its tracer
		# (consumer/dlhold.c), so its parent sees the exit only once
		# dtrace runs again: a zombie until then
		wait_until 600 awk '{ sub(/.*\) /, ""); exit $1 != "Z" }' \
			"/proc/$target/stat" ||
			fail "the target did not exit while dtrace was stopped"
		kill -CONT "$dpid"
		wait "$target"
		forget_pid "$target"
		wait "$dpid"
		status=$?
		forget_pid "$dpid"
	else
		status=1
		fail "dtrace -p did not start: $(cat err.txt)"
	fi
	exec 3>&-
}
deep_run -n 'BEGIN { printf("ready\n"); }
	pid$target::rec:entry /arg0 == 0/ { ustack(); }'
expect_eq "copy ran out: exit status" 0 "$status"
awk 'NF == 0 || $1 == "ready" { next }
     { last = $0; if (prev != "" && prev !~ /^              deep`rec(\+0x[0-9a-f]+)?$/) bad = 1
       prev = $0; n++ }
     END { if (bad || n < 2 ||
		last !~ /^              \[truncated: [0-9]+ bytes of stack copied\]$/) exit 1
	   split(last, w, /[: ]+/); if (w[3] < 1024) exit 1 }' raw.txt ||
	fail "copy ran out: the frames of rec, then the marker: $(cat raw.txt err.txt)"
deep_run -x oformat=json -n 'BEGIN { printf("ready\n"); }
	pid$target::rec:entry /arg0 == 0/ { @[ustack()] = count(); }'
expect_eq "copy ran out, JSON: exit status" 0 "$status"
grep -Eq '^\{"aggregation":"","keys":\[\["deep`rec"(,"deep`rec\+0x[0-9a-f]+")+,\{"truncated":[0-9]+\}\]\],"value":1\}$' raw.txt ||
	fail "copy ran out, JSON: frames then {\"truncated\": N}: $(cat raw.txt err.txt)"

# A traced process that exec()s another program: its new image gets a
# session of its own once dtrace has read the exec record; until then
# the first session (made from the first program's maps) is reported
# the new program's modules, and the first program's are freed.  libdwfl unwound with the libebl
# backend of the first module it had, freed with it (libdw's state_alloc()
# assertion aborted dtrace, as python3 -c pass did under pyenv, whose
# python3 is a bash script); glibc's MALLOC_PERTURB_ without the tcache
# fills what dtrace frees, so a read of it fails every time
cat >execer.c <<'C'
#include <unistd.h>
__attribute__((noinline)) void tick(void)
{
	__asm__ volatile("");
}
int main(int argc, char **argv)
{
	char go[8];

	/* one line at a time: traced, then read, then exec */
	if (argc < 2 || read(0, go, 3) != 3)
		return 2;
	tick();
	if (read(0, go, 3) != 3)
		return 2;
	execv(argv[1], argv + 1);
	return 3;
}
C
$CC -O0 -o execer execer.c || fail "cannot build execer"
rm -f go.in raw.txt
mkfifo go.in
exec 3<>go.in
./execer /bin/ls / <&3 >/dev/null &
target=$!
bg_pids="$bg_pids $target"
exec_seen "$target" execer
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MALLOC_PERTURB_=165 \
	timeout -s KILL 120 "$DTRACE" -q -p "$target" -o raw.txt -n '
	BEGIN { printf("ready\n"); }
	pid$target:execer:tick:entry { ustack(); printf("ticked\n"); }
	pid$target:libc.so.6:malloc:entry { @[ustack(4)] = count(); }' \
	2>err.txt &
dpid=$!
bg_pids="$bg_pids $dpid"
if wait_until 600 grep -qs '^ready$' raw.txt; then
	echo go >&3
	wait_until 600 grep -qs '^ticked$' raw.txt ||
		fail "exec: the first program's hit was not read"
	echo go >&3
	wait "$target"
	forget_pid "$target"
	wait "$dpid"
	status=$?
	forget_pid "$dpid"
	expect_eq "exec: exit status" 0 "$status"
	expect_grep "exec: the first program's stack" \
		'^ *execer`tick$' raw.txt
	# ls's calls of malloc, unwound into ls itself
	awk '/^ *libc\.so\.6`(__libc_)?malloc$/ { m = 1; next }
	     /^ *[0-9]+$/ { m = 0 } m && /^ *ls`/ { ok = 1 }
	     END { exit !ok }' raw.txt ||
		fail "exec: no stack from malloc into ls: $(cat raw.txt err.txt)"
else
	fail "dtrace -p did not start: $(cat err.txt)"
fi
exec 3>&-

# A hit recorded before its process exec()s, read after: it is unwound
# and named with the modules of the image that fired it, not those of
# the new image /proc/PID/maps lists by then.  dtrace is stopped while
# execnow fires and execs sleep; without address randomisation (setarch
# -R) both programs load at the same address, so the new image's
# modules would name execnow's frames as sleep's.
cat >execnow.c <<'C'
#include <unistd.h>
__attribute__((noinline)) void tick(void)
{
	__asm__ volatile("");
}
int main(int argc, char **argv)
{
	char go[8];

	if (argc < 2 || read(0, go, 3) != 3)
		return 2;
	tick();
	execv(argv[1], argv + 1);
	return 3;
}
C
$CC -O0 -o execnow execnow.c || fail "cannot build execnow"
if setarch -R true 2>/dev/null; then
	rm -f go.in raw.txt
	mkfifo go.in
	exec 3<>go.in
	setarch -R ./execnow /bin/sleep 1 <&3 &
	target=$!
	bg_pids="$bg_pids $target"
	# setarch has exec()d execnow
	exec_seen "$target" execnow
	"$DTRACE" -q -p "$target" -o raw.txt -n '
	BEGIN { printf("ready\n"); }
	pid$target:execnow:tick:entry { ustack(); printf("%s\n", ufunc(ucaller)); }' \
		2>err.txt &
	dpid=$!
	bg_pids="$bg_pids $dpid"
	if wait_until 600 grep -qs '^ready$' raw.txt; then
		kill -STOP "$dpid"
		wait_until 100 awk '{ sub(/.*\) /, ""); exit $1 != "T" }' \
			"/proc/$dpid/stat" ||
			fail "dtrace did not stop"
		echo go >&3
		# sleep runs (or waits for its tracer) before dtrace reads
		wait_until 600 sh -c \
			"readlink /proc/$target/exe | grep -q sleep" ||
			fail "execnow did not exec sleep"
		kill -CONT "$dpid"
		wait "$target"
		forget_pid "$target"
		wait "$dpid"
		status=$?
		forget_pid "$dpid"
		expect_eq "exec after the hit: exit status" 0 "$status"
		awk '/^ *execnow`tick$/ { t = 1; next }
		     t == 1 && /^ *execnow`main\+0x[0-9a-f]+$/ { t = 2; next }
		     /^execnow`main$/ { f = 1 }
		     /sleep`/ { bad = 1 }
		     END { exit !(t == 2 && f && !bad) }' raw.txt ||
			fail "exec after the hit: execnow's frames: $(cat raw.txt err.txt)"
	else
		fail "dtrace -p did not start: $(cat err.txt)"
	fi
	exec 3>&-
fi

# A library dlclose()d and another dlopen()ed at the same address while
# hits are being read (dlswap.c): each hit is named from the files mapped
# at its time.  arg0 says which library's frames the stack holds (0:
# dlswapa.so's alpha, 1: dlswapb.so's bravo).  dlswap_check FILE: no
# frame of the other library's (nor the library named with the other's
# functions); prints the hits of each, their named frames and the bare
# addresses among the frames.
for l in a b; do
	$CC -O2 -fPIC -shared -o "dlswap$l.so" "$data/dlswap$l.c" ||
		fail "building dlswap$l.so"
done
$CC -O2 -o dlswap "$data/dlswap.c" -ldl || fail "building dlswap"
dlswap_check() {
	awk '/^lib=/ { lib = substr($1, 5) + 0; n[lib]++; next }
	     /dlswap[ab]\.so`|alpha|bravo/ {
		if (lib == 0 && /^ *dlswapa\.so`alpha(_inner)?\+0x/) a++
		else if (lib == 1 && /^ *dlswapb\.so`bravo(_inner)?\+0x/) b++
		else bad++ }
	     /^ *0x[0-9a-f]+$/ { hex++ }
	     END { printf "%d %d %d %d %d %d\n", n[0], n[1], a, b, bad, hex }' "$1"
}
dlswap_d='pid$target::probe_here:entry { printf("lib=%d", arg0); ustack(4); }'
if [ "${HAVE_BPF:-no}" = yes ]; then
	# held at each dlopen() (dlhold.c): every frame named, exactly
	for be in bpf uprobe; do
		DTRACE_BACKEND=$be
		export DTRACE_BACKEND
		trun -q -c "./dlswap 6 0 20 $PWD" -n "$dlswap_d"
		unset DTRACE_BACKEND
		expect_eq "$be: dlclose() and dlopen() at one address: exit status" 0 "$status"
		expect_eq "$be: each hit named from the library mapped at its time" \
			"30 30 60 60 0 0" "$(dlswap_check raw.txt)"
	done
fi
# ufunc(), umod() and %A of an address in the library, in a program that
# reads no stack: the names are dated as a stack's frames are
# (D_NEED_UNAME: the texts kept, the fork tracker's mapping records),
# each hit's from the library mapped at its time, three ways (before,
# every hit was named from the first text read: bravo's as alpha's).
# The same names as aggregation keys, @[ufunc(E)] = count() and its kin
# (one key, the name, no value: d/stmt.c's d_stmt_uname()), beside the
# printf() and in a clause of their own under a predicate: with the
# generated programs the kernel's clauses (-v: kplan_out.c's "Keys by a
# user address's name"), E written into the out area at the hit and the
# count made by dtrace from the record, named from its pid and time,
# the printa() output the same byte for byte as DTRACE_KAGG=0's and
# DTRACE_CGEN=0's (both user space's; so was every such clause on the
# binary before, whose -v said "key 1, ufunc(), a string the kernel
# does not key by"); a clause with an if stays user space's, -v saying
# why (d_stmts_prints() knows no key's statement), and so does a name of
# an address the plan does not compute (ucaller), -v giving the
# address's reason (the binary before said the string's).  A name key
# before a printf() of names of integer leaves is the kernel's (it was
# refused before, -v giving the string's reason); a name key and a
# stack key before a name key whose copy faults at every hit are user
# space's, -v saying why, their counts made before the fault as the
# interpreter makes them (before, the kernel's, the counts lost: the
# fault reported from the area before d_run_pre() made them)
if [ "${HAVE_BPF:-no}" = yes ]; then
	printf '\n' >dlfa.exp
	for k in 'dlswapa.so`alpha 30' 'dlswapb.so`bravo 30' \
		'dlswapa.so 30' 'dlswapb.so 30' 'dlswapa.so`alpha 30' \
		'dlswapb.so`bravo 30' 'dlswapa.so`alpha+0x4 30' \
		'dlswapb.so`bravo+0x4 30' 'dlswapb.so`bravo 30' \
		'dlswapa.so 30' 'dlswap`main 60' 'dlswapa.so`alpha 30' \
		'dlswapb.so`bravo 30' 'dlswapa.so`alpha 30' \
		'dlswapb.so`bravo 30'; do
		printf '  %-50s %16d\n' "${k% *}" "${k##* }"
	done >>dlfa.exp
	printf '\n%14s%s\n%15s%d\n' '' 'dlswap`probe_fn' '' 60 >>dlfa.exp
	for m in 1 k 0; do
		case $m in
		k) me="DTRACE_KAGG=0" ;;
		*) me="DTRACE_CGEN=$m" ;;
		esac
		env "$me" timeout -s KILL 120 "$DTRACE" -v -q -o "dlfn$m.txt" \
			-c "./dlswap 6 0 20 $PWD" -n 'pid$target::probe_fn:entry {
			printf("%d %s %s %A\n", arg0, ufunc(arg1), umod(arg1), arg1);
			@f[ufunc(arg1)] = count(); @m[umod(arg1)] = count();
			@s[usym(arg1)] = count(); @a[uaddr(arg1 + 4)] = count(); }' \
			-n 'pid$target::probe_fn:entry /arg0 == 1/ {
			@b[ufunc(arg1)] = count(); }' \
			-n 'pid$target::probe_fn:entry {
			if (arg0 == 0) { @c[umod(arg1)] = count(); } }' \
			-n 'pid$target::probe_fn:entry { @u[ufunc(ucaller)] = count(); }' \
			-n 'pid$target::probe_fn:entry { @n[ufunc(arg1)] = count();
			printf("%d %s %s %A\n", arg0, ufunc(arg1), umod(arg1), arg1); }' \
			-n 'pid$target::probe_fn:entry { @g[ufunc(arg1)] = count();
			@h[ufunc(strlen(copyinstr(arg0)))] = count(); }' \
			-n 'pid$target::probe_fn:entry { @k[ustack(1)] = count();
			@h[ufunc(strlen(copyinstr(arg0 + 1)))] = count(); }' \
			2>"dlfn$m.err" </dev/null
		expect_eq "ufunc() of a swapped library ($me): exit status" 0 "$?"
		grep '^[01] ' "dlfn$m.txt" | sort | uniq -c | sed 's/^ *//' \
			>"dlfn$m.cnt"
		printf '%s\n' \
			'60 0 dlswapa.so`alpha dlswapa.so dlswapa.so`alpha' \
			'60 1 dlswapb.so`bravo dlswapb.so dlswapb.so`bravo' >dlfn.exp
		expect_file_eq "ufunc() of a swapped library ($me): each hit's library" \
			dlfn.exp "dlfn$m.cnt"
		grep -v '^[01] ' "dlfn$m.txt" >"dlfa$m.txt"
		expect_eq "@h[ufunc(strlen(copyinstr(0)))] ($me): each hit's fault" \
			120 "$(grep -c '^dtrace: error .*invalid address' "dlfn$m.err")"
		expect_file_eq "@[ufunc()] and kin of a swapped library ($me): each hit's library" \
			dlfa.exp "dlfa$m.txt"
		[ "$m" = 1 ] || continue
		expect_grep "@[ufunc()] and kin: the clauses the kernel's" \
			"^dtrace: 4 clauses keying by a user address's name in the kernel, each count made from its record$" \
			"dlfn$m.err"
		expect_grep "@[umod()] under an if: user space's" \
			'^dtrace: clause 3 (.*) runs in user space, from its record: line 2: a clause with an if statement' \
			"dlfn$m.err"
		# (ucaller's name: the record carries the stack, dtrace
		# names frame 1 from it: ../d/stmt.c's d_stmt_ucall())
		expect_eq "@[ufunc(ucaller)]: the kernel's" 0 \
			"$(grep -c '^dtrace: clause 4 (.*) runs in user space' "dlfn$m.err")"
		expect_grep "@g[ufunc()] before a name key's copy: user space's, -v saying why" \
			"^dtrace: clause 6 (.*) runs in user space, from its record: line 1: its @g = count() is not one the kernel runs: key 1, ufunc(): a statement after it may end the clause from the area (a copy's fault) before its count is made$" \
			"dlfn$m.err"
		expect_grep "@k[ustack()] before a name key's copy: user space's, -v saying why" \
			"^dtrace: clause 7 (.*) runs in user space, from its record: line 1: its @k = count() is not one the kernel runs: key 1, ustack(): a statement after it may end the clause from the area (a copy's fault) before its count is made$" \
			"dlfn$m.err"
		expect_eq "@[ufunc()] and kin: no other clause in user space" \
			3 "$(grep -c 'runs in user space' "dlfn$m.err")"
	done
	# ... in a program that prints nothing, whose generated program
	# gets its out area for the key (kplan_out.c's d_kplan_out_any();
	# without it the plan was refused and the event left the
	# record-only program, -v counting no clause)
	timeout -s KILL 120 "$DTRACE" -v -q -o dlfs.txt \
		-c "./dlswap 2 0 1 $PWD" -n 'pid$target::probe_fn:entry {
		@[usym(arg1)] = count(); }' 2>dlfs.err </dev/null
	expect_eq "@[usym()] alone: exit status" 0 "$?"
	{
		printf '\n'
		printf '  %-50s %16d\n' 'dlswapa.so`alpha' 10 \
			'dlswapb.so`bravo' 10
	} >dlfs.exp
	expect_file_eq "@[usym()] alone: each hit's library" dlfs.exp dlfs.txt
	expect_grep "@[usym()] alone: the clause the kernel's" \
		"^dtrace: 1 clause keying by a user address's name in the kernel" \
		dlfs.err
	# ... with a value (sum(), max()): the value computed at the hit
	# into the area beside the key's address, d_agg_update() taking
	# both (../d/stmt.c's d_stmt_uname()); ucaller's name (the
	# toolkit's *_malloc.d: the record's stack, frame 1 named by
	# dtrace: d_stmt_ucall()) and a stack key (py_mallocstk.d) with a
	# value too; as DTRACE_KAGG=0's, the sums known.  The tree before
	# kept each such clause in user space.
	for m in 1 k; do
		case $m in
		k) me="DTRACE_KAGG=0" ;;
		*) me="DTRACE_CGEN=1" ;;
		esac
		env "$me" timeout -s KILL 120 "$DTRACE" -v -q -o "dlfv$m.txt" \
			-c "./dlswap 2 0 1 $PWD" -n 'pid$target::probe_fn:entry {
			@s[usym(arg1)] = sum(arg0 + 1);
			@x[uaddr(arg1)] = max(arg0 * 7 + 1); }' \
			-n 'pid$target::probe_fn:entry {
			@u[usym(ucaller)] = sum(arg0 + 1); }' \
			-n 'pid$target::probe_fn:entry {
			@k[ustack(1)] = quantize(arg0); }' \
			2>"dlfv$m.err" </dev/null
		expect_eq "@[usym()] = sum() ($me): exit status" 0 "$?"
	done
	expect_file_eq "@[usym()] = sum(): as DTRACE_KAGG=0's" dlfvk.txt dlfv1.txt
	expect_eq "@[usym()] = sum(): the sums (ucaller's main's 30)" \
		'dlswapa.so`alpha 10|dlswapb.so`bravo 20|dlswap`main 30' \
		"$(awk 'NF == 2 && $2 >= 10' dlfv1.txt | tr -s ' ' | sed 's/^ //' |
			tr '\n' '|' | sed 's/|$//')"
	expect_grep "@[usym()] = sum(): the clauses the kernel's" \
		"^dtrace: 2 clauses keying by a user address's name in the kernel" \
		dlfv1.err
	expect_grep "@[ustack(1)] = quantize(): the clause the kernel's" \
		"^dtrace: 1 clause keying by the user stack in the kernel" \
		dlfv1.err
fi
# Not held (strace has the process, so dtrace cannot seize it): the fork
# tracker's records of executable mappings (PERF_RECORD_MMAP2, stamped
# on the hits' clock) date each frame's file at its hit (ustack.c's
# mapped_at()): every frame is named from the library mapped there at
# its time, or, where no text of that library was read (swapped in and
# out between two reads), given as its address, said at most once;
# never named from the other library.  Twice: 40 rounds of 20 ms, where
# dtrace reads the maps within each round (some frames named; before
# the records, the texts around each hit differed there and none was),
# and 100 of 2 ms, where libraries are swapped out and back between two
# reads (doc/DESIGN.md §13), which named frames from the other library
# before the records (80-430 of 1000 frames in each of 6 runs at 2-5
# ms; a dtrace slowed by the load may read the maps only once the
# process is gone, and then name none).  With the stacks copied
# (DTRACE_USTACK_WALK=0): the walk's small records leave dtrace reading,
# and so reading the maps, less often.
dlswap_unheld() { # ROUND_MS ROUNDS [BACKEND]
	rm -f go.in raw.txt
	mkfifo go.in
	exec 3<>go.in
	strace -f -o /dev/null ./dlswap "$2" - "$1" "$PWD" <&3 &
	tracer=$!
	bg_pids="$bg_pids $tracer"
	wait_until 600 sh -c "pgrep -P $tracer -x dlswap >/dev/null" ||
		fail "strace did not run dlswap"
	target=$(pgrep -P "$tracer" -x dlswap)
	DTRACE_BACKEND=${3:-${DTRACE_BACKEND:-}} DTRACE_USTACK_WALK=0 \
		"$DTRACE" -q -p "$target" -o raw.txt \
		-n 'BEGIN { printf("ready\n"); }' \
		-n "$dlswap_d" 2>err.txt &
	dpid=$!
	bg_pids="$bg_pids $dpid"
	if wait_until 600 grep -qs '^ready$' raw.txt; then
		echo go >&3
		wait "$tracer"
		forget_pid "$tracer"
		wait "$dpid"
		status=$?
		forget_pid "$dpid"
		expect_eq "not held, $1 ms${3:+ ($3)}: exit status" 0 "$status"
		dlswap_check raw.txt | {
			read -r n0 n1 a b bad hex
			[ "$bad" -eq 0 ] && [ $((n0 + n1)) -gt 0 ] &&
				{ [ "$1" -lt 20 ] || [ $((a + b)) -gt 0 ]; }
		} || fail "not held, $1 ms${3:+ ($3)}: frames: $(dlswap_check raw.txt): $(cat raw.txt)"
		[ "$(grep -c 'frames there are given as addresses' err.txt)" \
			-le 1 ] ||
			fail "not held, $1 ms${3:+ ($3)}: withheld names said more than once: $(cat err.txt)"
	else
		fail "dtrace -p did not start: $(cat err.txt)"
	fi
	exec 3>&-
}
if command -v strace >/dev/null 2>&1; then
	dlswap_unheld 20 40
	dlswap_unheld 2 100
	# the uprobe backend's tracker too, where the BPF one is the default
	[ "${HAVE_BPF:-no}" = yes ] && dlswap_unheld 2 100 uprobe
fi

# The stack walked in the kernel (bpf backend, generated programs:
# dtrace-G/consumer/bpf/unw.bpf.c, ustack_walk.c) gives what dtrace
# gives unwinding the copy with the walk off (DTRACE_USTACK_WALK=0),
# byte for byte: uwalk.c's stacks without frame pointers (a callback
# from libc's qsort(), recursion within and past the walk's 128 frames,
# a frame whose CFA is rbp's, a signal handler, rsp just below a page's
# end with the callers above it: the walk's first read goes on into the
# next page), in two images (it
# exec()s itself), and dlswap's libraries swapped at one address (each
# round's hits find the tables of the library before, whose file the
# walk's bpf_find_vma() check finds changed: they are copied).  -v
# counts the stacks walked and copied: some walked (a walk that never
# ran fails here), none with the walk off, and at least the 40 the walk
# must hand back (past 128 frames, a signal frame: 2 a round, 20 rounds).
# setarch -R: the same addresses in both runs (__restore_rt is printed
# as one).
if [ "${HAVE_BPF:-no}" = yes ] && [ "$(uname -m)" = x86_64 ] &&
	command -v setarch >/dev/null 2>&1; then
	$gcc -O2 -fomit-frame-pointer -I. -c "$data/uwalk.c" -o uwalk.o &&
		"$DTRACE" -G -s "$data/ustk.d" uwalk.o -o uwalk-p.o &&
		$gcc -o uwalk uwalk.o uwalk-p.o || fail "building uwalk"
	# uwstart WALK NAME ARGS...: dtrace -v with the walk on (1: loaded
	# before the command goes, DTRACE_USTACK_WALK=start, so that the
	# counts below do not wait on its loading's thread) or off (0)
	# started in the background: NAME.txt, NAME.err; uwend NAME:
	# its end, its status checked, its walked and copied counts (from
	# NAME.err) in $walked; uwrun: the two.  Each pair below, uwstart
	# 0 NAME0 and uwstart 1 NAME1, runs side by side and is compared
	# once both have ended (doc/DESIGN.md §11, item 10): each run has
	# its own -c process and files, and the counts are checked against
	# bounds or sums, not an idle machine's split (side by side at a
	# load of 17-35 on 2 CPUs: uwalk1 189-200 walked, 60-71 copied;
	# uwswap1 50-60 walked; uwpgoff1 3 walked, 5 copied)
	uwstart() {
		uw_w=$1
		uw_n=$2
		shift 2
		[ "$uw_w" != 1 ] || uw_w=start
		# every run's environment as long (the value's length
		# made up): the stack's place, so pgend()'s frames, moves
		# with it (make check's environment left uwalk0 one pgend()
		# frame more than uwalk1's "start", each round)
		uw_pad=$(printf '%*s' $((5 - ${#uw_w})) '')
		UW_PAD=$uw_pad DTRACE_USTACK_WALK=$uw_w DTRACE_BACKEND=bpf \
			setarch -R \
			timeout -s KILL 120 "$DTRACE" -v -q "$@" \
			>"$uw_n.txt" 2>"$uw_n.err" </dev/null &
		eval "uw_pid_$uw_n=\$!"
		bg_pids="$bg_pids $!"
	}
	uwend() {
		eval "uw_p=\$uw_pid_$1"
		wait "$uw_p"
		expect_eq "$1: exit status" 0 $?
		forget_pid "$uw_p"
		walked=$(sed -n 's/^dtrace: BPF: user stacks: \([0-9]*\) walked in the kernel, \([0-9]*\) copied$/\1 \2/p' "$1.err")
	}
	uwrun() {
		uwstart "$@"
		uwend "$2"
	}
	# (and printed by a clause the kernel runs: the record's pcs or
	# copy, formatted by dtrace, kplan_out.c's OSTK)
	for w in 0 1; do
		uwstart $w uwalk$w -c './uwalk 10 exec' \
			-n 'ustk$target:::fire { @[ustack()] = count(); }' \
			-n 'ustk$target:::fire { trace(ustack()); }'
	done
	uwend uwalk0
	expect_eq "uwalk, walk off: none walked" 0 "${walked%% *}"
	uwend uwalk1
	expect_file_eq "uwalk: stacks walked in the kernel as unwound copies" \
		uwalk0.txt uwalk1.txt
	expect_grep "uwalk: trace(ustack()) in the kernel" \
		'^dtrace: 1 clause printing values computed in the kernel$' \
		uwalk1.err
	[ "${walked%% *}" -gt 0 ] && [ "${walked#* }" -ge 40 ] ||
		fail "uwalk: walked and copied: ${walked:-none said}: $(cat uwalk1.err)"
	# The default (DTRACE_USTACK_WALK unset): the unwinder loads on a
	# thread of its own while the run goes on (ustack_walk.c's
	# uw_fill()), the stacks copied until it is in.  uwalk waits for
	# -v's line saying it loaded (UWALK_WAIT), so that its rounds after
	# the first are walked; the output is the copy's, whose uwalk waits
	# on a file of a name as long that says so already (the stack's
	# place, and so pgend()'s frames, moves with the environment's
	# size).  A run that ends before the loading does (no hit: uwalk
	# 0) gives it up: no word of it (libbpf's or -v's "no stack
	# walk"), status 0.
	echo 'dtrace: BPF: the stack walk in the kernel for site links loaded' \
		>uwdef0.rdy
	UWALK_WAIT=$PWD/uwdef1.err
	export UWALK_WAIT
	uwstart '' uwdef1 -c './uwalk 10 exec' \
		-n 'ustk$target:::fire { @[ustack()] = count(); }' \
		-n 'ustk$target:::fire { trace(ustack()); }'
	UWALK_WAIT=$PWD/uwdef0.rdy
	uwstart 0 uwdef0 -c './uwalk 10 exec' \
		-n 'ustk$target:::fire { @[ustack()] = count(); }' \
		-n 'ustk$target:::fire { trace(ustack()); }'
	unset UWALK_WAIT
	uwstart '' uwnone -c './uwalk 0' \
		-n 'ustk$target:::fire { @[ustack()] = count(); }'
	uwend uwdef0
	uwdef_n=$((${walked%% *} + ${walked#* }))
	uwend uwdef1
	expect_file_eq "uwalk, the unwinder loaded meanwhile: as unwound copies" \
		uwdef0.txt uwdef1.txt
	expect_grep "uwalk, the unwinder loaded meanwhile: -v says it loaded" \
		'^dtrace: BPF: the stack walk in the kernel for site links loaded, [0-9]* ms after its start$' \
		uwdef1.err
	[ "${walked%% *}" -gt 0 ] &&
		[ "$((${walked%% *} + ${walked#* }))" -eq "$uwdef_n" ] ||
		fail "uwalk, the unwinder loaded meanwhile: walked and copied: ${walked:-none said} (some walked, $uwdef_n in all): $(cat uwdef1.err)"
	uwend uwnone
	expect_eq "uwalk 0, the loading given up: nothing said of it" "" \
		"$(grep -e libbpf -e 'no stack walk' uwnone.err)"
	uwstart 0 dlswap0 -c "./dlswap 6 0 20 $PWD" -n "$dlswap_d"
	uwstart 1 dlswap1 -c "./dlswap 6 0 20 $PWD" -n "$dlswap_d"
	uwend dlswap0
	uwend dlswap1
	expect_file_eq "dlswap: stacks walked in the kernel as unwound copies" \
		dlswap0.txt dlswap1.txt
	expect_eq "dlswap: every hit's stack walked or copied" 60 \
		"$((${walked%% *} + ${walked#* }))"
	# The walk's checks a thread made, reused while the mappings are
	# unchanged (mm_lock_seq, where the kernel has it): uwswap[ab].c as
	# dlswap's libraries, two batches a round, so that the second is
	# walked with its own library's tables, checked once, and the next
	# round's first hits meet the other library where those tables put
	# the first: they must be checked again.  Unchecked, a's rows (64
	# KiB of "outermost frame" where b has its code) would end b's
	# stacks after two frames.
	mkdir -p uw
	for l in a b; do
		$gcc -O2 -fPIC -shared -fno-toplevel-reorder \
			-o "uw/dlswap$l.so" "$data/uwswap$l.c" ||
			fail "building uw/dlswap$l.so"
	done
	uw_at() { nm "$1" | awk -v s="$2" '$3 == s { print $1 }'; }
	uw_a=$(uw_at uw/dlswapa.so uw_block) uw_b=$(uw_at uw/dlswapb.so bravo_inner)
	[ -n "$uw_a" ] && [ -n "$uw_b" ] &&
		[ $((0x$uw_a)) -le $((0x$uw_b)) ] &&
		[ $((0x$uw_b)) -lt $((0x$uw_a + 65536)) ] ||
		fail "uwswap: bravo_inner ($uw_b) not within a's block ($uw_a)"
	uwstart 0 uwswap0 -c "./dlswap 6 0 50 $PWD/uw 2" -n "$dlswap_d"
	uwstart 1 uwswap1 -c "./dlswap 6 0 50 $PWD/uw 2" -n "$dlswap_d"
	uwend uwswap0
	uwend uwswap1
	expect_file_eq "uwswap: checks reused only while the mappings hold" \
		uwswap0.txt uwswap1.txt
	[ "${walked%% *}" -gt 0 ] ||
		fail "uwswap: none walked: ${walked:-none said}: $(cat uwswap1.err)"
	# The same file mapped again at the same addresses from another
	# offset (uwpgoffm.c: the library's text mapped one page further on,
	# pg_b's code where pg_a's was): the tables were made for the first
	# mapping, whose device, inode and range the new one shares; the
	# walk's check of the file offset too (vm_pgoff) must find it changed
	# and hand the first hit after it back to the copy.  The copy's
	# stacks and the walk's, byte for byte, save the library's frame:
	# whether dtrace names it or gives it as an address (a hit read
	# before dtrace read the new maps) depends on when dtrace reads the
	# maps, in either run.  Named, it is pg_a before the new mapping and
	# pg_b after it (libdwfl's module of the file keeps the first
	# mapping's bias: ustack.c's us_mod_at() looks the byte up where the
	# file has it), and after it the stack ends at that frame (its CFI
	# would be read at pg_a's rows): uwpgoff_ck.  -v's counts: the first
	# hit and the first after the new mapping copied, at least (a walk
	# without the offset check copies only the first: 7 walked, 1 copied
	# on an idle machine).
	$gcc -O2 -fomit-frame-pointer -fPIC -shared -fno-toplevel-reorder \
		-o uw/libuwpgoff.so "$data/uwpgoff.c" &&
		$gcc -O2 -fomit-frame-pointer -o uwpgoff "$data/uwpgoffm.c" \
			-Luw -luwpgoff -Wl,-rpath,"$PWD/uw" ||
		fail "building uwpgoff"
	uw_a=$(uw_at uw/libuwpgoff.so pg_a) uw_b=$(uw_at uw/libuwpgoff.so pg_b)
	[ -n "$uw_a" ] && [ $((0x$uw_b - 0x$uw_a)) -eq 4096 ] ||
		fail "uwpgoff: pg_b ($uw_b) not a page after pg_a ($uw_a)"
	uwp_d='pid$target::uwp_fire:entry { printf("%d", arg0); ustack(); }'
	# each hit (arg0: 0-3 before the new mapping, 10-13 after) has one
	# frame of the library, pg_a before, pg_b after or an address, and
	# after the new mapping none past it
	uwpgoff_ck() {
		awk '/^[0-9]+$/ { if (h != "") ck(); h = $1; lib = 0; past = 0; next }
		NF == 0 { next }
		lib { past++ }
		/libuwpgoff\.so`|^ *0x[0-9a-f]*$/ {
			lib++
			w = h >= 10 ? "pg_b" : "pg_a"
			if ($1 !~ /^0x/ && $1 !~ ("^libuwpgoff\\.so`" w "\\+0x"))
				bad = bad " " h ":" $1
		}
		function ck() {
			if (lib != 1 || (h >= 10 && past)) bad = bad " " h
			n++
		}
		END { if (h != "") ck(); if (n != 8 || bad != "") { print n bad; exit 1 } }' "$1"
	}
	for w in 0 1; do
		uwstart $w uwpgoff$w -c './uwpgoff 4' -n "$uwp_d"
	done
	for w in 0 1; do
		uwend uwpgoff$w
		uwpgoff_ck uwpgoff$w.txt >uwpgoff$w.ck ||
			fail "uwpgoff, walk $w: the library's frames (pg_a before the new mapping, pg_b or an address after it, the last): $(cat uwpgoff$w.ck): $(cat uwpgoff$w.txt)"
		sed 's/^ *\(libuwpgoff\.so`pg_[ab]+0x[0-9a-f]*\|0x[0-9a-f]*\)$/LIB/' \
			uwpgoff$w.txt >uwpgoff$w.n
	done
	expect_file_eq "uwpgoff: stacks walked in the kernel as unwound copies" \
		uwpgoff0.n uwpgoff1.n
	[ "$(grep -c '^ *LIB$' uwpgoff1.n)" -eq 8 ] ||
		fail "uwpgoff: not 8 frames of the library: $(cat uwpgoff1.txt)"
	[ "${walked%% *}" -gt 0 ] && [ "${walked#* }" -ge 2 ] &&
		[ "$((${walked%% *} + ${walked#* }))" -eq 8 ] ||
		fail "uwpgoff: walked and copied: ${walked:-none said} (the first hit and the first after the new mapping must be copied): $(cat uwpgoff1.err)"
	# The same with lld's layout, where the text's p_vaddr is a page
	# past its offset and segments share file pages: the ordinary
	# mappings are where libdwfl's bias has them (named and walked as
	# ever), the one from another offset is not.
	if command -v ld.lld >/dev/null 2>&1; then
		mkdir -p uwl &&
			$gcc -O2 -fomit-frame-pointer -fPIC -shared -fuse-ld=lld \
				-fno-toplevel-reorder -o uwl/libuwpgoff.so \
				"$data/uwpgoff.c" &&
			$gcc -O2 -fomit-frame-pointer -fuse-ld=lld -o uwpgoffl \
				"$data/uwpgoffm.c" -Luwl -luwpgoff \
				-Wl,-rpath,"$PWD/uwl" ||
			fail "building uwpgoff with lld"
		uwrun 1 uwpgoffl -c './uwpgoffl 4' -n "$uwp_d"
		uwpgoff_ck uwpgoffl.txt >uwpgoffl.ck ||
			fail "uwpgoff, lld's layout: the library's frames: $(cat uwpgoffl.ck): $(cat uwpgoffl.txt)"
		[ "${walked%% *}" -gt 0 ] ||
			fail "uwpgoff, lld's layout: none walked: ${walked:-none said}: $(cat uwpgoffl.err)"
	fi
fi

# errors: the frame count is a constant
trun -n 'BEGIN { n = 2; ustack(n); }'
expect_eq "ustack(variable) refused" 1 "$status"
expect_grep "ustack(variable) message" \
	'line 1, column 23: ustack( ) argument #1 must be a positive integer constant' err.txt
trun -x ustacksize=64k -n 'BEGIN { exit(0); }'
expect_eq "ustacksize=64k refused" 1 "$status"
expect_grep "ustacksize message" "Invalid value for specified option (1k to 16k)" err.txt

finish
