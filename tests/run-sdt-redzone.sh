#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-sdt-redzone.sh: tracing an inline probe never corrupts the red zone.
#
# tests/data/sdt/redzone.c has a leaf function that keeps an array in the
# x86-64 red zone (below %rsp, which it never moves) across a <sys/sdt.h>
# probe.  Linux 6.18 turns a uprobe on the 5-byte NOP 0f 1f 44 00 00
# into a call to a trampoline, which writes below %rsp: traced, such a
# probe would change the function's results.  <sys/sdt.h> puts the probe
# on a 1-byte NOP followed by a 10-byte NOP instead.  Built with gcc and
# clang at -O0 and -O2:
#  - leaf() calls nothing, never moves %rsp and stores below it (so the
#    test tests what it claims);
#  - the note's location holds 90 66 2e 0f 1f 84 00 00 00 00 00;
#  - traced by bpftrace for every one of many calls, the program prints
#    the same checksum as untraced, and bpftrace counts every hit.
# The control, the same probe written by hand on the 5-byte NOP, is
# traced too: on a kernel that optimizes it, its checksum changes, which
# shows the test can see the corruption (on one that does not, this is
# said and nothing fails).  Needs root and bpftrace.

. "$top_srcdir/tests/lib.sh"

: "${CLANG:=}"
data=$top_srcdir/tests/data/sdt
inc=$top_srcdir/sdk/include
calls=100000

[ "$(id -u)" -eq 0 ] || skip "not root: bpftrace needs root"
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"
for t in bpftrace objdump readelf; do
	command -v $t >/dev/null 2>&1 || skip "no $t"
done
case $(uname -m) in
x86_64) ;;
*) skip "the red zone and this encoding are x86-64's; this is $(uname -m)" ;;
esac

# gcc whatever $CC is, and clang; $CC when neither is there
compilers=$(gcc_driver "$CC" c)
if [ -n "$CLANG" ] && command -v "$CLANG" >/dev/null 2>&1; then
	compilers="$compilers $CLANG"
else
	echo "# CLANG not set: no clang build"
fi
[ -n "$compilers" ] || compilers=$CC

# is_leaf BIN: leaf() calls nothing and never moves %rsp (at -O0 it
# may set up %rbp as a copy of it), and it stores below %rsp
is_leaf() {
	objdump -d --no-show-raw-insn "$1" |
		awk '/^[0-9a-f]+ <leaf>:$/ { on = 1; next } on && /^$/ { exit }
			on { print }' >leaf.s
	[ -s leaf.s ] &&
	! grep -q -E '\<call|(sub|add|lea|and) .*,%rsp$' leaf.s &&
	! grep -E 'push ' leaf.s | grep -q -v -E 'push +%rbp$' &&
	grep -q -E 'mov .*,-0x[0-9a-f]+\(%r[sb]p' leaf.s
}

# site_bytes BIN: the 11 bytes at the rz:hit note's location, from the
# file (the address less .text's, plus its offset)
site_bytes() {
	sb_loc=$(readelf -n "$1" | awk '/Name: hit/ { f = 1 }
		f && /Location:/ { sub(",", "", $2); print $2; exit }')
	sb_text=$(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk '$1 == ".text" { print $3, $4 }')
	[ -n "$sb_loc" ] && [ -n "$sb_text" ] || return 1
	set -- "$1" $sb_text
	od -An -tx1 -v -j $((sb_loc - 0x$2 + 0x$3)) -N 11 "$1" | tr -d ' \n'
}

# traced BIN: the program's output while bpftrace counts every hit
traced() {
	timeout 300 bpftrace -B none -e "usdt:./$1:rz:hit { @hits = count(); }" \
		-c "./$1 $calls" >"$1.bt" 2>"$1.bt-err"
}

for cc in $compilers; do
	for opt in -O0 -O2; do
		b=rz-$(basename "$cc")$opt
		if ! $cc $opt -Wall -I"$inc" -o "$b" "$data/redzone.c" \
			>build.log 2>&1 ||
		   ! $cc $opt -Wall -I"$inc" -DRZ_NOP5 -o "$b-nop5" \
			"$data/redzone.c" >>build.log 2>&1; then
			fail "$b: build"
			sed 's/^/    | /' build.log >&2
			continue
		fi
		if is_leaf "$b"; then
			pass
		else
			fail "$b: leaf() is not a leaf keeping data below %rsp:"
			sed 's/^/    | /' leaf.s >&2
		fi
		expect_eq "$b: the site's bytes" 90662e0f1f840000000000 \
			"$(site_bytes "$b")"

		plain=$(./"$b" $calls)
		expect_eq "$b: untraced" \
			"calls $calls" "$(echo "$plain" | cut -d' ' -f1,2)"
		if traced "$b"; then
			pass
		else
			fail "$b: bpftrace failed"
			sed 's/^/    | /' "$b.bt-err" >&2
		fi
		expect_eq "$b: traced, the same results" "$plain" \
			"$(grep '^calls ' "$b.bt")"
		expect_eq "$b: bpftrace saw every call" "@hits: $calls" \
			"$(grep '^@hits: ' "$b.bt")"

		# the control: the unsafe encoding
		ctl_plain=$(./"$b-nop5" $calls)
		expect_eq "$b-nop5: untraced, the same results" "$plain" \
			"$ctl_plain"
		traced "$b-nop5"
		ctl=$(grep '^calls ' "$b-nop5.bt")
		if [ "$ctl" != "$plain" ]; then
			echo "# $b-nop5: traced, the control's results change: this kernel corrupts the red zone at a 5-byte NOP"
		else
			echo "# $b-nop5: the control is not corrupted here (the kernel does not optimize 5-byte NOP uprobes), so this test proves less"
		fi
	done
done

finish
