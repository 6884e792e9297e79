#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-G-merge.sh: dtrace -G puts drti.o into its output without running
# a linker (elfw_add_object()), and the result is what `ld -r` makes.
#
# The same program is built twice, once with the built-in merge and once
# with LD=ld (the linker path); for the two outputs:
#  - the built-in merge runs no linker: -G succeeds with PATH empty and
#    LD unset, and LD naming a missing program fails, naming it;
#  - the same sections (name and type; the section symbols aside), the
#    same symbols with the same binding, and the same relocations
#    (section, offset, type, symbol name, addend);
#  - every defined symbol but the semaphores, anchors and the stapsdt
#    base is local, and drti.o's reference to __SUNW_dof is resolved
#    inside the output (nothing undefined but libc);
#  - the linked programs print the same, carry the same stapsdt notes,
#    and run drti.o's constructor (its debug line names the program).
# Then drti.o built by clang (with .llvm_addrsig, which must be
# dropped) is merged the same way, and a drti.o the copy refuses (a
# COMDAT group) falls back to `ld -r`, saying so under -v.

. "$top_srcdir/tests/lib.sh"
require_G ld readelf nm

cat >mp.d <<'EOF'
provider mp {
	probe start(int, char *);
	probe done(long);
};
EOF
cat >main.c <<'EOF'
#include <stdio.h>
#include "mp.h"

int main(int argc, char **argv)
{
	(void)argv;
	MP_START(argc, "go");
	if (MP_DONE_ENABLED())
		puts("traced");
	MP_DONE(42L);
	puts("done");
	return 0;
}
EOF
"$DTRACE" -h -s mp.d -o mp.h || fail "dtrace -h"
$CC -O2 -c main.c -o main.o || fail "cc main.c"
cp main.o main-ld.o

# built-in: no linker anywhere
if env -u LD PATH=/nonexistent "$DTRACE" -G -s mp.d -o b.o main.o \
	2>err.txt; then
	pass
else
	fail "-G with no linker in PATH failed:"
	sed 's/^/    | /' err.txt >&2
fi
if LD=/nonexistent/ld "$DTRACE" -G -s mp.d -o x.o main-ld.o 2>err.txt; then
	fail "-G with LD naming a missing linker succeeded"
else
	expect_grep "LD is honoured, and named when it fails" \
		"/nonexistent/ld" err.txt
fi
expect_eq "a failed -G leaves no output" "no" \
	"$([ -e x.o ] && echo yes || echo no)"
cp main.o main-ld.o
LD=ld "$DTRACE" -G -s mp.d -o l.o main-ld.o || fail "-G with LD=ld"
expect_eq "the rewritten objects are the same either way" "same" \
	"$(cmp -s main.o main-ld.o && echo same || echo different)"

# sections: name and type
# (clang's .llvm_addrsig, which ld -r keeps, is dropped by the built-in
# merge: its symbol indices would be wrong after the copy)
sections() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) *\([A-Z_0-9+a-z]*\) .*/\1 \2/p' |
		grep -v -e '^NULL' -e '^\.llvm_addrsig ' | sort
}
sections b.o >b.sec
sections l.o >l.sec
expect_file_eq "sections" l.sec b.sec
# symbols other than section symbols: type, binding, section name, name
symbols() {
	readelf -sW "$1" | awk 'NR > 3 && $4 != "SECTION" && $4 != "FILE" {
		print $4, $5, ($7 == "UND" ? "UND" : "def"), $8 }' | sort
}
symbols b.o >b.sym
symbols l.o >l.sym
expect_file_eq "symbols" l.sym b.sym
# relocations, per section, by the name of the symbol (or section)
relocs() {
	readelf -rW "$1" | awk '/^Relocation section/ { sec = $3 }
		/^[0-9a-f]+ +[0-9a-f]+ +R_X86/ {
			print sec, $1, $3, $5, $6, $7 }' | sort
}
relocs b.o >b.rel
relocs l.o >l.rel
expect_file_eq "relocations" l.rel b.rel
expect_eq "there are relocations to compare" "yes" \
	"$([ "$(wc -l <b.rel)" -gt 100 ] && echo yes || echo no)"
# globals: only the semaphores, anchors and the stapsdt base
nm b.o | awk '$2 ~ /^[A-TV-Z]$/ { print $3 }' |
	grep -v -e '^__usdt_sema_' -e '^_\.stapsdt\.base$' -e '^\$dtrace[0-9a-f]*$' \
	>b.glob
expect_eq "defined globals of the merged output" "" "$(cat b.glob)"
expect_eq "__SUNW_dof is defined, local" "d __SUNW_dof" \
	"$(nm b.o | awk '$3 == "__SUNW_dof" { print $2, $3 }')"

$CC main.o b.o -o prog-b || fail "link with the built-in merge"
$CC main-ld.o l.o -o prog-l || fail "link with the ld -r merge"
./prog-b >b.out 2>&1
./prog-l >l.out 2>&1
expect_file_eq "the programs' output" l.out b.out
notes() {
	readelf -nW "$1" | grep -A3 stapsdt | grep -e Provider -e Arguments
}
notes prog-b >b.notes
notes prog-l >l.notes
expect_file_eq "the programs' stapsdt notes" l.notes b.notes
expect_eq "two sites and the header's two probe stubs noted" 4 "$(grep -c Provider b.notes)"
DTRACE_DOF_INIT_DEBUG=1 DTRACE_DOF_INIT_DEVNAME=/nonexistent ./prog-b \
	>/dev/null 2>dbg.txt
expect_grep "drti.o's constructor runs" \
	'^dtrace DOF prog-b: cannot open helper device "/nonexistent"' dbg.txt

# drti.o built by clang: .llvm_addrsig is dropped
if command -v clang >/dev/null 2>&1; then
	clang -O2 -g -fPIC -I"$top_srcdir/sdk/include" \
		-c "$top_srcdir/drti/drti.c" -o drti-clang.o 2>clang.err ||
		fail "clang drti.c: $(cat clang.err)"
	cp main-ld.o main-c.o
	DTRACE_DRTI=$PWD/drti-clang.o "$DTRACE" -v -G -s mp.d -o c.o \
		main-c.o >/dev/null 2>c.err || fail "-G with clang's drti.o"
	expect_eq "clang's drti.o has .llvm_addrsig" 1 \
		"$(readelf -SW drti-clang.o | grep -c '\.llvm_addrsig')"
	expect_eq "and it is merged without ld" 0 \
		"$(grep -c 'ld -r' c.err)"
	expect_eq "without its .llvm_addrsig" 0 \
		"$(readelf -SW c.o | grep -c '\.llvm_addrsig')"
	$CC main-c.o c.o -o prog-c || fail "link with clang's drti.o"
	DTRACE_DOF_INIT_DEBUG=1 DTRACE_DOF_INIT_DEVNAME=/nonexistent \
		./prog-c >c.out 2>dbg.txt
	expect_file_eq "clang's drti.o: the program's output" l.out c.out
	expect_grep "clang's drti.o: its constructor runs" \
		'^dtrace DOF prog-c: cannot open helper device' dbg.txt
else
	echo "# no clang: its part is skipped"
fi

# a drti.o the copy refuses (a COMDAT group): ld -r does it
cat >grp.s <<'EOF'
	.section .text.grp_value,"axG",@progbits,grp_value,comdat
	.globl grp_value
	.hidden grp_value
	.type grp_value, @function
grp_value:
	movl $7, %eax
	ret
	.section .note.GNU-stack,"",@progbits
EOF
$CC -c grp.s -o grp.o || fail "as grp.s"
ld -r -o drti-grp.o "$DTRACE_DRTI" grp.o || fail "ld -r drti.o grp.o"
cp main-ld.o main-g.o
DTRACE_DRTI=$PWD/drti-grp.o "$DTRACE" -v -G -s mp.d -o g.o main-g.o \
	>/dev/null 2>g.err || fail "-G with a grouped drti.o"
expect_grep "a refused drti.o is merged with ld -r, said under -v" \
	'a section of a kind it does not copy; merging it with ld -r' g.err
$CC main-g.o g.o -o prog-g || fail "link with the grouped drti.o"
./prog-g >g.out 2>&1
expect_file_eq "grouped drti.o: the program's output" l.out g.out

finish
