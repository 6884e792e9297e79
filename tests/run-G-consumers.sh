#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-G-consumers.sh: programs built with `dtrace -h` + `dtrace -G` are
# visible and correct to the Linux tracing tools that read stapsdt notes,
# with no help from us (doc/DESIGN.md §7).  The program and library are in
# tests/data/consumers/; every probe argument is a known constant (or the
# round number), so each consumer's view is compared with exact values.
#
#  - `dtrace -G -v` rewrote calls (e8 -> 0f 1f 40 00 90, also in an
#    object built with -fno-plt, as the header's hidden declaration
#    makes it), tail calls (e9 -> ret and NOP, one with 12 arguments)
#    and a call through the GOT (ff 15 -> NOPs; -fno-plt with a
#    declaration that is not hidden);
#  - `readelf -n`: one stapsdt note per site (two for a probe called
#    twice, none for a probe never called) with the exact argument
#    strings, including the stack slots 0(%rsp).. at a call and 8(%rsp)..
#    at a tail call; .stapsdt.base and the semaphores where they belong;
#  - `bpftrace -l` lists exactly the probes of the executable and of the
#    shared library, names spelled with `__` as declared;
#  - bpftrace reads arguments 0-5 (negative int, short and signed char,
#    unsigned char, 64-bit values, strings) at call, tail-call, -fno-plt
#    and GOT sites, in a PIE, a non-PIE and a clang-built program and
#    in a shared library (bpftrace 0.17 refuses arg6 and above);
#  - the program's stdout is the same traced (every probe counted) as
#    untraced, and every probe fired as often as it should;
#  - gdb: `info probes` lists them; breakpoints on probes give
#    $_probe_argc and $_probe_arg0..11, so arguments 6-11 prove the
#    stack-slot specs, at a call site and at a tail call, in every
#    program; gdb also reads one-byte arguments passed in %r8 and %r9;
#  - semaphores: 0 and _ENABLED() false with nothing attached (read by
#    the program and from /proc/PID/mem at the note's address); non-zero
#    and true while bpftrace is attached (the kernel's uprobe reference
#    counter); 0 and false again after bpftrace exits;
#  - perf 6.1: `perf probe -x prog sdt_myapp:query__start` and `perf
#    record` count exactly the hits, with the right arguments;
#  - bcc's tplist sees the probes, locations and argument counts;
#  - systemtap's <sys/sdt.h>, if installed: the same probe written with
#    DTRACE_PROBE3 gives bpftrace the same values as our -G site.
# Skips (77) without root, $CC, readelf, bpftrace or uprobes; perf, gdb,
# tplist, $CLANG and <sys/sdt.h> are optional: only their parts are
# skipped, with a message.
#
# Needs root (bpftrace, perf).  Every wait is bounded, leftover processes
# and perf probe events are removed on exit.  If tracefs is not mounted
# the test mounts it at /sys/kernel/tracing (where doc/DESIGN.md §9 says it is)
# and leaves it mounted.

. "$top_srcdir/tests/lib.sh"

# This test checks exactly what -G writes for the calls it is given, so
# its objects leave out the probe stubs a header defines (a note each,
# for every declared probe): USDT_NO_PROBE_STUBS.  tests/run-dropin.sh
# covers the stubs.
CC="${CC:-cc} -DUSDT_NO_PROBE_STUBS"
CXX="${CXX:-c++} -DUSDT_NO_PROBE_STUBS"
[ -n "${CLANG:-}" ] && CLANG="$CLANG -DUSDT_NO_PROBE_STUBS"
[ -n "${CLANGXX:-}" ] && CLANGXX="$CLANGXX -DUSDT_NO_PROBE_STUBS"

: "${CLANG:=}"
data=$top_srcdir/tests/data/consumers

# ---------------------------------------------------------------------
# Clean-up: processes we started, the perf probe event, then lib.sh's

perf_event=
consumers_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	if [ -n "$perf_event" ]; then
		HOME=$tmp perf probe -q -d "$perf_event" >/dev/null 2>&1
	fi
	cleanup
}
trap consumers_cleanup EXIT
trap 'exit 1' INT TERM HUP

# ---------------------------------------------------------------------
# What must be here

[ "$(id -u)" -eq 0 ] || skip "not root: bpftrace and perf need root"
command -v "${CC%% *}" >/dev/null 2>&1 || skip "no C compiler ($CC)"
command -v readelf >/dev/null 2>&1 || skip "no readelf"
command -v bpftrace >/dev/null 2>&1 || skip "no bpftrace"

events=/sys/kernel/tracing/uprobe_events
if [ ! -e "$events" ] && [ -d /sys/kernel/tracing ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null &&
		echo "# mounted tracefs on /sys/kernel/tracing"
fi
if [ ! -e "$events" ]; then
	[ -e /sys/kernel/debug/tracing/uprobe_events ] ||
		skip "no uprobes: $events is missing and tracefs cannot be mounted"
	events=/sys/kernel/debug/tracing/uprobe_events
fi

# ---------------------------------------------------------------------
# Build: the headers, libx.so, and the program as PIE, non-PIE and
# (with $CLANG) PIE built by clang

# build_ok WHAT COMMAND...: the command must succeed
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

run_dtrace -h -s "$data/myapp.d" -o myapp.h
expect_eq "dtrace -h myapp.d" 0 "$status"
run_dtrace -h -s "$data/libx.d" -o libx.h
expect_eq "dtrace -h libx.d" 0 "$status"
[ -s myapp.h ] && [ -s libx.h ] || {
	fail "no headers"
	finish
}

build_ok "libx.o" $CC -O2 -fPIC -I. -c "$data/libx.c" -o libx.o &&
	build_ok "dtrace -G libx" "$DTRACE" -G -s "$data/libx.d" \
		-o libx-probes.o libx.o &&
	build_ok "libx.so" $CC -shared -Wl,-z,defs -o libx.so libx.o \
		libx-probes.o || {
	fail "no libx.so"
	finish
}

# build VARIANT CC CFLAGS LDFLAGS: VARIANT/prog, with VARIANT/G.log the
# output of dtrace -G -v
build() {
	b_dir=$1 b_cc=$2 b_cflags=$3 b_ldflags=$4
	mkdir "$b_dir"
	for f in prog sites; do
		build_ok "$b_dir: $f.o" $b_cc $b_cflags -O2 -I. \
			-c "$data/$f.c" -o "$b_dir/$f.o" || return 1
	done
	for f in noplt gotcall; do
		build_ok "$b_dir: $f.o" $b_cc $b_cflags -O2 -fno-plt -I. \
			-c "$data/$f.c" -o "$b_dir/$f.o" || return 1
	done
	if ! "$DTRACE" -G -v -s "$data/myapp.d" -o "$b_dir/probes.o" \
		"$b_dir/prog.o" "$b_dir/sites.o" "$b_dir/noplt.o" \
		"$b_dir/gotcall.o" >"$b_dir/G.log" 2>&1; then
		fail "$b_dir: dtrace -G"
		sed 's/^/    | /' "$b_dir/G.log" >&2
		return 1
	fi
	pass
	build_ok "$b_dir: link" $b_cc $b_ldflags -o "$b_dir/prog" \
		"$b_dir/prog.o" "$b_dir/sites.o" "$b_dir/noplt.o" \
		"$b_dir/gotcall.o" "$b_dir/probes.o" -L. -lx \
		-Wl,-rpath,"$tmp"
}

variants=
build pie "$CC" -fPIE -pie && variants="$variants pie"
build nopie "$CC" -fno-pie -no-pie && variants="$variants nopie"
if [ -n "$CLANG" ] && command -v "${CLANG%% *}" >/dev/null 2>&1; then
	build clang "$CLANG" -fPIE -pie && variants="$variants clang"
else
	echo "# CLANG not set: no clang-built program"
fi
case " $variants " in
*" pie "*) ;;
*)	fail "no program to trace"
	finish ;;
esac
prog=$(pwd -P)/pie/prog		# as /proc/PID/maps spells it

# the untraced output, the reference for every traced run
if ./pie/prog run 3 >plain.out 2>&1; then
	pass
else
	fail "pie/prog run 3 failed"
	sed 's/^/    | /' plain.out >&2
fi
cat >expected-plain.out <<'EOF'
round 0: libx says 1
round 1: libx says 2
round 2: libx says 3
EOF
expect_file_eq "untraced output" expected-plain.out plain.out

# ---------------------------------------------------------------------
# dtrace -G -v: the sites are of the kinds this test needs

# What -G writes (doc/DESIGN.md §4): a call becomes a 4-byte NOP and a
# 1-byte one, a tail call the 4-byte NOP and a return, a GOT call the
# 4-byte NOP and a 2-byte one.  What matters here is the kind of site
# each probe has.
jmp_nop='0f 1f 40 00 c3'
got_nop='0f 1f 40 00 66 90'
for v in $variants; do
	expect_grep "$v: many is a call site" \
		'myapp:::many: e8 00 00 00 00 (.*) -> 0f 1f 40 00 90 (' $v/G.log
	expect_grep "$v: tail6 is a tail-call site" \
		"myapp:::tail6: e9 00 00 00 00 (.*) -> $jmp_nop (" $v/G.log
	expect_grep "$v: tailwide (12 arguments) is a tail-call site" \
		"myapp:::tailwide: e9 00 00 00 00 (.*) -> $jmp_nop (" $v/G.log
	expect_grep "$v: noplt (-fno-plt, hidden) is a plain call site" \
		'myapp:::noplt: e8 00 00 00 00 (.*) -> 0f 1f 40 00 90 (' \
		$v/G.log
	expect_grep "$v: gotcall is a call *GOTPCREL site" \
		"myapp:::gotcall: ff 15 00 00 00 00 (.*) -> $got_nop (" $v/G.log
done

# ---------------------------------------------------------------------
# readelf -n: one note per site, exact argument strings

# notes FILE: "provider name arguments", one line per note, sorted
notes() {
	readelf -n "$1" | awk '
		/^ *Provider: / { p = $2 }
		/^ *Name: / { n = $2 }
		/^ *Arguments:/ { sub(/^ *Arguments: ?/, ""); print p, n, $0 }
	' | LC_ALL=C sort
}

# pie: the exact strings.  bytes is checked apart below.
notes pie/prog >notes.txt
grep -v '^myapp bytes ' notes.txt >notes-nobytes.txt
cat >expected-notes.txt <<'EOF'
myapp gotcall -4@%edi -2@%si -1@%dl 1@%cl 8@%r8 8@%r9
myapp many -4@%edi -2@%si -1@%dl 1@%cl 8@%r8 8@%r9 8@0(%rsp) -8@8(%rsp) -4@16(%rsp) -2@24(%rsp) 1@32(%rsp) 8@40(%rsp)
myapp noplt -4@%edi -2@%si -1@%dl 1@%cl 8@%r8 8@%r9
myapp query__start 8@%rdi -4@%esi
myapp query__start 8@%rdi -4@%esi
myapp tail6 -4@%edi -2@%si -1@%dl 1@%cl 8@%r8 8@%r9
myapp tailwide -8@%rdi 8@%rsi -4@%edx 2@%cx 8@%r8 -8@%r9 -1@8(%rsp) 1@16(%rsp) -2@24(%rsp) 8@32(%rsp) 4@40(%rsp) 8@48(%rsp)
myapp wide -8@%rdi 8@%rsi -4@%edx 2@%cx 8@%r8 -8@%r9 -1@0(%rsp) 1@8(%rsp) -2@16(%rsp) 8@24(%rsp) 4@32(%rsp) 8@40(%rsp)
EOF
expect_file_eq "readelf -n pie/prog: notes" expected-notes.txt \
	notes-nobytes.txt
# one-byte arguments in %r8/%r9: any name for the register will do here;
# which ones the consumers can read is checked with them below
expect_grep "readelf -n pie/prog: the note of bytes" \
	'^myapp bytes -4@%edi -4@%esi -4@%edx -4@%ecx 1@%r8[bdl]\{0,1\} -1@%r9[bdl]\{0,1\}$' \
	notes.txt

notes libx.so >notes-lib.txt
cat >expected-notes-lib.txt <<'EOF'
libx lib__call -8@%rdi 8@%rsi -4@%edx 1@%cl 8@%r8 -2@%r9w
EOF
expect_file_eq "readelf -n libx.so: notes" expected-notes-lib.txt \
	notes-lib.txt

# the other programs have the same notes
for v in $variants; do
	[ $v = pie ] && continue
	notes $v/prog >notes-$v.txt
	expect_file_eq "readelf -n $v/prog: same notes as pie/prog" \
		notes.txt notes-$v.txt
done

# Base is .stapsdt.base; each probe's semaphore is its __usdt_sema_
# symbol, the same for both query__start notes
readelf -n pie/prog | awk '
	/^ *Provider: / { p = $2 }
	/^ *Name: / { n = $2 }
	/Location: / {
		for (i = 1; i <= NF; i++) {
			if ($i == "Base:") b = $(i + 1)
			if ($i == "Semaphore:") s = $(i + 1)
		}
		sub(/,$/, "", b)
		print p, n, b, s
	}' >bases.txt
base=$(readelf -W -S pie/prog | awk '{
	for (i = 1; i < NF; i++) if ($i == ".stapsdt.base") print $(i + 2) }')
awk -v b="$base" '{
	x = $3; sub(/^0x0*/, "", x); y = b; sub(/^0*/, "", y)
	if (x != y) print "note", $1, $2, "base", $3, "is not .stapsdt.base", b
}' bases.txt >bad-bases.txt
if [ -n "$base" ] && [ -s bases.txt ] && [ ! -s bad-bases.txt ]; then
	pass
else
	fail "notes' Base is not .stapsdt.base ($base)"
	cat bad-bases.txt bases.txt >&2
fi
nm pie/prog | awk '$3 ~ /^__usdt_sema_/ { print $3, $1 }' >semas.txt
awk 'NR == FNR { a[$1] = $2; next }
	{
		s = $4; sub(/^0x0*/, "", s)
		t = a["__usdt_sema_" $1 "___" $2]; sub(/^0*/, "", t)
		if (s == "" || s != t)
			print "note", $1, $2, "semaphore", $4, "symbol", t
	}' semas.txt bases.txt >bad-semas.txt
if [ -s semas.txt ] && [ ! -s bad-semas.txt ]; then
	pass
else
	fail "notes' Semaphore is not the probe's __usdt_sema_ symbol"
	cat bad-semas.txt semas.txt >&2
fi
sema_addr=$(awk '$2 == "query__start" { print $4; exit }' bases.txt)

# ---------------------------------------------------------------------
# bpftrace -l: exactly the probes with sites

cd pie || exit 99
bpftrace -l 'usdt:./prog:*' 2>bpl.err | LC_ALL=C sort >../bpl.txt
cd .. || exit 99
cat >expected-bpl.txt <<'EOF'
usdt:./prog:myapp:bytes
usdt:./prog:myapp:gotcall
usdt:./prog:myapp:many
usdt:./prog:myapp:noplt
usdt:./prog:myapp:query__start
usdt:./prog:myapp:tail6
usdt:./prog:myapp:tailwide
usdt:./prog:myapp:wide
EOF
expect_file_eq "bpftrace -l usdt:./prog:*" expected-bpl.txt bpl.txt

bpftrace -l 'usdt:./libx.so:*' 2>bpl.err | LC_ALL=C sort >bpl-lib.txt
echo 'usdt:./libx.so:libx:lib__call' >expected-bpl-lib.txt
expect_file_eq "bpftrace -l usdt:./libx.so:*" expected-bpl-lib.txt \
	bpl-lib.txt

# ---------------------------------------------------------------------
# bpftrace: arguments 0-5 at every kind of site and in the library.
# bpftrace -c cannot attach to a library the child has not loaded yet, so
# bpftrace attaches to the files first and `prog await` starts once every
# semaphore says its probe is traced.

cat >args.bt <<EOF
usdt:./prog:myapp:query__start {
	printf("query__start %s %d\n", str(arg0), arg1);
}
usdt:./prog:myapp:many, usdt:./prog:myapp:tail6, usdt:./prog:myapp:noplt,
usdt:./prog:myapp:gotcall {
	printf("%s %d %d %d %d %s 0x%lx\n", probe, arg0, arg1, arg2, arg3,
	       str(arg4), arg5);
}
usdt:./prog:myapp:wide, usdt:./prog:myapp:tailwide {
	printf("%s %ld 0x%lx %d %d %s %ld\n", probe, arg0, arg1, arg2, arg3,
	       str(arg4), arg5);
}
usdt:./prog:myapp:bytes {
	printf("bytes %d %d %d %d %d %d\n", arg0, arg1, arg2, arg3, arg4,
	       arg5);
}
usdt:$tmp/libx.so:libx:lib__call {
	printf("lib__call %ld 0x%lx %d %d %s %d\n", arg0, arg1, arg2, arg3,
	       str(arg4), arg5);
}
EOF

for r in 0 1 2; do
	cat <<EOF
query__start select $r
usdt:./prog:myapp:many -1 -3 -10 200 hello 0x1122334455667788
usdt:./prog:myapp:wide -2 0xffffffffffffffff -2147483648 65535 world -9000000000
usdt:./prog:myapp:tail6 -100 -30000 -99 201 tail 0x102030405060708
usdt:./prog:myapp:tailwide -3 0xfffffffffffffffe 123456789 40000 tail wide -7000000000
usdt:./prog:myapp:noplt -1 -3 -10 200 no plt 0x1122334455667788
usdt:./prog:myapp:gotcall -2 -4 -11 199 through the GOT 0x8877665544332211
bytes 1 2 3 4 200 -10
lib__call -123456789012 0xffffffffffffffff $r 200 in a library -3
EOF
done | LC_ALL=C sort >expected-args.txt

# the program's output while bpftrace counts every probe
{
	for p in bytes gotcall many noplt query__start tail6 tailwide wide; do
		echo "@[usdt:./prog:myapp:$p]: 3"
	done
	echo "@[usdt:$tmp/libx.so:libx:lib__call]: 3"
} | LC_ALL=C sort >expected-counts.txt
cat >counts.bt <<EOF
usdt:./prog:* { @[probe] = count(); }
usdt:$tmp/libx.so:* { @[probe] = count(); }
EOF
# (Not in args.bt: bpftrace 0.17 builds a program the kernel rejects,
# "unreachable insn", when a wildcard block covers probes that another
# block lists together.)

bt_lines() {
	[ "$(grep -c -v -e '^Attaching ' -e '^$' "$1")" -ge "$2" ]
}

# bt_await VARIANT NAME SCRIPT LINES: bpftrace runs SCRIPT (its output in
# VARIANT/NAME.bt) while `VARIANT/prog await 3` runs (its output in
# VARIANT/NAME.out); bpftrace is stopped once it has printed LINES lines
bt_await() {
	cd "$1" || exit 99
	bpftrace -B none "../$3" >"$2.bt" 2>"$2.err" &
	ba_pid=$!
	bg_pids="$bg_pids $ba_pid"
	timeout 60 ./prog await 3 >"$2.out" 2>"$2.prog-err"
	ba_status=$?
	cd .. || exit 99
	expect_eq "$1: prog await 3 under bpftrace $3" 0 "$ba_status"
	[ "$ba_status" -eq 0 ] && wait_until 100 bt_lines "$1/$2.bt" "$4"
	stop_bt $ba_pid
	expect_eq "$1: bpftrace $3: exit status after SIGINT" 0 \
		"$stop_status"
	if [ "$ba_status" -ne 0 ] || [ "$stop_status" -ne 0 ]; then
		sed 's/^/    | /' "$1/$2.prog-err" "$1/$2.err" >&2
	fi
	grep -v -e '^Attaching ' -e '^$' "$1/$2.bt" | LC_ALL=C sort \
		>"$1/$2.txt"
	expect_file_eq "$1: program output under bpftrace $3" plain.out \
		"$1/$2.out"
}

for v in $variants; do
	bt_await $v args args.bt "$(wc -l <expected-args.txt)"
	expect_file_eq "$v: bpftrace, arguments 0-5" expected-args.txt \
		$v/args.txt
	bt_await $v counts counts.bt 0
	expect_file_eq "$v: bpftrace, hits of every probe" \
		expected-counts.txt $v/counts.txt
done

# ---------------------------------------------------------------------
# gdb: info probes, and all twelve arguments at a call and a tail call

if command -v gdb >/dev/null 2>&1; then
	# info probes: "provider name" per location
	gdb_probes() {
		timeout 60 gdb -nx -batch -ex 'info probes stap' "$1" 2>&1 |
			awk '$1 == "stap" { print $2, $3 }' | LC_ALL=C sort
	}
	gdb_probes pie/prog >gdb-probes.txt
	cut -d' ' -f1,2 notes.txt >expected-gdb-probes.txt
	expect_file_eq "gdb: info probes" expected-gdb-probes.txt \
		gdb-probes.txt
	gdb_probes libx.so >gdb-probes-lib.txt
	echo "libx lib__call" >expected-gdb-probes-lib.txt
	expect_file_eq "gdb: info probes libx.so" \
		expected-gdb-probes-lib.txt gdb-probes-lib.txt


	# gdb_args WHAT SPEC EXPECTED FORMAT EXPRS: stop at probe SPEC in
	# `$gdb_variant/prog run 1` and printf "ARGS FORMAT\n", EXPRS
	gdb_variant=pie
	gdb_args() {
		timeout 60 gdb -nx -batch -ex 'set breakpoint pending on' \
			-ex "break -probe-stap $2" -ex run \
			-ex "printf \"ARGS $4\\n\", $5" \
			--args $gdb_variant/prog run 1 >gdb.out 2>&1
		grep '^ARGS ' gdb.out >gdb-args.txt
		echo "ARGS $3" >gdb-expected.txt
		if cmp -s gdb-expected.txt gdb-args.txt; then
			pass
		else
			fail "gdb: $gdb_variant: $1: expected 'ARGS $3'"
			sed 's/^/    | /' gdb.out >&2
		fi
	}
	A='$_probe_arg'
	twelve="\$_probe_argc, ${A}0, ${A}1, ${A}2, ${A}3, (char *)${A}4, ${A}5, ${A}6, ${A}7, ${A}8, ${A}9, ${A}10, (char *)${A}11"
	wide_fmt='%d %ld 0x%lx %d %d %s %ld %d %d %d 0x%lx %u %s'
	# arguments 6-11 on the stack, in every program
	for gdb_variant in $variants; do
		gdb_args "many (a call site)" myapp:many \
			"12 -1 -3 -10 200 hello 0x1122334455667788 0xffffffffffffffff -5000000000 -7 -300 250 eleven" \
			'%d %d %d %d %d %s 0x%lx 0x%lx %ld %d %d %d %s' \
			"$twelve"
		gdb_args "wide (a call site)" myapp:wide \
			"12 -2 0xffffffffffffffff -2147483648 65535 world -9000000000 -128 255 -32768 0x8000000000000001 4000000000 twelve" \
			"$wide_fmt" "$twelve"
		gdb_args "tailwide (a tail call, 12 arguments)" \
			myapp:tailwide \
			"12 -3 0xfffffffffffffffe 123456789 40000 tail wide -7000000000 -5 77 -1234 0x7fffffffffffffff 3000000000 tail twelve" \
			"$wide_fmt" "$twelve"
	done
	gdb_variant=pie
	gdb_args "tail6 (a tail call)" myapp:tail6 \
		"6 -100 -30000 -99 201 tail 0x102030405060708" \
		'%d %d %d %d %d %s 0x%lx' \
		"\$_probe_argc, ${A}0, ${A}1, ${A}2, ${A}3, (char *)${A}4, ${A}5"
	gdb_args "noplt (built with -fno-plt)" myapp:noplt \
		"6 -1 -3 -10 200 no plt 0x1122334455667788" \
		'%d %d %d %d %d %s 0x%lx' \
		"\$_probe_argc, ${A}0, ${A}1, ${A}2, ${A}3, (char *)${A}4, ${A}5"
	gdb_args "gotcall (a call *GOTPCREL site)" myapp:gotcall \
		"6 -2 -4 -11 199 through the GOT 0x8877665544332211" \
		'%d %d %d %d %d %s 0x%lx' \
		"\$_probe_argc, ${A}0, ${A}1, ${A}2, ${A}3, (char *)${A}4, ${A}5"
	gdb_args "lib__call (in libx.so)" libx:lib__call \
		"6 -123456789012 0xffffffffffffffff 0 200 in a library -3" \
		'%d %ld 0x%lx %d %d %s %d' \
		"\$_probe_argc, ${A}0, ${A}1, ${A}2, ${A}3, (char *)${A}4, ${A}5"
	# one-byte arguments in %r8 and %r9: gdb knows %r8l or %r8 or %r8d,
	# but not %r8b
	gdb_args "bytes (one-byte arguments in %r8, %r9)" myapp:bytes \
		"6 1 2 3 4 200 -10" '%d %d %d %d %d %d %d' \
		"\$_probe_argc, ${A}0, ${A}1, ${A}2, ${A}3, ${A}4, ${A}5"
else
	echo "# no gdb: its part is skipped"
fi

# ---------------------------------------------------------------------
# Semaphores: 0 untraced, non-zero while bpftrace is attached (the
# kernel's uprobe reference counter), 0 again after it exits

# read_sema PID: the semaphore at the note's address, from /proc/PID/mem
read_sema() {
	rs_base=$(awk -v exe="$prog" '$6 == exe {
		split($1, a, "-"); print a[1]; exit }' "/proc/$1/maps")
	[ -n "$rs_base" ] || return 1
	dd if="/proc/$1/mem" bs=1 skip=$((0x$rs_base + sema_addr)) count=2 \
		2>/dev/null | od -An -tu2 | tr -d ' '
}
last_line() {
	tail -n 1 loop.out
}
loop_lines() {
	[ "$(wc -l <loop.out)" -ge "$1" ]
}
last_enabled() {
	last_line | grep -q " sema [1-9][0-9]* enabled 1\$"
}
last_disabled() {
	last_line | grep -q " sema 0 enabled 0\$"
}

if [ -z "$sema_addr" ] || [ "$sema_addr" = 0x0000000000000000 ]; then
	fail "no semaphore address for query__start"
else
	: >loop.out
	(cd pie && exec ./prog loop ../stop) >loop.out 2>loop.err &
	loop_pid=$!
	bg_pids="$bg_pids $loop_pid"
	if wait_until 100 loop_lines 4; then
		pass
	else
		fail "prog loop printed nothing"
	fi
	expect_eq "untraced: the program sees" \
		"sema 0 enabled 0,sema 0 enabled 0,sema 0 enabled 0" \
		"$(sed -n 1,3p loop.out | cut -d' ' -f3- | paste -s -d,)"
	expect_eq "untraced: /proc/PID/mem at the note's semaphore" 0 \
		"$(read_sema $loop_pid)"

	(cd pie && exec bpftrace \
		-e 'usdt:./prog:myapp:query__start { @hits = count(); }') \
		>sema-bt.out 2>sema-bt.err &
	bt_pid=$!
	bg_pids="$bg_pids $bt_pid"
	if wait_until 200 last_enabled; then
		pass
	else
		fail "_ENABLED() never became true while bpftrace was attached"
		sed 's/^/    | /' sema-bt.err >&2
	fi
	# the program prints what it reads every 10 ms; bpftrace may still be
	# attaching (one uprobe per site, each counting the semaphore up), so
	# wait for the two to agree rather than compare one instant
	sema_agrees() {
		traced=$(grep ' enabled 1$' loop.out | tail -n 1 |
			sed 's/.* sema \([0-9]*\) .*/\1/')
		[ -n "$traced" ] && [ "$traced" = "$(read_sema $loop_pid)" ]
	}
	wait_until 100 sema_agrees
	expect_eq "traced: /proc/PID/mem at the note's semaphore" \
		"$traced" "$(read_sema $loop_pid)"
	stop_bt $bt_pid
	expect_eq "bpftrace's exit status after SIGINT" 0 "$stop_status"
	expect_grep "bpftrace counted hits" '^@hits: [1-9]' sema-bt.out
	if wait_until 200 last_disabled; then
		pass
	else
		fail "_ENABLED() stayed true after bpftrace exited"
	fi
	expect_eq "after bpftrace: /proc/PID/mem at the note's semaphore" 0 \
		"$(read_sema $loop_pid)"

	: >stop
	if wait_until 100 dead $loop_pid; then
		wait $loop_pid
		expect_eq "prog loop's exit status" 0 $?
		forget_pid $loop_pid
	else
		fail "prog loop did not stop"
		stop_pid $loop_pid
	fi
	# the states, run-length collapsed: never enabled, enabled, never
	awk '{ print $6, $4 != 0 }' loop.out | uniq >states.txt
	printf '0 0\n1 1\n0 0\n' >expected-states.txt
	expect_file_eq "_ENABLED() and the semaphore over time" \
		expected-states.txt states.txt
fi

# ---------------------------------------------------------------------
# perf: perf probe on the SDT event, perf record counts every hit

if ! command -v perf >/dev/null 2>&1; then
	echo "# no perf: its part is skipped"
elif ! HOME=$tmp perf probe -l >perf-l.txt 2>&1; then
	echo "# perf cannot list probe events here, its part is skipped:"
	sed 's/^/#   /' perf-l.txt
else
	# a leftover of a killed earlier run would make `perf probe` refuse
	HOME=$tmp perf probe -q -d sdt_myapp:query__start >/dev/null 2>&1
	perf_event=sdt_myapp:query__start
	if HOME=$tmp timeout 60 perf probe -x "$prog" sdt_myapp:query__start \
		>perf-probe.txt 2>&1; then
		pass
	else
		fail "perf probe -x prog sdt_myapp:query__start"
		sed 's/^/    | /' perf-probe.txt >&2
	fi
	if HOME=$tmp timeout 60 perf record -q -o perf.data \
		-e sdt_myapp:query__start -- "$prog" run 5 \
		>perf-prog.out 2>perf-record.err; then
		pass
	else
		fail "perf record -e sdt_myapp:query__start"
		sed 's/^/    | /' perf-record.err >&2
	fi
	HOME=$tmp timeout 60 perf script -i perf.data >perf-script.txt \
		2>perf-script.err
	grep -c ' sdt_myapp:query__start: ' perf-script.txt >perf-count.txt
	expect_eq "perf record: hits of query__start" 5 \
		"$(cat perf-count.txt)"
	expect_eq "perf script: the second argument of each hit" \
		"0 1 2 3 4" "$(sed -n 's/.* arg2=\([0-9-]*\).*/\1/p' \
			perf-script.txt | tr '\n' ' ' | sed 's/ $//')"
	if HOME=$tmp perf probe -q -d sdt_myapp:query__start \
		>perf-d.txt 2>&1; then
		pass
		perf_event=
	else
		fail "perf probe -d sdt_myapp:query__start"
		sed 's/^/    | /' perf-d.txt >&2
	fi
fi

# ---------------------------------------------------------------------
# bcc's tplist

tplist=
for t in tplist-bpfcc tplist /usr/share/bcc/tools/tplist; do
	if command -v "$t" >/dev/null 2>&1; then
		tplist=$t
		break
	fi
done
if [ -z "$tplist" ]; then
	echo "# no bcc tplist (tplist-bpfcc): its part is skipped"
else
	# "provider:probe locations arguments", sorted
	tplist_v() {
		timeout 60 "$tplist" -v -l "$1" 2>&1 | awk '
			/^[^ ].*\[sema 0x[0-9a-f]+\]$/ { if (p) print p, l, a
				p = $1 }
			/location\(s\)$/ { l = $1 }
			/argument\(s\)$/ { a = $1 }
			END { if (p) print p, l, a }' | LC_ALL=C sort
	}
	tplist_v pie/prog >tplist.txt
	cat >expected-tplist.txt <<'EOF'
myapp:bytes 1 6
myapp:gotcall 1 6
myapp:many 1 12
myapp:noplt 1 6
myapp:query__start 2 2
myapp:tail6 1 6
myapp:tailwide 1 12
myapp:wide 1 12
EOF
	expect_file_eq "$tplist -v -l prog" expected-tplist.txt tplist.txt
	tplist_v ./libx.so >tplist-lib.txt
	echo "libx:lib__call 1 6" >expected-tplist-lib.txt
	expect_file_eq "$tplist -v -l libx.so" expected-tplist-lib.txt \
		tplist-lib.txt
fi

# ---------------------------------------------------------------------
# systemtap's <sys/sdt.h>: the same probe, the same values

sdt_h=
for h in /usr/include/x86_64-linux-gnu/sys/sdt.h /usr/include/sys/sdt.h; do
	if [ -r "$h" ]; then
		sdt_h=$h
		break
	fi
done
if [ -z "$sdt_h" ]; then
	echo "# no systemtap <sys/sdt.h> (systemtap-sdt-dev): its part is skipped"
elif run_dtrace -h -s "$data/refp.d" -o refp.h &&
	build_ok "ref.o" $CC -O2 -I. -include "$sdt_h" -c "$data/ref.c" \
		-o ref.o &&
	build_ok "dtrace -G refp" "$DTRACE" -G -s "$data/refp.d" \
		-o refp-probes.o ref.o &&
	build_ok "ref" $CC -o ref ref.o refp-probes.o; then
	timeout 60 bpftrace -o ref-bt.out -e '
		usdt:./ref:refp:triple, usdt:./ref:sdtref:triple {
			printf("%s %d %s 0x%lx\n", probe, arg0, str(arg1), arg2);
		}' -c ./ref >ref.out 2>ref-bt.err
	expect_eq "bpftrace on ref" 0 $?
	sed -n 's/^usdt:\.\/ref:refp:triple //p' ref-bt.out | sort >ref-G.txt
	sed -n 's/^usdt:\.\/ref:sdtref:triple //p' ref-bt.out | sort \
		>ref-sdt.txt
	cat >expected-ref.txt <<'EOF'
-1 triple 0x1122334455667788
-2 triple 0x1122334455667789
-3 triple 0x112233445566778a
EOF
	expect_file_eq "<sys/sdt.h> probe under bpftrace" expected-ref.txt \
		ref-sdt.txt
	expect_file_eq "-G probe under bpftrace, as <sys/sdt.h>'s" \
		ref-sdt.txt ref-G.txt
else
	fail "could not build the <sys/sdt.h> cross-check"
fi

finish
