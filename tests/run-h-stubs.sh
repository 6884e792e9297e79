#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The probe stubs of a `dtrace -h` header (doc/DESIGN.md §3, §10): an
# object carries a probe's stub, its stapsdt note and its semaphore only
# where a probe macro is compiled, so readelf, bpftrace and our `dtrace -l`
# list only probes that can fire.  Checked with gcc and clang at -O0, -O2
# and -O2 -flto, in a program and a shared library (-z defs):
#  - a probe called from two units and two functions: one stub, one note
#    in the linked file (COMDAT);
#  - a probe whose only call is dead code (`if (0)`), and one never used:
#    no note, no stub;
#  - a probe used only through _ENABLED(): its semaphore is defined (the
#    link succeeds with -z defs), no note;
#  - the stubs still fire: bpftrace and `dtrace -c` count every call;
#  - our dtrace names a stub's probe by each function that calls it, as
#    for a site -G rewrote (doc/DESIGN.md §10): `dtrace -l` lists u1 and
#    u2 for p:::called, a hit's probefunc is its caller's, a description
#    naming a function takes its calls alone, and arguments on the stack
#    (the seventh, eighth) and a tail jump to the stub read right.
# A header that defined every stub in every object (before) gives four
# notes per file here.

. "$top_srcdir/tests/lib.sh"

stubs_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap stubs_cleanup EXIT

command -v "${CC%% *}" >/dev/null 2>&1 || skip "no C compiler ($CC)"
command -v readelf >/dev/null 2>&1 || skip "no readelf"
case $(uname -m) in
x86_64 | aarch64) ;;
*) skip "the header's stubs are x86-64 and aarch64 code" ;;
esac

cat >p.d <<'D'
provider p {
	probe called(int);
	probe other(const char *);
	probe dead(int);
	probe never(int);
	probe enonly();
};
D
run_dtrace -h -s p.d -o p.h
expect_eq "dtrace -h" 0 "$status"

cat >u1.c <<'C'
#include "p.h"
void u1(int i) { P_CALLED(i); }
C
cat >u2.c <<'C'
#include "p.h"
extern int flag;
int flag;
void u2(int i)
{
	P_CALLED(i * 2);
	if (0)
		P_DEAD(i);
	flag = P_ENONLY_ENABLED();
}
C
cat >lib.c <<'C'
#include "p.h"
void lib_other(const char *s) { if (P_OTHER_ENABLED()) P_OTHER(s); }
void lib_called(int i) { P_CALLED(i); }
C
cat >main.c <<'C'
#include <stdlib.h>
void u1(int), u2(int), lib_other(const char *), lib_called(int);
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++) {
		u1(i);
		u2(i);
		lib_other("x");
		lib_called(i);
	}
	return 0;
}
C

# the probes of a stub by caller need x86-64 and binutils' disassembler
# (elsewhere the stub is the site, named by its own symbol)
bycaller=
if [ "$(uname -m)" = x86_64 ] && [ -n "${top_builddir:-}" ] &&
   grep -q '^#define HAVE_LIBOPCODES 1' "$top_builddir/config.h"; then
	bycaller=yes
else
	echo "# not x86-64 or no libopcodes: stubs by caller are not checked"
fi

# names BIN: the probe names of BIN's stapsdt notes, sorted, one line
names() {
	readelf -n "$1" | sed -n 's/^ *Name: //p' | LC_ALL=C sort | tr '\n' ' '
}

ccs=
for c in "$CC" clang; do
	command -v "$c" >/dev/null 2>&1 || continue
	case " $ccs " in *" $c "*) continue ;; esac
	ccs="$ccs $c"
done
for c in $ccs; do
	for opt in -O0 -O2 "-O2 -flto"; do
		v="$c$(echo "$opt" | tr -d ' ')"
		mkdir -p "$v"
		if ! (cd "$v" &&
		      $c $opt -std=gnu99 -Wall -Wextra -Werror -fPIC -shared \
			-Wl,-z,defs ../lib.c -o libp.so &&
		      $c $opt -std=gnu99 -Wall -Wextra -Werror ../main.c \
			../u1.c ../u2.c -I.. -L. -lp -Wl,-rpath,"$PWD" \
			-Wl,-z,defs -o prog) >"$v.log" 2>&1; then
			fail "$v: build"
			sed 's/^/    | /' "$v.log" >&2
			continue
		fi
		pass
		expect_eq "$v: the program's notes" "called " "$(names "$v/prog")"
		expect_eq "$v: the library's notes" "called other " \
			"$(names "$v/libp.so")"
		expect_eq "$v: the program's probe stubs" 1 \
			"$(readelf -sW "$v/prog" | grep -c ' __dtrace_p___')"
		expect_eq "$v: the program's semaphores (called, enonly)" 2 \
			"$(readelf -sW "$v/prog" | grep -c ' __usdt_sema_p___')"
		# by caller: the functions objdump shows calling the stub
		# (u1 and u2, or main where -flto inlined them)
		run_dtrace -l --object="$v/prog"
		[ -z "$bycaller" ] || expect_eq "$v: dtrace -l of the program, by caller" \
			"$(objdump -d "$v/prog" | awk '/^[0-9a-f]+ <.*>:$/ {
				f = $2; gsub(/[<>:]/, "", f) }
				/(call|jmp) .*<__dtrace_p___called>/ { print f ":called" }' |
			   LC_ALL=C sort -u | tr '\n' ' ')" \
			"$(awk 'NR > 1 && $2 == "p" { print $4 ":" $5 }' out.txt |
			   LC_ALL=C sort | tr '\n' ' ')"
		run_dtrace -l --object="$v/libp.so"
		expect_eq "$v: dtrace -l of the library" \
			"called other " \
			"$(awk 'NR > 1 && $2 == "p" { print $NF }' out.txt |
			   LC_ALL=C sort | tr '\n' ' ')"
	done
done

# bpftrace lists and counts the same; dtrace -c counts every call
if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1; then
	echo "# not root or no bpftrace: the tracing part is skipped"
else
	v=$(echo "${CC%% *}-O2" | tr -d ' ')
	[ -x "$v/prog" ] || v=$(ls -d ./*-O2 | head -1)
	expect_eq "bpftrace -l of the program" "usdt:$tmp/$v/prog:p:called" \
		"$(bpftrace -l "usdt:$tmp/$v/prog:*" 2>&1)"
	expect_eq "bpftrace -l of the library" \
		"usdt:$tmp/$v/libp.so:p:called usdt:$tmp/$v/libp.so:p:other" \
		"$(bpftrace -l "usdt:$tmp/$v/libp.so:*" 2>&1 | LC_ALL=C sort |
		   tr '\n' ' ' | sed 's/ $//')"
	# attached by path before the program starts (bpftrace's -c looks
	# the library up before the program maps it)
	: >bt.txt
	bpftrace -B none -e "BEGIN { printf(\"ready\\n\"); }
		usdt:$tmp/$v/prog:p:called, usdt:$tmp/$v/libp.so:p:called {
			@c = count(); }
		usdt:$tmp/$v/libp.so:p:other { @o = count(); }" \
		>bt.txt 2>bt.err &
	bt_pid=$!
	bg_pids="$bg_pids $bt_pid"
	if wait_until 600 grep -q '^ready$' bt.txt; then
		"$v/prog" 100 || fail "$v/prog under bpftrace"
	else
		fail "bpftrace never attached"
	fi
	stop_bt $bt_pid
	expect_eq "bpftrace: called fires 300 times" 300 \
		"$(sed -n 's/^@c: //p' bt.txt)"
	expect_eq "bpftrace: other fires 100 times" 100 \
		"$(sed -n 's/^@o: //p' bt.txt)"
fi

# our dtrace: every call counted, by caller
if [ "$(id -u)" -ne 0 ] || [ -z "$bycaller" ]; then
	echo "# not root, or no stubs by caller: dtrace -c is not run"
else
	v=$(echo "${CC%% *}-O2" | tr -d ' ')
	[ -x "$v/prog" ] || v=$(ls -d ./*-O2 | head -1)
	run_dtrace -q -c "$v/prog 100" -n 'p$target:::called { @c = count(); }
		p$target:::other { @o = count(); }
		END { printa("%@d ", @c); printa("%@d\n", @o); }'
	expect_eq "dtrace -c: called and other fire 300 and 100 times" \
		"300 100" "$(sed '/^$/d' out.txt)"
	run_dtrace -q -c "$v/prog 100" -n 'p$target:::called {
		@[probemod, probefunc] = count(); }
		END { printa("%s %s %@d\n", @); }'
	expect_eq "dtrace -c: probefunc is the caller's" \
		"libp.so lib_called 100 prog u1 100 prog u2 100" \
		"$(sed '/^$/d' out.txt | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
	run_dtrace -q -c "$v/prog 100" -n 'p$target::u2:called { @ = sum(arg0); }
		END { printa("%@d\n", @); }'
	expect_eq "dtrace -c: p\$target::u2:called takes u2's calls alone" \
		"9900" "$(sed '/^$/d' out.txt)"

	# arguments on the stack, at a call and at a tail jump
	cat >w.d <<'D'
provider w {
	probe eight(int, int, int, int, int, int, int, long);
	probe tail(int, int, int, int, int, int, int, long);
};
D
	cat >w.c <<'C'
#include "w.h"
__attribute__((noinline)) void f8(int i)
{
	W_EIGHT(1, 2, 3, 4, 5, 6, 7 + i, 800L + i);
}
/* its own arguments passed on: a tail jump, the stack as the stub's */
__attribute__((noinline)) void ft(int a, int b, int c, int d, int e, int f,
				  int g, long h)
{
	W_TAIL(a, b, c, d, e, f, g, h);
}
int main(void)
{
	for (int i = 0; i < 2; i++) {
		f8(i);
		ft(1, 2, 3, 4, 5, 6, 70 + i, 900L + i);
	}
	return 0;
}
C
	if "$DTRACE" -h -s w.d -o w.h && $CC -O2 w.c -o w 2>cc.txt; then
		objdump -d w >w.dis
		expect_grep "w: f8 calls the stub" 'call.*<__dtrace_w___eight>' w.dis
		expect_grep "w: ft jumps to the stub" 'jmp.*<__dtrace_w___tail>' w.dis
		run_dtrace -q -c ./w -n 'w$target:::eight, w$target:::tail {
			printf("%s %s %d %d\n", probefunc, probename, arg6, arg7); }'
		printf '%s\n' "f8 eight 7 800" "ft tail 70 900" "f8 eight 8 801" \
			"ft tail 71 901" >want.txt
		sed '/^$/d' out.txt >got.txt
		expect_file_eq "w: callers and stack arguments" want.txt got.txt
	else
		fail "w: build"
		sed 's/^/    | /' cc.txt >&2
	fi
fi

finish
