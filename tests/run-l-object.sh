#!/bin/sh
# SPDX-License-Identifier: MIT
#
# dtrace -l --object=FILE: the probes of files on disk, built here with
# the dtrace under test (-h, cc, -G, link) the way applications build.
#
#  - a PIE, a non-PIE program, a shared library, a relocatable object
#    (the objects and the -G output merged with ld -r), the -G output
#    alone (its functions not defined there), and a program whose probes
#    come from <sys/sdt.h> alone (stapsdt notes, no DOF): the exact
#    listing of each, with DTrace's columns and IDs after BEGIN, END and
#    ERROR, and every function listed checked against nm;
#  - -v: DTrace's attribute block (the probe description attributes the
#    minimum over provider, module, function and name, proved with
#    attributes that all differ), translated argument types, and each
#    probe site with the FILE:LINE that addr2line gives for it (section
#    and offset in a relocatable object); the sites of a linked program
#    are exactly its stapsdt note locations; a legacy is-enabled site is
#    marked;
#  - selection: -n with one to four fields and globs, -P, -m, -f in their
#    short and long forms, several at once (a probe is listed once, IDs
#    never renumbered), a description matching nothing (DTrace's message,
#    exit 1), malformed descriptions (exit 2);
#  - errors: a missing file, a file that is not ELF, an ELF file without
#    probes, --object without -l, operands with -l, -n without -l.

. "$top_srcdir/tests/lib.sh"

# The sites listed here are the -G sites; the probe stubs a header
# defines (a note each) are left out: USDT_NO_PROBE_STUBS.
CC="${CC:-cc} -DUSDT_NO_PROBE_STUBS"
CXX="${CXX:-c++} -DUSDT_NO_PROBE_STUBS"

require_G nm readelf addr2line ld

# source lines come from libdw (elfutils), which dtrace always links
have_lines=yes
ldd "$DTRACE" 2>/dev/null | grep -q libdw || have_lines=no
echo "# source lines in -v: $have_lines"

# row ID PROVIDER MODULE FUNCTION NAME: one line of dtrace -l
row() {
	printf '%5s %10s %17s %33s %s\n' "$1" "$2" "$3" "$4" "$5"
}
header() {
	row ID PROVIDER MODULE FUNCTION NAME
	row 1 dtrace "" "" BEGIN
	row 2 dtrace "" "" END
	row 3 dtrace "" "" ERROR
}

# by_module LISTING: the rows without their IDs, each run of rows of one
# module sorted (the header and the order of the modules stay)
by_module() {
	awk 'NR == 1 { print "0000 " $0; next }
	     { if ($3 != prev) run++; prev = $3
	       printf "%04d %s\n", run, substr($0, 7) }' "$1" | sort | cut -c6-
}

# expect_listing WHAT FILE DTRACE-ARGS...: stdout of dtrace = FILE, exit 0.
# Within one file, probes are numbered in the order of their sites, and
# that order is the compiler's (gcc puts main in .text.startup after a
# static helper in .text, clang puts main first): the IDs must run from 1
# in the order listed, and each module's rows must be FILE's in some
# order (the IDs FILE gives them are gcc's, for the reader).
expect_listing() {
	el_what=$1
	el_file=$2
	shift 2
	run_dtrace "$@"
	expect_eq "$el_what: exit status" 0 "$status"
	expect_eq "$el_what: stderr" "" "$(cat err.txt)"
	expect_eq "$el_what: IDs run from 1" \
		"$(awk 'NR > 1 { printf "%d ", NR - 1 }' out.txt)" \
		"$(awk 'NR > 1 { printf "%s ", $1 }' out.txt)"
	by_module "$el_file" >want.txt
	by_module out.txt >got.txt
	expect_file_eq "$el_what" want.txt got.txt
}

# check_funcs WHAT FILE: every function of the listing is a function of
# FILE (nm), allowing GCC's clone suffixes (helper.constprop.0)
check_funcs() {
	nm "$2" | awk '$2 ~ /^[tTwW]$/ { sub(/\..*/, "", $3); print $3 }' |
		sort -u >nm-funcs.txt
	awk 'NR > 4 { print $4 }' out.txt | sort -u >l-funcs.txt
	if [ -s l-funcs.txt ] && comm -23 l-funcs.txt nm-funcs.txt >extra.txt &&
	   [ ! -s extra.txt ]; then
		pass
	else
		fail "$1: functions not in nm's list: $(cat extra.txt)"
	fi
}

# check_lines WHAT FILE: each "ADDR FILE:LINE" site of out.txt (a -v
# listing) is what addr2line says; "SECTION+OFF FILE:LINE" in a
# relocatable object is asked with -j SECTION.  Without libdw: no
# site has a line.
check_lines() {
	if [ "$have_lines" = no ]; then
		expect_eq "$1: no lines without libdw" "" \
			"$(grep '^		[.a-z_+]*0x[0-9a-f]* [^(]' out.txt)"
		return
	fi
	sed -n 's/^\t\t\([.a-z_]*+\)\{0,1\}\(0x[0-9a-f]*\) \([^ ]*\)\( (is-enabled)\)\{0,1\}$/\1 \2 \3/p' \
		out.txt >sites.txt
	cl_n=0
	cl_what=$1
	cl_file=$2
	while read -r cl_sec cl_addr cl_where; do
		case $cl_sec in
		0x*) # no section: the fields moved left
			cl_where=$cl_addr
			cl_addr=$cl_sec
			set -- ;;
		*) set -- -j "${cl_sec%+}" ;;
		esac
		cl_want=$(addr2line -e "$cl_file" "$@" "$cl_addr" |
			sed 's/ (discriminator [0-9]*)//')
		expect_eq "$cl_what: line of site $cl_addr" "$cl_want" "$cl_where"
		cl_n=$((cl_n + 1))
	done <sites.txt
	expect_eq "$cl_what: every site has a line" \
		"$(grep -c '^		[.a-z_+]*0x' out.txt)" "$cl_n"
}

cat >p.d <<'D'
#pragma D attributes Stable/Stable/Common provider myapp provider
#pragma D attributes Evolving/Stable/ISA provider myapp module
#pragma D attributes Stable/Unstable/Common provider myapp function
#pragma D attributes Standard/Evolving/Group provider myapp name
#pragma D attributes Evolving/Evolving/Common provider myapp args
typedef unsigned int qid_t;
provider myapp {
	probe query__start(const char *q, qid_t id) : (qid_t id, string q);
	probe query__done(int status, long rows);
	probe check();
	probe never(int);
};
D
cat >a.c <<'C'
#include "p.h"
extern int __dtraceenabled_myapp___check(void);
static __attribute__((noinline)) int helper(const char *q)
{
	MYAPP_QUERY_START(q, 7);
	return 1;
}
int main(int argc, char **argv)
{
	(void)argv;
	helper("x");
	MYAPP_QUERY_START("y", 8);
	if (__dtraceenabled_myapp___check())
		return 3;
	MYAPP_QUERY_DONE(argc, 2L);
	return 0;
}
C
cat >lib.c <<'C'
#include "p.h"
int lib_run(int n)
{
	MYAPP_QUERY_DONE(n, 1L);
	return n + 1;
}
C
cat >sdt.c <<'C'
#include <sys/sdt.h>
static __attribute__((noinline)) void work(int i, long l)
{
	STAP_PROBE2(sdtapp, work__start, i, l);
	STAP_PROBE(sdtapp, tick);
}
int main(int argc, char **argv)
{
	unsigned char c = (unsigned char)argc;

	work(argc, 5L);
	STAP_PROBE3(sdtapp, main__probe, c, argv, (short)-2);
	STAP_PROBE(sdtapp, tick);
	return 0;
}
C
printf 'int main(void) { return 0; }\n' >plain.c

run_dtrace -h -s p.d
expect_eq "-h" 0 "$status"
$CC -g -O2 -fPIE -c a.c -o a-pie.o && cp a-pie.o a-rel.o &&
	$CC -g -O2 -fno-PIE -c a.c -o a-nopie.o &&
	$CC -g -O2 -fPIC -c lib.c -o lib.o &&
	$CC -g -O2 -I"$top_srcdir/sdk/include" sdt.c -o sdtprog &&
	$CC plain.c -o plain || fail "cannot compile the test programs"
for v in pie nopie rel; do
	run_dtrace -G -s p.d -o probes-$v.o a-$v.o
	expect_eq "-G ($v)" 0 "$status"
done
run_dtrace -G -s p.d -o probes-lib.o lib.o
expect_eq "-G (lib)" 0 "$status"
$CC -g -fPIE -pie a-pie.o probes-pie.o -o pie &&
	$CC -g -no-pie a-nopie.o probes-nopie.o -o nopie &&
	$CC -g -shared lib.o probes-lib.o -o libq.so &&
	ld -r a-rel.o probes-rel.o -o whole.o ||
	fail "cannot link the test programs"
expect_eq "pie is ET_DYN" DYN "$(readelf -h pie | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p')"
expect_eq "nopie is ET_EXEC" EXEC "$(readelf -h nopie | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p')"

# ---------------------------------------------------------------------
# The listings

for f in pie nopie whole.o; do
	{
		header
		row 4 myapp "$f" helper query-start
		row 5 myapp "$f" main query-start
		row 6 myapp "$f" main query-done
		row 7 myapp "$f" main check
	} >expected.txt
	expect_listing "dtrace -l --object=$f" expected.txt -l --object=$f
	check_funcs "$f" "$f"
done

{ header; row 4 myapp libq.so lib_run query-done; } >expected.txt
expect_listing "dtrace -l --object=libq.so" expected.txt -l --object=libq.so
check_funcs libq.so libq.so

{
	header
	row 4 sdtapp sdtprog work work-start
	row 5 sdtapp sdtprog work tick
	row 6 sdtapp sdtprog main main-probe
	row 7 sdtapp sdtprog main tick
} >expected.txt
expect_listing "stapsdt notes only" expected.txt -l --object=sdtprog
check_funcs sdtprog sdtprog
expect_eq "sdtprog has no DOF" "" "$(readelf -SW sdtprog | grep SUNW_dof)"

# several objects: IDs run on
{
	header
	row 4 myapp libq.so lib_run query-done
	row 5 sdtapp sdtprog work work-start
	row 6 sdtapp sdtprog work tick
	row 7 sdtapp sdtprog main main-probe
	row 8 sdtapp sdtprog main tick
} >expected.txt
expect_listing "two objects" expected.txt -l --object=libq.so --object sdtprog

# The IDs pie's listing gave its probes, which the -v and selection
# checks below expect (IDs are never renumbered by a selection).
run_dtrace -l --object=pie
cp out.txt pie-ids.txt
id_of() {
	awk -v f="$1" -v n="$2" 'NR > 1 && $4 == f && $5 == n { print $1 }' \
		pie-ids.txt
}
H=$(id_of helper query-start)
M=$(id_of main query-start)
D=$(id_of main query-done)
C=$(id_of main check)
expect_eq "pie: IDs of its four probes" "4 5 6 7" \
	"$(printf '%s\n' "$H" "$M" "$D" "$C" | sort -n | tr '\n' ' ' | sed 's/ $//')"
# ids ID...: the IDs in the order dtrace lists them
ids() {
	printf '%s\n' "$@" | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# ---------------------------------------------------------------------
# -v

run_dtrace -lv --object=pie -n helper:
expect_eq "-lv helper: status" 0 "$status"
site=$(sed -n 's/^\t\t\(0x[0-9a-f]*\).*/\1/p' out.txt)
line=" $(addr2line -e pie "$site" | sed 's/ (discriminator [0-9]*)//')"
[ "$have_lines" = yes ] || line=""
{
	row ID PROVIDER MODULE FUNCTION NAME
	row "$H" myapp pie helper query-start
	printf '\n\tProbe Description Attributes\n'
	printf '\t\tIdentifier Names: Evolving\n'
	printf '\t\tData Semantics:   Unstable\n'
	printf '\t\tDependency Class: Group\n'
	printf '\n\tArgument Attributes\n'
	printf '\t\tIdentifier Names: Evolving\n'
	printf '\t\tData Semantics:   Evolving\n'
	printf '\t\tDependency Class: Common\n'
	printf '\n\tArgument Types\n'
	printf '\t\targs[0]: unsigned int\n'
	printf '\t\targs[1]: string\n'
	printf '\n\tProbe Sites\n'
	printf '\t\t%s%s\n' "$site" "$line"
	printf '\n'
} >expected.txt
expect_file_eq "-lv helper:query-start" expected.txt out.txt
[ "$have_lines" = no ] || expect_grep "the site is in a.c" "a\\.c:[0-9]*\$" out.txt

run_dtrace -lv -n BEGIN --object=pie
{
	row ID PROVIDER MODULE FUNCTION NAME
	row 1 dtrace "" "" BEGIN
	printf '\n\tProbe Description Attributes\n'
	printf '\t\tIdentifier Names: Stable\n'
	printf '\t\tData Semantics:   Stable\n'
	printf '\t\tDependency Class: Common\n'
	printf '\n\tArgument Attributes\n'
	printf '\t\tIdentifier Names: Stable\n'
	printf '\t\tData Semantics:   Stable\n'
	printf '\t\tDependency Class: Common\n'
	printf '\n\tArgument Types\n'
	printf '\t\tNone\n'
	printf '\n'
} >expected.txt
expect_file_eq "-lv BEGIN" expected.txt out.txt

for f in pie nopie libq.so whole.o sdtprog; do
	run_dtrace -lv --object=$f
	expect_eq "-lv $f: status" 0 "$status"
	check_lines "-lv $f" $f
done

# pie: the sites are the stapsdt note locations, the is-enabled one apart
run_dtrace -lv --object=pie
grep -v '(is-enabled)$' out.txt | sed -n 's/^\t\t0x\([0-9a-f]*\).*/\1/p' |
	sort >dof-sites.txt
readelf -nW pie | sed -n 's/.*Location: 0x0*\([0-9a-f]*\),.*/\1/p' |
	sort >note-sites.txt
expect_eq "pie: three probe sites" 3 "$(wc -l <dof-sites.txt)"
expect_file_eq "pie: sites = stapsdt note locations" note-sites.txt dof-sites.txt
expect_eq "pie: one is-enabled site" 1 "$(grep -c '^		0x[0-9a-f]* .*(is-enabled)$' out.txt)"
expect_grep "pie: no args for check" "^		None$" out.txt
expect_grep "pie: query-done args" "^		args\\[1\\]: long$" out.txt

# the relocatable object names sections: helper in .text, main elsewhere
run_dtrace -lv --object=whole.o -n helper:
expect_grep "whole.o: helper's site in .text" "^		\\.text+0x[0-9a-f]*\\( .*a\\.c:[0-9]*\\)\\{0,1\\}\$" out.txt
run_dtrace -lv --object=whole.o -n main:query-done
expect_grep "whole.o: main's site by section" "^		\\.text[.a-z]*+0x[0-9a-f]*\\( .*a\\.c:[0-9]*\\)\\{0,1\\}\$" out.txt

# the -G output alone: its functions are defined elsewhere
{
	header
	row 4 myapp probes-pie.o helper query-start
	row 5 myapp probes-pie.o main query-start
	row 6 myapp probes-pie.o main query-done
	row 7 myapp probes-pie.o main check
} >expected.txt
expect_listing "the -G output alone" expected.txt -l --object=probes-pie.o
run_dtrace -lv --object=probes-pie.o -n main:query-done
expect_grep "unresolved function: sites as offsets" "^		main+0x[0-9a-f]*\$" out.txt

# notes: argument types from the specs, names with '-'
run_dtrace -lv --object=sdtprog -n main-probe
expect_grep "notes: uint8_t" "^		args\\[0\\]: uint8_t\$" out.txt
expect_grep "notes: pointer as uint64_t" "^		args\\[1\\]: uint64_t\$" out.txt
expect_grep "notes: int16_t" "^		args\\[2\\]: int16_t\$" out.txt
expect_grep "notes: Private attributes" "^		Identifier Names: Private\$" out.txt

# ---------------------------------------------------------------------
# Selecting

# sel WHAT IDS ARGS...: the rows listed (IDs, space-separated)
sel() {
	sel_what=$1
	sel_ids=$2
	shift 2
	run_dtrace -l --object=pie "$@"
	expect_eq "$sel_what: status" 0 "$status"
	expect_eq "$sel_what: rows" "$sel_ids" \
		"$(awk 'NR > 1 { printf "%s%s", s, $1; s = " " }' out.txt)"
}
sel "-n name" "$(ids $H $M)" -n query-start
sel "-n glob" "$(ids $H $M $D)" -n 'query*'
sel "-n ?" "$(ids $H $M)" -n 'query-st?rt'
sel "-n [...]" "$(ids $H $D)" -n '[h]*:query-*' -n 'main:query-[d]one'
sel "-n func:name" "$M" -n main:query-start
sel "-n mod:func:name" "$D" -n 'pie:main:query-done'
sel "-n prov:mod:func:name" "$H" -n 'myapp:pie:helper:query-start'
sel "-n empty fields" "4 5 6 7" -n 'myapp:::'
sel "-n provider glob" "1 2 3" -n 'dt*:::'
sel "-n E*" "2 3" -n 'E*'
sel "-n with a D clause" "$D" -n 'myapp:pie:main:query-done /arg0 > 1/ { trace(arg0); }'
sel "-n list of descriptions" "$(ids $M $D)" \
	-n 'main:query-start, main:query-done{ @[probename] = count(); }'
sel "-n list, spaces and newline" "$(ids $H $C)" -n ' helper:query-start ,
	main:[!q]* '
sel "-P" "4 5 6 7" -P myapp
sel "-P dtrace" "1 2 3" -P dtrace
sel "-m" "4 5 6 7" -m pie
sel "-m prov:mod" "4 5 6 7" -m 'myapp:p*'
sel "-f" "$H" -f helper
sel "-f mod:func" "$(ids $M $D $C)" -f 'pie:main'
sel "-f prov:mod:func" "$(ids $M $D $C)" -f 'myapp:pie:main'
sel "union, listed once" "1 2 3 $(ids $H $M)" -P dtrace -f helper -n query-start
sel "no selection: all" "1 2 3 4 5 6 7"

# a description matching nothing: DTrace's words, all four fields, exit 1
run_dtrace -l --object=pie -n nosuch
expect_eq "no match: status" 1 "$status"
expect_eq "no match: message" \
	"dtrace: failed to match :::nosuch: No probe matches description" \
	"$(cat err.txt)"
expect_eq "no match: header only" "$(row ID PROVIDER MODULE FUNCTION NAME)" \
	"$(cat out.txt)"
run_dtrace -l --object=pie -f helper -m 'x*'
expect_eq "one of two matches: status" 1 "$status"
expect_eq "one of two matches: message" \
	"dtrace: failed to match :x*::: No probe matches description" \
	"$(cat err.txt)"
expect_eq "one of two matches: the other is listed" 2 "$(wc -l <out.txt)"
run_dtrace -l --object=pie -P nosuch
expect_eq "-P no match" \
	"dtrace: failed to match nosuch:::: No probe matches description" \
	"$(cat err.txt)"

# malformed descriptions are usage errors
for a in "-P a:b" "-m a:b:c" "-f a:b:c:d" "-n a:b:c:d:e"; do
	# shellcheck disable=SC2086
	run_dtrace -l --object=pie $a
	expect_eq "'$a': status" 2 "$status"
	expect_grep "'$a': message" "^dtrace: invalid probe description" err.txt
done

# ---------------------------------------------------------------------
# Errors

run_dtrace -l --object=nosuch.o
expect_eq "missing file: status" 1 "$status"
expect_eq "missing file: message" \
	"dtrace: nosuch.o: No such file or directory" "$(cat err.txt)"
expect_eq "missing file: nothing listed" "" "$(cat out.txt)"

echo 'not an object' >notelf.txt
run_dtrace -l --object=notelf.txt
expect_eq "not ELF: status" 1 "$status"
expect_eq "not ELF: message" "dtrace: notelf.txt: not an ELF file" "$(cat err.txt)"

run_dtrace -l --object=plain
expect_eq "no probes: status" 1 "$status"
expect_eq "no probes: message" \
	"dtrace: plain: no USDT probes (no .SUNW_dof section or stapsdt notes)" \
	"$(cat err.txt)"

run_dtrace -l --object=.
expect_eq "a directory: status" 1 "$status"
expect_grep "a directory: message" "^dtrace: \\.: not an ELF file" err.txt
# a FIFO (which another user may put where a file was) is refused, not
# waited on until someone writes to it
mkfifo fifo
timeout -s KILL 60 "$DTRACE" -l --object=fifo >out.txt 2>err.txt
status=$?
expect_eq "a FIFO: status" 1 "$status"
expect_grep "a FIFO: message" "^dtrace: fifo: not an ELF file (not a regular file)" err.txt

run_dtrace --object=pie
expect_eq "--object without -l" 2 "$status"
expect_grep "--object without -l: message" "add -l" err.txt
run_dtrace -l pie
expect_eq "operand with -l" 2 "$status"
expect_grep "operand with -l: message" "use --object=pie" err.txt
run_dtrace -P myapp --object=pie
expect_eq "-P with --object, without -l" 2 "$status"
expect_grep "-P with --object, without -l: message" "add -l" err.txt
run_dtrace -l -p 1 --object=pie
expect_eq "-p with --object" 2 "$status"
run_dtrace -l -p x
expect_eq "-p x" 2 "$status"
expect_grep "-p x: message" "invalid process ID 'x'" err.txt
run_dtrace -l -h -s p.d
expect_eq "-l with -h" 2 "$status"

# --help documents it all
run_dtrace --help
for o in -l -n -P -m -f -p --object=FILE DTRACE_STATEDIR; do
	expect_grep "--help documents $o" "$o" out.txt
done

finish
