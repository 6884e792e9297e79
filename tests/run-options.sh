#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The command line: -V, --help, usage errors (exit 2), the options build
# systems pass (-xnolibs, -x nolibs, -64, bundled flags), default output
# names and include guards, and the tiny scripts configure checks feed in.

. "$top_srcdir/tests/lib.sh"

cat >p.d <<'D'
provider conftest { probe fire(); };
D

# -V and --version
run_dtrace -V
expect_eq "-V status" 0 "$status"
expect_eq "-V output" "dtrace: Sun D 1.13 compatible ($PACKAGE_STRING)" "$(cat out.txt)"
run_dtrace --version
expect_eq "--version status" 0 "$status"
expect_grep "--version output" "Sun D" out.txt

# --help goes to stdout and succeeds
run_dtrace --help
expect_eq "--help status" 0 "$status"
expect_grep "--help usage line" "^Usage: dtrace " out.txt
expect_grep "--help documents -h" "^  -h " out.txt
expect_grep "--help documents -C" "^  -C " out.txt
expect_eq "--help stderr" "" "$(cat err.txt)"

# usage errors exit 2 with a message and a pointer to --help
for args in "-k" "--bogus" "-h -s" "-x" "-h -G -s p.d" "-s p.d" "-h" "-3x" \
	    "-h -s p.d -s p.d"; do
	# shellcheck disable=SC2086
	run_dtrace $args
	expect_eq "'$args' exits 2" 2 "$status"
	expect_grep "'$args' says try --help" "Try 'dtrace --help'" err.txt
done
run_dtrace -k
expect_eq "unknown option message" "dtrace: invalid option -k" "$(head -n 1 err.txt)"
run_dtrace -h -s
expect_eq "missing argument message" "dtrace: option -s requires an argument" \
	"$(head -n 1 err.txt)"
run_dtrace -s p.d
expect_eq "no mode message" \
	"dtrace: no mode given: p.d declares providers and no probe clauses; use -h to write a header or -G to link" \
	"$(head -n 1 err.txt)"
# tracing options checked before anything runs
for args in "-x bufsize=abc -n BEGIN" "-x bufsize=1 -n BEGIN" \
	    "-x switchrate=fast -n BEGIN" "-c true -h -s p.d" "-p 1" "-c true" \
	    "-n BEGIN --object=p.d"; do
	# shellcheck disable=SC2086
	run_dtrace $args
	expect_eq "'$args' exits 2" 2 "$status"
done
run_dtrace -x bufsize=abc -n BEGIN
expect_eq "bad bufsize message" "dtrace: failed to set -x bufsize: 'abc' is not a size from 4k to 1g" \
	"$(head -n 1 err.txt)"
run_dtrace -c true
expect_grep "-c without probes" "no probes specified" err.txt
run_dtrace -c true -h -s p.d
expect_grep "-c with -h" "cannot be used with -h" err.txt

run_dtrace -x bogus -h -s p.d
expect_eq "unknown -x option" 2 "$status"
expect_eq "unknown -x message" "dtrace: failed to set -x bogus: unknown option" \
	"$(head -n 1 err.txt)"
expect_eq "no header after a usage error" "no" "$([ -e p.h ] && echo yes || echo no)"

# -32 is refused with a reason; -64 is accepted
run_dtrace -32 -h -s p.d
expect_eq "-32 status" 1 "$status"
expect_grep "-32 message" "32-bit programs are not supported" err.txt
for flags in "-64" "-xnolibs" "-x nolibs" "-x nolibs -64"; do
	rm -f p.h
	# shellcheck disable=SC2086
	run_dtrace $flags -h -s p.d
	expect_eq "'$flags -h' status" 0 "$status"
	expect_eq "'$flags -h' writes p.h" yes "$([ -f p.h ] && echo yes)"
done
# options after -h, as Perl writes them
rm -f p.h
run_dtrace -h -xnolibs -s p.d -o p.h
expect_eq "Perl's option order" 0 "$status"
# bundled flags
rm -f p.h
run_dtrace -hs p.d
expect_eq "bundled -hs" 0 "$status"
expect_eq "bundled -hs writes p.h" yes "$([ -f p.h ] && echo yes)"

# configure probes: a script with only a clause
echo 'BEGIN{}' >conftest.d
run_dtrace -x nolibs -h -s conftest.d -o conftest.h
expect_eq "BEGIN{} with -x nolibs -h" 0 "$status"
expect_grep "BEGIN{} header has a guard" "^#ifndef _CONFTEST_H$" conftest.h
expect_eq "BEGIN{} is quiet" "" "$(cat err.txt)"
printf 'int main(void) { return 0; }\n' >c.c
if ! $CC -Wall -Wextra -Werror -include conftest.h -c c.c -o c.o 2>cc.txt; then
	fail "an empty header does not compile: $(cat cc.txt)"
else
	pass
fi

# default output: the script's base name with .h, in the current directory
mkdir sub out
cp p.d sub/prov.d
rm -f p.h
run_dtrace -h -s sub/prov.d
expect_eq "default output status" 0 "$status"
expect_eq "default output in cwd" yes "$([ -f prov.h ] && echo yes)"
expect_eq "nothing beside the script" no "$([ -f sub/prov.h ] && echo yes || echo no)"
expect_grep "guard from the output name" "^#define _PROV_H$" prov.h
umask 022
perms=$(stat -c %a prov.h)
expect_eq "header permissions under umask 022" 644 "$perms"

# the guard follows -o, as Ruby's build relies on (probes.h.tmp)
run_dtrace -o out/probes.h.tmp -h -s p.d
expect_grep "guard from -o" "^#ifndef _PROBES_H_TMP$" out/probes.h.tmp
expect_grep "guard end comment" "^#endif /\* _PROBES_H_TMP \*/$" out/probes.h.tmp
expect_eq "no temporary files beside the output" "probes.h.tmp" "$(ls -A out)"

# -o - writes to standard output, guard from the default name
run_dtrace -h -s sub/prov.d -o -
expect_eq "-o - status" 0 "$status"
expect_grep "-o - prints the header" "^#define _PROV_H$" out.txt
expect_grep "-o - prints the macro" "CONFTEST_FIRE()" out.txt

# output is deterministic
run_dtrace -h -s p.d -o a.h
mv a.h first.h
run_dtrace -h -s p.d -o a.h
if cmp -s first.h a.h; then pass; else fail "two runs differ"; fi

# -x cpp and -x cpppath=... as DTrace spells -C and $CPP
cat >m.d <<'D'
#define T int
provider m { probe a(T); };
D
run_dtrace -x cpp -h -s m.d -o m.h
expect_eq "-x cpp preprocesses" 0 "$status"
expect_grep "-x cpp expanded the macro" "__dtrace_m___a(int)$" m.h
run_dtrace -x cpppath=/nonexistent/cpp -C -h -s m.d -o m2.h
expect_eq "-x cpppath is used" 1 "$status"
expect_grep "-x cpppath names the program" "/nonexistent/cpp" err.txt

# CPython's configure check: -G on a script holding only BEGIN{}, no
# objects, must succeed and write an object
run_dtrace -G -s conftest.d -o conftest.o
expect_eq "-G on BEGIN{} status" 0 "$status"
expect_eq "-G on BEGIN{} writes an ELF object" "ELF" \
	"$(dd if=conftest.o bs=1 skip=1 count=3 2>/dev/null)"
# -G without -o: the script's base name with .o, in the current directory
run_dtrace -G -s sub/prov.d
expect_eq "-G default output status" 0 "$status"
expect_eq "-G default output in cwd" yes "$([ -f prov.o ] && echo yes)"

finish
