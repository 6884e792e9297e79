#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The DOF that dtrace -G writes, read back with the project's own reader
# (sdk/dof_check.c, through tests/tools/dofdump) and checked field by
# field against the provider file: header version (2, because of a legacy
# is-enabled site), provider attributes from #pragma D attributes, one
# probe record per (probe, function) with static functions named (GCC's
# clone suffixes such as .constprop.0 dropped), native
# types with typedefs expanded and _Bool, translated types with D's
# string and the argument map of a reordered translated list, a probe
# never called left out, is-enabled offsets apart from probe offsets, and
# each dofpr_addr relocated against the function's hidden alias.  In the
# linked program every DOF site is exactly a stapsdt note location, and
# every site holds the NOP -G wrote.

. "$top_srcdir/tests/lib.sh"

# This test checks exactly what -G writes for the calls it is given, so
# its objects leave out the probe stubs a header defines (a note each,
# for every declared probe): USDT_NO_PROBE_STUBS.  tests/run-dropin.sh
# covers the stubs.
CC="${CC:-cc} -DUSDT_NO_PROBE_STUBS"
CXX="${CXX:-c++} -DUSDT_NO_PROBE_STUBS"
[ -n "${CLANG:-}" ] && CLANG="$CLANG -DUSDT_NO_PROBE_STUBS"
[ -n "${CLANGXX:-}" ] && CLANGXX="$CLANGXX -DUSDT_NO_PROBE_STUBS"

: "${DOFDUMP:?DOFDUMP must name tests/tools/dofdump}"
command -v objdump >/dev/null 2>&1 || skip "objdump (binutils) is missing"

cat >p.d <<'D'
#pragma D attributes Evolving/Evolving/Common provider app provider
#pragma D attributes Stable/Unstable/ISA provider app args
typedef unsigned int Oid;
struct conn;
provider app {
	probe start(const char *q, Oid db) : (Oid db, string q);
	probe flag(bool on, long n);
	probe conn(struct conn *c);
	probe never(int);
	probe check();
};
provider other {
	probe tick();
};
D
cat >a.c <<'C'
#include <stdbool.h>
#include <stdio.h>
#include "p.h"
extern int __dtraceenabled_app___check(void);
struct conn { int fd; };
static __attribute__((noinline)) int helper(const char *q)
{
	APP_START(q, 7);
	return 1;
}
int main(int argc, char **argv)
{
	struct conn c = { 3 };

	(void)argv;
	helper("x");
	APP_START("y", 8);
	APP_FLAG(argc > 1, -2);
	APP_CONN(&c);
	if (__dtraceenabled_app___check())
		puts("check is on");
	OTHER_TICK();
	return 0;
}
C

run_dtrace -h -s p.d
expect_eq "-h" 0 "$status"
$CC -O2 -c a.c -o a.o || fail "cannot compile a.c"
run_dtrace -G -s p.d -o probes.o a.o
expect_eq "-G" 0 "$status"
"$DOFDUMP" probes.o >dump.txt 2>err.txt
expect_eq "dofdump of the -G output" 0 "$?"

# offsets depend on the compiler: keep how many there are
sed -E -e '/^sec /d' -e '/^(section|blob|elf) /d' \
	-e 's/\$dtrace[0-9a-f]{12}\.([a-z]+)[.a-z0-9]*/$dtraceH.\1/g' \
	-e 's/ addr=0x[0-9a-f]+/ addr=A/' \
	-e 's/ (offs|enoffs)=(0x[0-9a-f]+(,0x[0-9a-f]+)*)?/ \1=[\2]/g' \
	-e 's/^(elfreloc) off=0x[0-9a-f]+/\1/' dump.txt |
	awk '{ for (i = 1; i <= NF; i++)
		if ($i ~ /^(offs|enoffs)=\[/) {
			v = $i; sub(/^[a-z]*=\[/, "", v); sub(/\]$/, "", v)
			n = v == "" ? 0 : split(v, x, ",")
			sub(/=\[.*$/, "=" n, $i)
		}
		print }' >actual.txt
sed "s/^hdr version=2 .*/&/" >expected.txt <<'X'
hdr version=2 model=2 encoding=1 difvers=2 difireg=8 diftreg=8 flags=0x0 hdrsize=64 secsize=32 secnum=10 secoff=0x40 loadsz=LOAD filesz=LOAD
provider app provattr=Evolving/Evolving/Common modattr=Private/Private/Unknown funcattr=Private/Private/Unknown nameattr=Private/Private/Unknown argsattr=Stable/Unstable/ISA probes=5
probe app:helper:start addr=A nargc=2 nargv="const char *","unsigned int" xargc=2 xargv="unsigned int","string" argmap=1,0 offs=1 enoffs=0
probe app:main:start addr=A nargc=2 nargv="const char *","unsigned int" xargc=2 xargv="unsigned int","string" argmap=1,0 offs=1 enoffs=0
probe app:main:flag addr=A nargc=2 nargv="_Bool","long" xargc=2 xargv="_Bool","long" argmap=0,1 offs=1 enoffs=0
probe app:main:conn addr=A nargc=1 nargv="struct conn *" xargc=1 xargv="struct conn *" argmap=0 offs=1 enoffs=0
probe app:main:check addr=A nargc=0 nargv= xargc=0 xargv= argmap= offs=0 enoffs=1
provider other provattr=Private/Private/Unknown modattr=Private/Private/Unknown funcattr=Private/Private/Unknown nameattr=Private/Private/Unknown argsattr=Private/Private/Unknown probes=1
probe other:main:tick addr=A nargc=0 nargv= xargc=0 xargv= argmap= offs=1 enoffs=0
elfreloc R_X86_64_64 sym=$dtraceH.helper+0 probe=app:helper:start
elfreloc R_X86_64_64 sym=$dtraceH.main+0 probe=app:main:start
elfreloc R_X86_64_64 sym=$dtraceH.main+0 probe=app:main:flag
elfreloc R_X86_64_64 sym=$dtraceH.main+0 probe=app:main:conn
elfreloc R_X86_64_64 sym=$dtraceH.main+0 probe=app:main:check
elfreloc R_X86_64_64 sym=$dtraceH.main+0 probe=other:main:tick
X
sed -i -E 's/(loadsz|filesz)=0x[0-9a-f]+/\1=LOAD/g' actual.txt
# Records follow the order of the functions in the object, which is the
# compiler's (gcc emits helper first, clang main): sort each run of
# records of one kind, keeping the runs (a provider's probes stay under
# it) in place.
by_run() {
	awk '{ if ($1 != prev) run++; prev = $1; printf "%04d %s\n", run, $0 }' "$1" |
		sort | cut -c6- >"$1.sorted"
}
by_run expected.txt
by_run actual.txt
expect_file_eq "DOF of the -G output" expected.txt.sorted actual.txt.sorted

# the aliases the relocations use exist, hidden, in the rewritten object
for f in helper main; do
	expect_grep "alias of $f in a.o" \
		"NOTYPE  GLOBAL HIDDEN .* \\\$dtrace[0-9a-f]*\\.$f[.a-z0-9]*\$" \
		"$(readelf -sW a.o >syms.txt; echo syms.txt)"
done

# the linked program: DOF sites are exactly the stapsdt note locations
$CC a.o probes.o -o prog || fail "cannot link prog"
./prog >out.txt
expect_eq "legacy is-enabled site reads 0" "" "$(cat out.txt)"
"$DOFDUMP" prog >pdump.txt 2>err.txt
expect_eq "dofdump of the program" 0 "$?"
sed -n 's/^ site 0x\([0-9a-f]*\) .*/\1/p' pdump.txt | sort >dof-sites.txt
readelf -nW prog | sed -n 's/.*Location: 0x0*\([0-9a-f]*\),.*/\1/p' |
	sort >note-sites.txt
expect_eq "five probe sites" 5 "$(wc -l <dof-sites.txt)"
expect_file_eq "DOF sites = note locations" note-sites.txt dof-sites.txt
expect_eq "one is-enabled site" 1 "$(grep -c '^ ensite ' pdump.txt)"
expect_eq "every dofpr_addr resolves to the start of its function" 6 \
	"$(grep -c '^ resolved addr=0x[0-9a-f]* sym=\(main\|helper[.a-z0-9]*\)+0x0$' pdump.txt)"

# each site holds the 4-byte NOP, then a 1-byte NOP (a call) or ret (a
# tail call); each is-enabled site xor %eax,%eax
for a in $(cat dof-sites.txt); do
	objdump -d --start-address=0x$a --stop-address=$((0x$a + 5)) prog |
		grep -v '^$' | tail -n 2 | tr -s ' \t' ' ' >insn.txt
	if grep -q "0f 1f 40 00 nopl" insn.txt &&
	   { grep -q ": 90 nop" insn.txt || grep -q ": c3 ret" insn.txt; }; then
		pass
	else
		fail "site 0x$a holds neither rewrite: $(cat insn.txt)"
	fi
done
e=$(sed -n 's/^ ensite 0x\([0-9a-f]*\) .*/\1/p' pdump.txt)
objdump -d --start-address=0x$e --stop-address=$((0x$e + 2)) prog |
	grep -q '31 c0 *	xor *%eax,%eax' &&
	pass || fail "is-enabled site 0x$e is not xor %eax,%eax"
finish
