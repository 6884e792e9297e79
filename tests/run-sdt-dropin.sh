#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-sdt-dropin.sh: usdt-sdk's <sys/sdt.h> in place of systemtap's.
#
# Code written for systemtap's header -- tests/data/sdt/dropin.c (every
# probe macro), dropsem.h (a provider header as systemtap's dtrace -h
# writes them: _SDT_HAS_SEMAPHORES and <provider>_<name>_semaphore),
# dropsem.c (its probes; one semaphore defined next to them),
# dropsem-def.c (the other, as systemtap's dtrace -G defines it) and
# dropin-asm.S -- is built with ours, by gcc and by clang (each skipped
# only when absent), as C at -O0, -O2 and -O2 -flto and as C++ at -O0
# and -O2, and no `dtrace -G` is involved:
#  - it runs;
#  - readelf -n: every note is version 3 (NT_STAPSDT); every probe has a
#    note, with exactly the arguments' sizes and signs and operands the
#    tracers read: STAP_PROBE, STAP_PROBE1..12, DTRACE_PROBE,
#    DTRACE_PROBE1..12, STAP_PROBE0, DTRACE_PROBE0, STAP_PROBEV (with
#    SDT_USE_VARIADIC), STAP_PROBE_ASM with an argument string and with
#    STAP_PROBE_ASM_TEMPLATE and STAP_PROBE_ASM_OPERANDS, the macros in
#    assembler (exact strings), floating-point arguments (4@ or 8@, never
#    8f@ nor a constant-pool label; constants exact where they are
#    constants);
#  - semaphores: the notes of dropsem:count and dropsem:gated name the
#    program's own <provider>_<name>_semaphore, dropus:hit (USDT_PROBE)
#    its __usdt_sema_ symbol (nm), every other note none -- under -flto
#    too, where only the probe's reference keeps such a semaphore;
#  - bpftrace (root): exact values of arguments 0-5, floating-point ones
#    as their bits and integer ones beside them; the semaphores are 0
#    untraced, up while bpftrace is attached -- as the program reads
#    them, and dropsem:gated, which fires only then, reports the value
#    the program read -- and 0 again after;
#  - gdb: `info probes` lists every probe, $_probe_arg6..11 of the
#    12-argument probes, and `output/f $_probe_argN` shows the
#    floating-point values (3.5, 0.875, 1.5, -2, 2.5 for a long double,
#    -0.1); usdt-sdk's dtrace -n (root) reads the bits too;
#  - modules (STAP_SDT_V2): the main program dropmain.c defines the
#    semaphores, with default visibility; the shared library made of
#    dropsem.c with -DSTAP_SDT_V2 reads them.  It links (without
#    STAP_SDT_V2 it does not: USDT_SEMAPHORE_DECLARE is hidden then); its
#    notes are version 3 and name no semaphore (0) where the semaphore is
#    the program's, its own where it is its own, as with systemtap's
#    header (compared where it is installed); bpftrace on the program's
#    probes raises the semaphores the library reads, and the library's
#    probe fires, reporting the value it read;
#  - where systemtap's header is installed, the same sources built with
#    it give the same probes with the same sizes and signs (but for the
#    floating-point ones, which it marks 8f@).
# Skips (77) without a C compiler, readelf or nm, or off x86-64; root,
# bpftrace and gdb are optional: only their parts are skipped, with a
# message.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/sdt-lib.sh"

: "${CLANG:=}"
: "${CLANGXX:=}"
data=$top_srcdir/tests/data/sdt
inc=$top_srcdir/sdk/include

command -v "${CC%% *}" >/dev/null 2>&1 || skip "no C compiler ($CC)"
for t in readelf nm; do
	command -v $t >/dev/null 2>&1 || skip "no $t"
done
case $(uname -m) in
x86_64) ;;
*) skip "<sys/sdt.h> probes are x86-64 only; this is $(uname -m)" ;;
esac

have() {
	[ -n "$1" ] && command -v "${1%% *}" >/dev/null 2>&1
}

# The two compilers, whatever CC is
gcc_cc= gcc_cxx=
if [ "$(cc_kind "$CC")" = gcc ]; then
	gcc_cc=$CC gcc_cxx=$CXX
elif have gcc && have g++; then
	gcc_cc=gcc gcc_cxx=g++
else
	echo "# no gcc: its builds are skipped"
fi
clang_cc= clang_cxx=
for c in "$CLANG" clang; do
	if have "$c" && [ "$(cc_kind "$c")" = clang ]; then
		clang_cc=$c
		break
	fi
done
for c in "$CLANGXX" clang++; do
	if have "$c"; then
		clang_cxx=$c
		break
	fi
done
if [ -z "$clang_cc" ] || [ -z "$clang_cxx" ]; then
	echo "# no clang: its builds are skipped"
	clang_cc= clang_cxx=
fi
lld=
if have ld.lld; then
	lld=lld
fi

# build_ok WHAT COMMAND...: the command must succeed; its output in build.log
build_ok() {
	bo_what=$1
	shift
	if "$@" >build.log 2>&1; then
		pass
		return 0
	fi
	fail "$bo_what: $*"
	sed 's/^/    | /' build.log >&2
	return 1
}

# ---------------------------------------------------------------------
# The builds: NAME CC (driver for the C or C++ sources) ASM-CC LANG OPT LD

{
	if [ -n "$gcc_cc" ]; then
		echo "gcc-c-O0 $gcc_cc $gcc_cc c -O0 bfd"
		echo "gcc-c-O2 $gcc_cc $gcc_cc c -O2 bfd"
		echo "gcc-c-lto $gcc_cc $gcc_cc c -flto bfd"
		echo "gcc-cxx-O0 $gcc_cxx $gcc_cc c++ -O0 bfd"
		echo "gcc-cxx-O2 $gcc_cxx $gcc_cc c++ -O2 bfd"
	fi
	if [ -n "$clang_cc" ]; then
		echo "clang-c-O0 $clang_cc $clang_cc c -O0 ${lld:-bfd}"
		echo "clang-c-O2 $clang_cc $clang_cc c -O2 ${lld:-bfd}"
		if [ -n "$lld" ]; then
			echo "clang-c-lto $clang_cc $clang_cc c -flto lld"
		else
			echo "# no ld.lld: no clang -flto build" >&2
		fi
		echo "clang-cxx-O0 $clang_cxx $clang_cc c++ -O0 ${lld:-bfd}"
		echo "clang-cxx-O2 $clang_cxx $clang_cc c++ -O2 ${lld:-bfd}"
	fi
} >builds.txt

# build NAME CC ASMCC LANG OPT LD: NAME/dropin
built=
build() {
	b_dir=$1 b_cc=$2 b_as=$3 b_lang=$4 b_opt=$5 b_ld=$6
	case $b_opt in
	-flto) b_opt="-O2 -flto" ;;
	esac
	mkdir "$b_dir" || return 1
	for src in dropin dropsem dropsem-def; do
		build_ok "$b_dir: $src.o" $b_cc -x $b_lang $b_opt -g -Wall \
			-Wextra -Werror -I"$inc" -I"$data" -c "$data/$src.c" \
			-o "$b_dir/$src.o" || return 1
	done
	build_ok "$b_dir: dropin-asm.o" $b_as -I"$inc" \
		-c "$data/dropin-asm.S" -o "$b_dir/dropin-asm.o" || return 1
	build_ok "$b_dir: link" $b_cc $b_opt -fuse-ld=$b_ld -o "$b_dir/dropin" \
		"$b_dir/dropin.o" "$b_dir/dropsem.o" "$b_dir/dropsem-def.o" \
		"$b_dir/dropin-asm.o" || return 1
	built="$built $b_dir"
}

while read -r name cc as lang opt ld; do
	case $name in
	"#"*) continue ;;
	esac
	build "$name" "$cc" "$as" "$lang" "$opt" "$ld"
done <builds.txt
[ -n "$built" ] || {
	fail "nothing was built"
	finish
}

# ---------------------------------------------------------------------
# readelf -n

# The sizes and signs each probe's arguments have (dropin.c's values)
a12="-4@ 1@ -2@ -8@ 8@ 8@ -4@ -8@ -2@ -1@ -4@ 8@"
{
	for p in s d; do
		echo "dropin ${p}0"
		k=0
		while [ $k -lt 12 ]; do
			k=$((k + 1))
			printf 'dropin %s%s %s\n' $p $k \
				"$(echo "$a12" | cut -d' ' -f1-$k)"
		done
	done
	cat <<'EOF'
dropin z0
dropin dz0
dropin v0
dropin v3 -4@ 1@ 8@
dropin flt 8@ 4@ 8@ 4@ 8@ 8@
dropin mixed -4@ 8@ -8@
dropin inasm -4@
dropin inasm0
dropin inraw 8@ -8@
dropin intmpl -4@ -8@ 8@
dropin asm0
dropin asm2 -8@ 8@
dropin asm3 -8@ 8@ -4@
dropin asmv 8@
dropsem count
dropsem gated -4@ 4@
dropus hit -4@
EOF
} | sed 's/ *$//' | LC_ALL=C sort >expected-prefixes.txt
cut -d' ' -f1,2 expected-prefixes.txt >expected-probes.txt

# Argument strings that do not depend on the compiler
cat <<'EOF' | LC_ALL=C sort >expected-exact.txt
dropin asm0
dropin asm2 -8@%rdi 8@%rsi
dropin asm3 -8@%rdi 8@%rsi -4@$-5
dropin asmv 8@%rsi
dropin inasm0
dropin inraw 8@%rsp -8@8(%rsp)
EOF

# Constants, where the compiler made them immediates: 1.5, -2.0f, 0.5
cat >expected-consts.txt <<'EOF'
flt 3 8@$4609434218613702656
flt 4 4@$-1073741824
intmpl 3 8@$4602678819172646912
EOF

# note_types BIN: the type of every stapsdt note, once
note_types() {
	readelf -n "$1" | awk '$1 == "stapsdt" { print $3 }' | sort -u
}

# sema_check BIN NOTES: "probe semaphore" for each note whose semaphore is
# wrong, given "provider name symbol" on stdin (symbol "-": none)
sema_check() {
	cat >sema-want.txt
	nm "$1" | awk '{ print $3, $1 }' >sema-syms.txt
	awk 'FILENAME ~ /sema-want/ { want[$1 " " $2] = $3; next }
	     FILENAME ~ /sema-syms/ { addr[$1] = $2; next }
	     {
		s = $5; sub(/^0x0*/, "", s)
		w = want[$1 " " $2]
		if (w == "" || w == "-") ex = ""
		else { ex = addr[w]; sub(/^0*/, "", ex)
		       if (ex == "") ex = "(no symbol " w ")" }
		if (s != ex)
			print $1 ":" $2, "semaphore", $5, "want", w, ex
	     }' sema-want.txt sema-syms.txt "$2"
}

for v in $built; do
	expect_eq "$v: every note is version 3" NT_STAPSDT \
		"$(note_types "$v/dropin")"
	notes "$v/dropin" >"$v/notes.txt"
	cut -d' ' -f1,2 "$v/notes.txt" | LC_ALL=C sort -u >"$v/probes.txt"
	expect_file_eq "$v: one note or more for every probe" \
		expected-probes.txt "$v/probes.txt"
	cut -d' ' -f1,2,6- "$v/notes.txt" | sed 's/ *$//' |
		awk "$check_args_awk" >"$v/args-check.txt"
	if grep '^BAD ' "$v/args-check.txt" >&2; then
		fail "$v: operands tools may misread (above)"
	else
		pass
	fi
	grep -v '^BAD ' "$v/args-check.txt" | LC_ALL=C sort -u \
		>"$v/prefixes.txt"
	expect_file_eq "$v: the size and sign of every argument" \
		expected-prefixes.txt "$v/prefixes.txt"
	cut -d' ' -f1,2,6- "$v/notes.txt" | sed 's/ *$//' |
		grep -E '^dropin (asm[0-9v]|inasm0|inraw)( |$)' | LC_ALL=C sort -u \
		>"$v/exact.txt"
	expect_file_eq "$v: exact argument strings" expected-exact.txt \
		"$v/exact.txt"
	# every constant a floating-point argument became is its bits
	# (a 4-byte constant may be written signed or not)
	awk '$1 == "dropin" && ($2 == "flt" || $2 == "intmpl") {
		for (i = 6; i <= NF; i++) {
			if ($i !~ /@\$/) continue
			c = $i
			if (c ~ /^4@\$[0-9]/ && substr(c, 4) + 0 >= 2147483648)
				c = "4@$" (substr(c, 4) - 4294967296)
			print $2, i - 5, c
		}
	}' "$v/notes.txt" | sort -u >"$v/consts.txt"
	if [ -s "$v/consts.txt" ]; then
		sort -u "$v/consts.txt" expected-consts.txt >"$v/consts-all.txt"
		expect_file_eq "$v: floating-point constants are their bits" \
			expected-consts.txt "$v/consts-all.txt"
	fi
	case $v in
	*-O2 | *-lto)
		expect_file_eq "$v: floating-point constants are immediates" \
			expected-consts.txt "$v/consts.txt" ;;
	esac
	sema_check "$v/dropin" "$v/notes.txt" >"$v/bad-sema.txt" <<'EOF'
dropsem count dropsem_count_semaphore
dropsem gated dropsem_gated_semaphore
dropus hit __usdt_sema_dropus___hit
EOF
	if [ -s "$v/bad-sema.txt" ]; then
		fail "$v: semaphores:"
		sed 's/^/    | /' "$v/bad-sema.txt" >&2
	else
		pass
	fi
	if (cd "$v" && ./dropin run 2) >"$v/run.out" 2>&1 &&
	   [ "$(cat "$v/run.out")" = "fired 2 rounds" ]; then
		pass
	else
		fail "$v: dropin run 2"
		sed 's/^/    | /' "$v/run.out" >&2
	fi
done

# ---------------------------------------------------------------------
# bpftrace: arguments 0-5, and the semaphores

bt=
if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1; then
	echo "# not root or no bpftrace: bpftrace's parts are skipped"
else
	bt=yes
fi

cat >args.bt <<'EOF'
usdt:./dropin:dropin:s12 {
	printf("s12 %d %d %d %d %s 0x%lx\n", arg0, arg1, arg2, arg3,
	       str(arg4), arg5);
}
usdt:./dropin:dropin:d12 {
	printf("d12 %d %d %d %d %s 0x%lx\n", arg0, arg1, arg2, arg3,
	       str(arg4), arg5);
}
usdt:./dropin:dropin:s2 { printf("s2 %d %d\n", arg0, arg1); }
usdt:./dropin:dropin:s0 { printf("s0\n"); }
usdt:./dropin:dropin:dz0 { printf("dz0\n"); }
usdt:./dropin:dropin:v0 { printf("v0\n"); }
usdt:./dropin:dropin:v3 { printf("v3 %d %d %s\n", arg0, arg1, str(arg2)); }
usdt:./dropin:dropin:flt {
	printf("flt %lx %lx %lx %lx %lx %lx\n", arg0, arg1, arg2, arg3, arg4,
	       arg5);
}
usdt:./dropin:dropin:mixed { printf("mixed %d %lx %d\n", arg0, arg1, arg2); }
usdt:./dropin:dropin:inasm { printf("inasm %d\n", arg0); }
usdt:./dropin:dropin:inasm0 { printf("inasm0\n"); }
usdt:./dropin:dropin:intmpl { printf("intmpl %d %d %lx\n", arg0, arg1, arg2); }
usdt:./dropin:dropin:asm2 { printf("asm2 %ld %lu\n", arg0, arg1); }
usdt:./dropin:dropin:asm3 { printf("asm3 %ld %lu %d\n", arg0, arg1, arg2); }
usdt:./dropin:dropin:asmv { printf("asmv %lu\n", arg0); }
EOF
cat <<'EOF' | LC_ALL=C sort >expected-bt.txt
asm2 -4 12
asm3 -4 12 -5
asmv 12
d12 -1 200 -3 -4 str 0x1122334455667788
dz0
flt 400c000000000000 3f600000 3ff8000000000000 c0000000 4004000000000000 bfb999999999999a
inasm 21
inasm0
intmpl 21 22 3fe0000000000000
mixed -1 400c000000000000 -4
s0
s12 -1 200 -3 -4 str 0x1122334455667788
s2 -1 200
v0
v3 -1 200 str
EOF
if [ -n "$bt" ]; then
	# shellcheck disable=SC2086 # $built is a word list
	bt_args args.bt dropin "run 1" expected-bt.txt $built
fi

# The semaphores over time.  PROG (dropin loop FILE or dropmain FILE)
# prints "ROUND gated=N us=N" every 20 ms; bpftrace runs SCRIPT.
last_line() {
	tail -n 1 "$1" | cut -d' ' -f2-
}
lines() {
	[ "$(wc -l <"$1")" -ge "$2" ]
}
last_is() {
	[ "$(last_line "$1")" = "$2" ]
}
# traced: the semaphore up, and dropus:hit's too.  (Up by one for GNU ld
# programs; by 2 or 3 for lld ones on Linux 6.18, whose layout maps the
# file page holding .probes more than once; run-sdt-sema.sh sees it too.)
last_on() {
	last_line "$1" | grep -q '^gated=[1-9][0-9]* us=1$'
}

# sema_run DIRS SCRIPT PROG...: in each of DIRS (a word list); bpftrace's
# output in DIR/sema-bt.out.  The DIRS at once, each step for all before
# the next (their probes are on each DIR's files: they do not meet): a
# bpftrace's end detaches its uprobes one after the other, each waiting
# for an RCU grace period (lib.sh, stop_pid), and bpftraces that end
# together share them; one DIR after the other, those waits were most of
# this test's time.
sema_run() {
	sr_dirs=$1 sr_script=$2
	shift 2
	for sr_dir in $sr_dirs; do
		rm -f "$sr_dir/stop"
		(cd "$sr_dir" && exec "$@") >"$sr_dir/loop.out" \
			2>"$sr_dir/loop.err" &
		echo $! >"$sr_dir/loop.pid"
		bg_pids="$bg_pids $!"
	done
	for sr_dir in $sr_dirs; do
		wait_until 100 lines "$sr_dir/loop.out" 3 && pass ||
			fail "$sr_dir: $* printed nothing"
		expect_eq "$sr_dir: untraced" "gated=0 us=0" \
			"$(last_line "$sr_dir/loop.out")"
	done
	for sr_dir in $sr_dirs; do
		(cd "$sr_dir" && exec bpftrace -B none -e "$sr_script") \
			>"$sr_dir/sema-bt.out" 2>"$sr_dir/sema-bt.err" &
		echo $! >"$sr_dir/sema-bt.pid"
		bg_pids="$bg_pids $!"
	done
	for sr_dir in $sr_dirs; do
		if wait_until 300 last_on "$sr_dir/loop.out"; then
			pass
		else
			fail "$sr_dir: the semaphores never rose while bpftrace was attached: $(last_line "$sr_dir/loop.out")"
			sed 's/^/    | /' "$sr_dir/sema-bt.err" >&2
		fi
	done
	# a few rounds with the probes firing
	for sr_dir in $sr_dirs; do
		sr_n=$(wc -l <"$sr_dir/loop.out")
		wait_until 100 lines "$sr_dir/loop.out" $((sr_n + 5))
	done
	sr_pids=
	for sr_dir in $sr_dirs; do
		sr_pids="$sr_pids $(cat "$sr_dir/sema-bt.pid")"
	done
	bt_stop "$sr_pids"
	for sr_dir in $sr_dirs; do
		bt_collect "$(cat "$sr_dir/sema-bt.pid")"
		expect_eq "$sr_dir: bpftrace's exit status after SIGINT" 0 \
			"$stop_status"
	done
	for sr_dir in $sr_dirs; do
		if wait_until 200 last_is "$sr_dir/loop.out" "gated=0 us=0"; then
			pass
		else
			fail "$sr_dir: the semaphores stayed up after bpftrace: $(last_line "$sr_dir/loop.out")"
		fi
		: >"$sr_dir/stop"
	done
	for sr_dir in $sr_dirs; do
		sr_loop=$(cat "$sr_dir/loop.pid")
		if wait_until 100 dead $sr_loop; then
			wait $sr_loop
			expect_eq "$sr_dir: $1's exit status" 0 $?
			forget_pid $sr_loop
		else
			fail "$sr_dir: $* did not stop"
			stop_pid $sr_loop
		fi
		# the states, run-length collapsed: off, on, off (bpftrace
		# attaches the probes one after the other: a moment with one
		# on is allowed)
		sed 's/gated=[1-9][0-9]*/gated=on/' "$sr_dir/loop.out" |
			awk '{ print $2, $3 }' | uniq |
			grep -v -e '^gated=on us=0$' -e '^gated=0 us=1$' | uniq \
			>"$sr_dir/states.txt"
		printf 'gated=0 us=0\ngated=on us=1\ngated=0 us=0\n' \
			>expected-states.txt
		expect_file_eq "$sr_dir: the semaphores over time" \
			expected-states.txt "$sr_dir/states.txt"
	done
}

# gated_fired WHAT DIR PREFIX: bpftrace printed "PREFIX ROUND N" lines
# (DIR/sema-bt.out), the probe's view of the semaphore, and for each the
# program printed "ROUND gated=N" (DIR/loop.out), N > 0: the probe fired
# because the semaphore was up, and reported what the program read
gated_fired() {
	grep "^$3 " "$2/sema-bt.out" | awk '{ print $2, "gated=" $3 }' \
		>gated-bt.txt
	awk 'NR == FNR { seen[$1 " " $2] = 1; next }
	     !($0 in seen) || $2 == "gated=0" { print "bpftrace:", $0 }' \
		"$2/loop.out" gated-bt.txt >gated-bad.txt
	if [ -s gated-bt.txt ] && [ ! -s gated-bad.txt ]; then
		pass
	else
		fail "$1: no '$3 ROUND N' from bpftrace, or not what the program read:"
		sed 's/^/    | /' gated-bad.txt "$2/sema-bt.out" >&2
	fi
}

if [ -n "$bt" ]; then
	sema_run "$built" '
		usdt:./dropin:dropsem:gated {
			printf("gated %d %d\n", arg0, arg1);
		}
		usdt:./dropin:dropus:hit { @hit = count(); }' \
		./dropin loop stop
	for v in $built; do
		gated_fired "$v: dropsem:gated" "$v" gated
		expect_grep "$v: bpftrace counted dropus:hit" '^@hit: [1-9]' \
			"$v/sema-bt.out"
	done
fi

# ---------------------------------------------------------------------
# gdb: info probes, arguments 6-11, floating-point values

if ! command -v gdb >/dev/null 2>&1; then
	echo "# no gdb: its part is skipped"
else
	A='$_probe_arg'
	{
		cat <<'EOF'
set breakpoint pending on
set pagination off
EOF
		for p in s12 d12; do
			cat <<EOF
break -probe-stap dropin:$p
commands
silent
printf "$p %d %d %d %d %d %d %lu\\n", \$_probe_argc, ${A}6, ${A}7, ${A}8, ${A}9, ${A}10, ${A}11
continue
end
EOF
		done
		printf 'break -probe-stap dropin:flt\ncommands\nsilent\n'
		printf 'printf "flt %%d", $_probe_argc\n'
		for i in 0 1 2 3 4 5; do
			printf 'printf " "\noutput/f %s%s\n' "$A" $i
		done
		printf 'printf "\\n"\ncontinue\nend\n'
		cat <<EOF
break -probe-stap dropin:mixed
commands
silent
printf "mixed %d %d ", \$_probe_argc, ${A}0
output/f ${A}1
printf " %d\\n", ${A}2
continue
end
run
EOF
	} >args.gdb
	cat <<'EOF' | LC_ALL=C sort >expected-gdb.txt
d12 12 -7 -8 -9 -10 -11 12
flt 6 3.5 0.875 1.5 -2 2.5 -0.10000000000000001
mixed 3 -1 3.5 -4
s12 12 -7 -8 -9 -10 -11 12
EOF
	# one gdb a build: its info probes (before the run: the program's
	# own), then the run
	for v in $built; do
		timeout 120 gdb -nx -batch -ex 'info probes stap' -x args.gdb \
			--args "$v/dropin" run 1 >"$v/gdb.out" 2>&1
		awk '$1 == "stap" { print $2, $3 }' "$v/gdb.out" |
			LC_ALL=C sort -u >"$v/gdb-probes.txt"
		expect_file_eq "$v: gdb's info probes" expected-probes.txt \
			"$v/gdb-probes.txt"
		grep -E '^(s12|d12|flt|mixed) ' "$v/gdb.out" | LC_ALL=C sort \
			>"$v/gdb.txt"
		if ! cmp -s expected-gdb.txt "$v/gdb.txt"; then
			sed 's/^/    | /' "$v/gdb.out" >&2
		fi
		expect_file_eq "$v: gdb, arguments 6-11 and floating point" \
			expected-gdb.txt "$v/gdb.txt"
	done
fi

# ---------------------------------------------------------------------
# usdt-sdk's dtrace -n reads the floating-point bits too

if [ "$(id -u)" -ne 0 ]; then
	echo "# not root: dtrace -n is skipped"
else
	for v in $built; do
		case $v in
		*-O2) ;;
		*) continue ;;
		esac
		(cd "$v" && timeout 120 "$DTRACE" -q -n '
			dropin$target:::flt {
				printf("flt %x %x %x %x %x %x\n", arg0, arg1,
				       arg2, arg3, arg4, arg5);
			}' -c './dropin run 1' >dt.out 2>dt.err)
		expect_eq "$v: dtrace -n's exit status" 0 $?
		expect_eq "$v: dtrace -n, floating-point bits" \
			"$(grep '^flt ' expected-bt.txt)" \
			"$(grep '^flt ' "$v/dt.out")"
	done
fi

# ---------------------------------------------------------------------
# Modules: the semaphores in the main program (STAP_SDT_V2)

# sema_kinds NOTES BIN: "provider name own|none|other" for each note
sema_kinds() {
	nm "$2" | awk '{ print $1 }' | sed 's/^0*//' >sema-addrs.txt
	awk 'FILENAME ~ /sema-addrs/ { a[$1] = 1; next }
	     {
		s = $5; sub(/^0x0*/, "", s)
		print $1, $2, (s == "" ? "none" : (s in a) ? "own" : "other")
	     }' sema-addrs.txt "$1" | LC_ALL=C sort -u
}

# The reference header: what <sys/sdt.h> is without our include directory
ref=
if echo '#include <sys/sdt.h>' | $CC -E -x c - >ref-sdt.i 2>/dev/null &&
   ! grep -q _USDT_SDT_ "ref-sdt.i"; then
	ref=yes
else
	echo "# systemtap's <sys/sdt.h> is not installed: no comparison with it"
fi

mods=
for fam in gcc:$gcc_cc clang:$clang_cc; do
	fname=${fam%%:*}
	fcc=${fam#*:}
	[ -n "$fcc" ] || continue
	m=mod-$fname
	mkdir $m
	fld=bfd
	if [ $fname = clang ] && [ -n "$lld" ]; then
		fld=lld
	fi
	if $fcc -O2 -fPIC -shared -fuse-ld=$fld -I"$inc" -I"$data" \
		"$data/dropsem.c" -o $m/libhidden.so >$m/hidden.log 2>&1; then
		fail "$m: a module with hidden USDT semaphores of the program linked"
	else
		expect_grep "$m: without STAP_SDT_V2 the module does not link" \
			'__usdt_sema_dropus___hit' $m/hidden.log
	fi
	build_ok "$m: module" $fcc -O2 -g -fPIC -shared -fuse-ld=$fld \
		-DSTAP_SDT_V2 -Wall -Wextra -Werror -I"$inc" -I"$data" \
		"$data/dropsem.c" -o $m/libdropsem.so || continue
	build_ok "$m: main program" $fcc -O2 -g -fuse-ld=$fld -DSTAP_SDT_V2 \
		-Wall -Wextra -Werror -I"$inc" -I"$data" "$data/dropmain.c" \
		"$data/dropsem-def.c" -L$m -ldropsem -Wl,-rpath,'$ORIGIN' \
		-o $m/dropmain || continue

	expect_eq "$m: the module's notes are version 3" NT_STAPSDT \
		"$(note_types $m/libdropsem.so)"
	expect_eq "$m: the program's notes are version 3" NT_STAPSDT \
		"$(note_types $m/dropmain)"
	notes $m/libdropsem.so >$m/mod-notes.txt
	sema_kinds $m/mod-notes.txt $m/libdropsem.so >$m/mod-kinds.txt
	printf 'dropsem count own\ndropsem gated none\n' >expected-kinds.txt
	expect_file_eq "$m: the module's notes: its own semaphore, none for the program's" \
		expected-kinds.txt $m/mod-kinds.txt
	sema_check $m/libdropsem.so $m/mod-notes.txt >$m/bad-sema.txt <<'EOF'
dropsem count dropsem_count_semaphore
dropsem gated -
EOF
	if [ -s $m/bad-sema.txt ]; then
		fail "$m: the module's semaphores:"
		sed 's/^/    | /' $m/bad-sema.txt >&2
	else
		pass
	fi
	notes $m/dropmain >$m/main-notes.txt
	sema_check $m/dropmain $m/main-notes.txt >$m/bad-sema.txt <<'EOF'
dropsem gated dropsem_gated_semaphore
dropus hit __usdt_sema_dropus___hit
EOF
	if [ -s $m/bad-sema.txt ]; then
		fail "$m: the program's semaphores:"
		sed 's/^/    | /' $m/bad-sema.txt >&2
	else
		pass
	fi
	nm -D --defined-only $m/dropmain | awk '{ print $3 }' |
		grep -E '^(dropsem_gated_semaphore|__usdt_sema_dropus___hit)$' |
		LC_ALL=C sort >$m/exported.txt
	printf '__usdt_sema_dropus___hit\ndropsem_gated_semaphore\n' \
		>expected-exported.txt
	expect_file_eq "$m: the program exports its semaphores" \
		expected-exported.txt $m/exported.txt

	if [ -n "$ref" ]; then
		if build_ok "$m: module with systemtap's header" $fcc -O2 \
			-fPIC -shared -fuse-ld=$fld -DSTAP_SDT_V2 -I"$data" \
			"$data/dropsem.c" -o $m/libref.so; then
			expect_eq "$m: systemtap's notes are version 3 too" \
				NT_STAPSDT "$(note_types $m/libref.so)"
			notes $m/libref.so >$m/ref-notes.txt
			sema_kinds $m/ref-notes.txt $m/libref.so \
				>$m/ref-kinds.txt
			expect_file_eq "$m: the semaphores as systemtap's header names them" \
				$m/ref-kinds.txt $m/mod-kinds.txt
		fi
	fi

	mods="$mods $m"
done
# the semaphores over time, the modules' builds at once (sema_run)
if [ -n "$bt" ] && [ -n "$mods" ]; then
	sema_run "$mods" '
		usdt:./dropmain:dropsem:gated { @main = count(); }
		usdt:./dropmain:dropus:hit { @hit = count(); }
		usdt:./libdropsem.so:dropsem:gated {
			printf("module %d %d\n", arg0, arg1);
		}' ./dropmain stop
	for m in $mods; do
		gated_fired "$m: the module's dropsem:gated" $m module
	done
fi

# ---------------------------------------------------------------------
# The same sources with systemtap's header: the same probes

if [ -n "$ref" ] && [ -n "$gcc_cc" ]; then
	mkdir ref
	ok=yes
	for src in dropin dropsem dropsem-def; do
		build_ok "ref: $src.o" $gcc_cc -std=gnu11 -O2 -DDROPIN_REFERENCE \
			-I"$data" -c "$data/$src.c" -o ref/$src.o || ok=
	done
	build_ok "ref: dropin-asm.o" $gcc_cc -c "$data/dropin-asm.S" \
		-o ref/dropin-asm.o || ok=
	if [ -n "$ok" ] && build_ok "ref: link" $gcc_cc -o ref/dropin \
		ref/dropin.o ref/dropsem.o ref/dropsem-def.o ref/dropin-asm.o
	then
		# sizes and signs without systemtap's f; floating-point
		# probes by their argument count
		notes ref/dropin | cut -d' ' -f1,2,6- | sed 's/ *$//' |
			sed 's/\([0-9]\)f@[^ ]*/\1@/g; s/@[^ ]*/@/g' |
			awk '$2 == "flt" { print $1, $2, NF - 2; next } 1' |
			LC_ALL=C sort -u >ref/prefixes.txt
		grep -v -e '^dropin z0$' -e '^dropin dz0$' \
			-e '^dropus hit' expected-prefixes.txt |
			awk '$2 == "flt" { print $1, $2, NF - 2; next } 1' |
			LC_ALL=C sort -u >ours-prefixes.txt
		expect_file_eq "systemtap's header: the same probes, sizes and signs" \
			ours-prefixes.txt ref/prefixes.txt
	fi
fi

finish
