#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-sdt-h.sh: `dtrace -h -x probestyle=inline`.
#
#  - the option: probestyle=inline (also -xprobestyle=inline), =call
#    writes exactly the default header, anything else is a usage error
#    (exit 2, nothing written); -G accepts it too, and --help shows it;
#  - the header: every probe macro expands to a _USDT_SDT_Pn() inline
#    probe, no __dtrace_ function is declared, the semaphores are those
#    of the call form; it carries, byte for byte, the machinery part of
#    sdk/include/sys/sdt.h; it does not depend on the directory it is
#    written from;
#  - tests/data/sdt/types.d (every kind of type, 0 and 12 arguments, two
#    providers): a program using every macro builds with gcc and clang as
#    C89, C99, C11, C2x, C++98, C++11 and C++20 with -Wall -Wextra
#    -Werror (-pedantic for C99, C11 and C++11), links with the -G object
#    and runs, with _ENABLED() false;
#  - each note's argument sizes and signs are the declared types', the
#    same as the notes `dtrace -G` writes for the call form of the file;
#  - arguments are checked as the call form's prototypes check them: an
#    int passed for a string is refused (C -Werror, C++);
#  - probes compiled out (-DUSDT_DISABLE_PROBES, -D_DTRACE_VERSION=0): no
#    note, no semaphore reference, arguments not evaluated, _ENABLED() 0;
#  - the header and <sys/sdt.h> in one file, in either order, and the
#    header twice, compile cleanly; probe macros work as expressions.

. "$top_srcdir/tests/lib.sh"

: "${CLANG:=}"
: "${CLANGXX:=}"
data=$top_srcdir/tests/data/sdt
inc=$top_srcdir/sdk/include

require_G readelf nm

have() {
	[ -n "$1" ] && command -v "$1" >/dev/null 2>&1
}

# ---------------------------------------------------------------------
# The option

cp "$data/types.d" .
run_dtrace -h -x probestyle=inline -s types.d -o types.h
expect_eq "-x probestyle=inline: status" 0 "$status"
expect_eq "-x probestyle=inline: quiet" "" "$(cat err.txt)"
# (the include guard comes from the output's name: same names, other
# directories)
mkdir joined explicit last
run_dtrace -h -xprobestyle=inline -s types.d -o joined/types.h
expect_eq "-xprobestyle=inline: status" 0 "$status"
expect_file_eq "-xprobestyle=inline is -x probestyle=inline" types.h \
	joined/types.h
run_dtrace -h -s types.d -o call-default.h
run_dtrace -h -x probestyle=call -s types.d -o explicit/call-default.h
expect_eq "-x probestyle=call: status" 0 "$status"
expect_file_eq "-x probestyle=call is the default" call-default.h \
	explicit/call-default.h
run_dtrace -h -x probestyle=inline -x probestyle=call -s types.d \
	-o last/call-default.h
expect_file_eq "the last -x probestyle wins" call-default.h \
	last/call-default.h

for bad in probestyle=bogus probestyle=INLINE probestyle= probestyle; do
	rm -f bad.h
	run_dtrace -h -x "$bad" -s types.d -o bad.h
	expect_eq "-x $bad: exit status" 2 "$status"
	expect_grep "-x $bad: says why" \
		"^dtrace: failed to set -x probestyle: .*use probestyle=call or probestyle=inline$" \
		err.txt
	expect_grep "-x $bad: points to --help" "Try 'dtrace --help'" err.txt
	expect_eq "-x $bad: no header written" no \
		"$([ -e bad.h ] && echo yes || echo no)"
done
run_dtrace -h -x probestyle=bogus -s types.d -o bad.h
expect_eq "-x probestyle=bogus: the message" \
	"dtrace: failed to set -x probestyle: 'bogus' is not a probe style; use probestyle=call or probestyle=inline" \
	"$(head -n 1 err.txt)"

run_dtrace -G -x probestyle=inline -s types.d -o g.o
expect_eq "-G accepts -x probestyle=inline" 0 "$status"
run_dtrace --help
expect_grep "--help documents probestyle" "probestyle=inline" out.txt

# ---------------------------------------------------------------------
# The header

for p in NONE INTS NAMED PTRS FLAG; do
	expect_grep "H_$p is an inline probe" "_USDT_SDT_P[0-9]*(h, " types.h
done
expect_grep "HX_X is an inline probe" "_USDT_SDT_P1(hx, x," types.h
if grep -q '__dtrace_' types.h; then
	fail "the inline header declares __dtrace_ functions"
else
	pass
fi
grep '^extern volatile unsigned short ' call-default.h >sema-call.txt
grep '^extern volatile unsigned short ' types.h >sema-inline.txt
expect_file_eq "the same semaphores as the call form" sema-call.txt \
	sema-inline.txt

# the machinery, as in <sys/sdt.h>
sed -n '/@@usdt-sdt-impl-begin@@/,/@@usdt-sdt-impl-end@@/p' \
	"$inc/sys/sdt.h" >impl-sdt.txt
sed -n '/@@usdt-sdt-impl-begin@@/,/@@usdt-sdt-impl-end@@/p' types.h \
	>impl-h.txt
[ -s impl-sdt.txt ] && pass || fail "no machinery in <sys/sdt.h>"
expect_file_eq "the header's copy of <sys/sdt.h>'s machinery" \
	impl-sdt.txt impl-h.txt

mkdir elsewhere
(cd elsewhere && "$DTRACE" -h -x probestyle=inline -s ../types.d \
	-o types.h)
if cmp -s types.h elsewhere/types.h; then pass; else
	fail "the header depends on the directory it was written from"
fi

# ---------------------------------------------------------------------
# A program using every macro, in every language standard

cat >use.c <<'EOF'
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include "types.h"

struct conn { int fd; };
static int evaluated;

static int touch(int v)
{
	evaluated++;
	return v;
}

int main(void)
{
	struct conn c = { 3 };
	char buf[8] = "str";

	H_NONE();
	H_INTS('c', (signed char)-2, (unsigned char)200, (short)-4,
	       (unsigned short)65535, touch(-6), 7U, -8L, 9UL, -10LL, 11ULL,
	       1);
	H_NAMED((int8_t)-1, (uint8_t)2, (int16_t)-3, (uint16_t)4, -5, 6U,
		(int64_t)-7, (uint64_t)8, (size_t)9, (ssize_t)-10, (pid_t)11,
		(uintptr_t)12);
	H_PTRS(buf, "c", &c, (void *)&c, 13U, 5);
	H_FLAG(c.fd == 3);
	HX_X(-1);
	if (H_NONE_ENABLED() || H_INTS_ENABLED() || H_NAMED_ENABLED() ||
	    H_PTRS_ENABLED() || H_FLAG_ENABLED() || HX_X_ENABLED())
		puts("enabled?");
	/* as expressions, like the call form */
	(void)(H_NONE(), 0);
	c.fd ? HX_X(c.fd) : (void)0;
	(void)buf;	/* used even with probes compiled out */
	(void)touch;
	printf("evaluated %d\n", evaluated);
	return 0;
}
EOF
cp use.c use.cc
W="-Wall -Wextra -Werror"

# a compile-and-run family: CC for C, CXX for C++
families="gcc:$CC:$CXX"
if have "$CLANG" && have "$CLANGXX"; then
	families="$families clang:$CLANG:$CLANGXX"
else
	echo "# CLANG or CLANGXX not set: gcc only"
fi

for fam in $families; do
	name=${fam%%:*}
	rest=${fam#*:}
	cc=${rest%%:*}
	cxx=${rest#*:}
	for std in c89 c99 c11 c2x c++98 c++11 c++20; do
		case $std in
		c++*) comp=$cxx src=use.cc ;;
		*) comp=$cc src=use.c ;;
		esac
		case $std in
		c99 | c11 | c++11) ped=-pedantic ;;
		*) ped= ;;
		esac
		t="$name -std=$std $ped"
		o=use-$name-$std
		if ! $comp -std=$std $ped $W -I. -c $src -o $o.o \
			>build.log 2>&1; then
			fail "$t: compile"
			sed 's/^/    | /' build.log >&2
			continue
		fi
		pass
		if ! "$DTRACE" -G -s types.d -o $o-probes.o $o.o \
			>build.log 2>&1 ||
		   ! $comp -o $o $o.o $o-probes.o >>build.log 2>&1; then
			fail "$t: -G and link"
			sed 's/^/    | /' build.log >&2
			continue
		fi
		expect_eq "$t: runs, arguments evaluated once, nothing enabled" \
			"evaluated 1" "$(./$o 2>&1)"
		expect_eq "$t: one note per probe use" 8 \
			"$(readelf -n $o | grep -c 'Provider: h')"
	done
done

# ---------------------------------------------------------------------
# Sizes and signs: the declared types', as -G writes them for the call
# form.  (Operands differ: the call form's are the ABI's registers.)

prefixes() {
	readelf -n "$1" | awk '
		/^ *Provider: / { p = $2 }
		/^ *Name: / { n = $2 }
		/^ *Arguments:/ {
			sub(/^ *Arguments: ?/, "")
			out = p " " n
			for (i = 1; i <= NF; i++) {
				x = $i; sub(/@.*/, "@", x); out = out " " x
			}
			print out
		}' | LC_ALL=C sort -u
}
sed 's/"types.h"/"call-default.h"/' use.c >use-call.c
if $CC -std=gnu11 $W -I. -c use-call.c -o use-call.o >build.log 2>&1 &&
   "$DTRACE" -G -s types.d -o use-call-probes.o use-call.o >>build.log 2>&1 &&
   $CC -o use-call use-call.o use-call-probes.o >>build.log 2>&1 &&
   [ -f use-gcc-c11 ]; then
	prefixes use-call >prefixes-call.txt
	prefixes use-gcc-c11 >prefixes-inline.txt
	expect_file_eq "sizes and signs: inline = call form" \
		prefixes-call.txt prefixes-inline.txt
	cat >expected-prefixes.txt <<'EOF'
h flag 1@
h ints -1@ -1@ 1@ -2@ 2@ -4@ 4@ -8@ 8@ -8@ 8@ 1@
h named -1@ 1@ -2@ 2@ -4@ 4@ -8@ 8@ 8@ -8@ -4@ 8@
h none
h ptrs 8@ 8@ 8@ 8@ 4@ -4@
hx x -4@
EOF
	expect_file_eq "sizes and signs of the declared types" \
		expected-prefixes.txt prefixes-inline.txt
else
	fail "could not build the call-form reference"
	sed 's/^/    | /' build.log >&2
fi

# ---------------------------------------------------------------------
# Any scalar goes to any argument, as with systemtap's headers (libvirt
# passes every argument as `void *`): converted to the declared type,
# without a warning, in C and C++.

cat >wrong.c <<'EOF'
#include "types.h"
void f(void);
void f(void) { H_PTRS(42, (void *)"c", 0, 0, 1U, 0); }
EOF
cp wrong.c wrong.cc
if $CC -std=gnu11 $W -I. -c wrong.c -o wrong.o >wrong.log 2>&1 &&
   [ ! -s wrong.log ]; then
	pass
else
	fail "an int for a string is refused or warned about (C)"
	sed 's/^/    | /' wrong.log >&2
fi
if $CXX $W -I. -c wrong.cc -o wrong.o >wrong.log 2>&1 && [ ! -s wrong.log ]
then
	pass
else
	fail "an int for a string is refused or warned about (C++)"
	sed 's/^/    | /' wrong.log >&2
fi

# ---------------------------------------------------------------------
# Compiled out

for off in -DUSDT_DISABLE_PROBES -D_DTRACE_VERSION=0; do
	if ! $CC -std=gnu11 $W $off -I. -o off use.c >build.log 2>&1; then
		fail "$off: build without the -G object"
		sed 's/^/    | /' build.log >&2
		continue
	fi
	expect_eq "$off: arguments not evaluated" "evaluated 0" "$(./off)"
	expect_eq "$off: no note" 0 "$(readelf -n off | grep -c stapsdt)"
	expect_eq "$off: no semaphore referenced" "" \
		"$(nm off | grep __usdt_sema)"
done

# ---------------------------------------------------------------------
# With <sys/sdt.h> in the same file, in either order; twice

for order in sdt-first h-first twice; do
	case $order in
	sdt-first) incs='#include <sys/sdt.h>
#include "types.h"' ;;
	h-first) incs='#include "types.h"
#include <sys/sdt.h>' ;;
	twice) incs='#include "types.h"
#include "types.h"
#include <sys/sdt.h>' ;;
	esac
	cat >both.c <<EOF
$incs
int main(void)
{
	int n = 3;

	H_FLAG(n > 2);
	HX_X(n);
	DTRACE_PROBE1(mixed, sdt, n);
	return 0;
}
EOF
	cp both.c both.cc
	for comp in "$CC both.c" "$CXX both.cc"; do
		# shellcheck disable=SC2086
		if $comp $W -I"$inc" -I. -c -o both.o >build.log 2>&1; then
			expect_eq "$order ($comp): three notes" 3 \
				"$(readelf -n both.o | grep -c 'Provider:')"
		else
			fail "$order ($comp): compile"
			sed 's/^/    | /' build.log >&2
		fi
	done
done

finish
