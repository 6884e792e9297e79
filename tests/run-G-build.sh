#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-G-build.sh: programs built the DTrace way, `dtrace -h` + `cc -c` +
# `dtrace -G` + link, proven with the real tools.
#
# A C program (and a C++ one) calls probes of 0 to 12 arguments, a probe
# in a static function, a probe as the last statement of a function (a
# tail call at -O2), a guarded probe (`if (X_ENABLED()) X(...)`), a probe
# through a hand-written declaration (as code written against an old
# header) and the legacy is-enabled function `__dtraceenabled_*`; a
# second object uses a second provider, so every program links two -G
# outputs.  It is built with gcc and clang at -O0 to -O3 and -Os, with -g,
# -fPIC, -fPIE/-pie, -fno-pie/-no-pie, -ffunction-sections with
# --gc-sections, -fcf-protection=full and -fno-plt (every flag at least
# once per compiler, not the cross product).  For every build:
#  - -G succeeds, and -v reports one site per call relocation the
#    compiler emitted, with the expected rewrite (a 5-byte NOP; NOP +
#    `ret` for a tail call; the 6-byte forms for -fno-plt GOT calls;
#    `xor %eax,%eax` for the legacy is-enabled call);
#  - the rewritten objects reference no __dtrace* symbol except as weak
#    (`nm -u` shows `w`);
#  - the program's output is that of the same program built with probes
#    compiled out (-DUSDT_DISABLE_PROBES): -G changed no behaviour, and
#    the legacy is-enabled call returns 0;
#  - the binary has exactly one stapsdt note per site, each with the
#    argument string derived from the declared types, a semaphore that is
#    the probe's own in .probes, and a location whose bytes are a NOP;
#  - a second -G over the rewritten objects leaves them byte-identical
#    with the same mtime and writes a byte-identical output object.
# Then: a shared library with its own provider (linked with -z defs)
# under a program with another one, exporting no __dtrace*, $dtrace* or
# __usdt_sema* symbol; a dlopen'ed plugin built with -G; -G without
# objects and -G of a script with only a BEGIN clause, both linkable.
#
# Last, two cases that broke: clang -fno-plt hoisting the GOT load of a
# probe called twice in a function (fixed: the header declares probe
# functions hidden), and a probe in a C++ inline function emitted by two
# objects (COMDAT copies, of which the linker keeps one), through one -G
# run or two, compiled alike or not: exactly one note, on the kept copy.

. "$top_srcdir/tests/lib.sh"

# The gcc builds use gcc whatever $CC is ($CC when it is gcc); without
# gcc, $CC stands in.
GCC=$(gcc_driver "$CC" c) || GCC=$CC
GXX=$(gcc_driver "$CXX" c++) || GXX=$CXX

# This test checks exactly what -G writes for the calls it is given, so
# its objects leave out the probe stubs a header defines (a note each,
# for every declared probe): USDT_NO_PROBE_STUBS.  tests/run-dropin.sh
# covers the stubs.
CC="${CC:-cc} -DUSDT_NO_PROBE_STUBS"
CXX="${CXX:-c++} -DUSDT_NO_PROBE_STUBS"
GCC="$GCC -DUSDT_NO_PROBE_STUBS"
GXX="$GXX -DUSDT_NO_PROBE_STUBS"
[ -n "${CLANG:-}" ] && CLANG="$CLANG -DUSDT_NO_PROBE_STUBS"
[ -n "${CLANGXX:-}" ] && CLANGXX="$CLANGXX -DUSDT_NO_PROBE_STUBS"

: "${CLANG:=}"
: "${CLANGXX:=}"

require_G readelf nm od cmp stat ld
# have CMD: CMD is set and runs
have() {
	[ -n "$1" ] && command -v "$1" >/dev/null 2>&1
}

# ---------------------------------------------------------------------
# Helpers

# What -G writes over each kind of site (sdk/x86site.c, doc/DESIGN.md
# §4): the probe sits on the first instruction, a 4-byte NOP, never a
# single 5-byte one; a tail call ends in `ret`.
RW_CALL="0f 1f 40 00 90"		# call rel32
RW_JMP="0f 1f 40 00 c3"			# jmp rel32 (tail call)
RW_GOTCALL="0f 1f 40 00 66 90"		# call *x@GOTPCREL(%rip)
RW_GOTJMP="0f 1f 40 00 c3 90"		# jmp *x@GOTPCREL(%rip)
RW_STUB="0f 1f 40 00 90 c3"		# the entry of a header's probe stub
RW_EN_CALL="31 c0 0f 1f 00"		# legacy is-enabled: %eax = 0
RW_EN_JMP="31 c0 c3 66 90"
RW_EN_GOTCALL="31 c0 0f 1f 40 00"
RW_EN_GOTJMP="31 c0 c3 0f 1f 00"

# run_ok WHAT CMD...: a build step; its output goes to step.log
run_ok() {
	ro_what=$1
	shift
	if "$@" >step.log 2>&1; then
		pass
		return 0
	fi
	fail "$ro_what: '$*' failed:"
	sed 's/^/    | /' step.log >&2
	return 1
}

# notes BIN: one line per stapsdt note: PROV NAME LOC BASE SEMA ARGS...
notes() {
	readelf -n "$1" | awk '
		/^Displaying notes found in:/ { insec = ($NF == ".note.stapsdt") }
		!insec { next }
		$1 == "Provider:" { prov = $2 }
		$1 == "Name:" { name = $2 }
		$1 == "Location:" {
			loc = $2; sub(",", "", loc)
			base = $4; sub(",", "", base)
			sema = $6
		}
		$1 == "Arguments:" {
			a = $0; sub(/^[ \t]*Arguments:[ \t]*/, "", a)
			print prov, name, loc, base, sema, a
		}'
}

# sections BIN: NAME TYPE ADDR OFFSET SIZE for each section with a name
sections() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk '$2 != "NULL" && NF >= 6 { print $1, $2, $3, $4, $5 }'
}

# bytes_at BIN ADDR N: N bytes at link-time address ADDR, as "0f 1f ...";
# sections.txt must hold the sections of BIN
bytes_at() {
	ba_addr=$(($2))
	while read -r ba_name ba_type ba_sa ba_off ba_size; do
		[ "$ba_type" = PROGBITS ] || continue
		ba_sa=$((0x$ba_sa)) ba_off=$((0x$ba_off)) ba_size=$((0x$ba_size))
		if [ "$ba_addr" -ge "$ba_sa" ] &&
		   [ "$ba_addr" -lt $((ba_sa + ba_size)) ]; then
			od -An -tx1 -v -j $((ba_addr - ba_sa + ba_off)) -N "$3" "$1" |
				tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
			return 0
		fi
	done <sections.txt
	echo "(address $2 in no PROGBITS section)"
}

# expected argument strings: a12's declared types give these, and aN
# takes the first N of them
a12_specs="-4@%edi 1@%sil -2@%dx -8@%rcx 8@%r8 8@%r9 -4@0(%rsp) -8@8(%rsp) -2@16(%rsp) -1@24(%rsp) -4@32(%rsp) 8@40(%rsp)"
a12_types="int, unsigned char, short, long, char *, uint64_t, int, long, short, signed char, int, unsigned long"
{
	k=0
	while [ $k -le 12 ]; do
		if [ $k -eq 0 ]; then
			echo "p a0"
		else
			printf 'p a%s %s\n' $k \
				"$(echo "$a12_specs" | cut -d' ' -f1-$k)"
		fi
		k=$((k + 1))
	done
	cat <<'EOF'
p guarded 8@%rdi -4@%esi
p st 2@%di
p tail -8@%rdi
p old -4@%edi
s work -1@%dil 2@%si 8@%rdx
s done 
q enter 8@%rdi 4@%esi
q leave -8@%rdi
r run -4@%edi 1@%sil
EOF
} | sed 's/ $//' >args.table

# expected_args PROV PROBE TAIL: the argument string from args.table,
# with the stack offsets 8 bytes higher if TAIL is 1
expected_args() {
	awk -v p="$1" -v n="$2" -v tail="$3" '
		$1 == p && $2 == n {
			out = ""
			for (i = 3; i <= NF; i++) {
				t = $i
				if (tail == 1 && match(t, /@[0-9]+\(%rsp\)$/))
					t = substr(t, 1, RSTART) \
					    (substr(t, RSTART + 1, RLENGTH - 7) + 8) "(%rsp)"
				out = out (i > 3 ? " " : "") t
			}
			print out
			found = 1
		}
		END { if (!found) print "(" p ":::" n " is not in args.table)" }' args.table
}

# sites VLOG...: "FUNC+OFF PROV PROBE" for every call site of -v output
# (is-enabled sites have no note)
sites() {
	cat "$@" | grep -v '(is-enabled)' |
		sed -n 's/^dtrace: [^:]*: \([^ :]*\): \([^:]*\):::\([^:]*\): .*/\1 \2 \3/p'
}

# check_binary WHAT BIN VLOG...: the stapsdt notes of BIN against the
# sites the -v output VLOG... reported: one note per site, then
# check_notes
check_binary() {
	cb_what=$1 cb_bin=$2
	shift 2
	notes "$cb_bin" >notes.txt

	# one note per site: the same count for every probe
	sites "$@" | sort -u | awk '{ print $2, $3 }' | sort | uniq -c >want.cnt
	awk '{ print $1, $2 }' notes.txt | sort | uniq -c >got.cnt
	if [ -s want.cnt ]; then
		expect_file_eq "$cb_what: notes per probe" want.cnt got.cnt
	else
		fail "$cb_what: -v reported no probe sites"
	fi
	check_notes "$cb_what" "$cb_bin"
}

# check_notes WHAT BIN: each stapsdt note of BIN is at its own address,
# on a NOP, with its probe's semaphore and arguments
check_notes() {
	cb_what=$1 cb_bin=$2
	notes "$cb_bin" >notes.txt
	expect_eq "$cb_what: distinct note locations" "$(wc -l <notes.txt)" \
		"$(awk '{ print $3 }' notes.txt | sort -u | wc -l)"

	# per note: the semaphore is the probe's own, inside .probes; the
	# location holds a NOP; the arguments follow the declared types (at a
	# tail call, `ret` + NOP, the stack arguments sit 8 bytes higher)
	sections "$cb_bin" >sections.txt
	cb_probes=$(awk '$1 == ".probes" { print $3, $5 }' sections.txt)
	if [ -z "$cb_probes" ]; then
		fail "$cb_what: no .probes section"
		cb_probes="0 0"
	fi
	cb_pa=$((0x${cb_probes% *})) cb_ps=$((0x${cb_probes#* }))
	nm "$cb_bin" >syms.txt
	cb_bad=0
	while read -r prov name loc base sema args; do
		cb_s=$((sema))
		if [ "$cb_s" -eq 0 ] || [ "$cb_s" -lt "$cb_pa" ] ||
		   [ "$cb_s" -ge $((cb_pa + cb_ps)) ]; then
			fail "$cb_what: $prov:::$name at $loc: semaphore $sema is not in .probes"
			cb_bad=1
		fi
		cb_sym=$(awk -v n="__usdt_sema_${prov}___$name" '$3 == n { print $1 }' syms.txt)
		if [ -z "$cb_sym" ] || [ $((0x$cb_sym)) -ne "$cb_s" ]; then
			fail "$cb_what: $prov:::$name: semaphore $sema is not __usdt_sema_${prov}___$name (${cb_sym:-absent})"
			cb_bad=1
		fi
		cb_bytes=$(bytes_at "$cb_bin" "$loc" 6)
		cb_tail=0
		# (a call site followed by `ret` looks like the header's
		# stub, but a call with stack arguments is never followed
		# by `ret`, and without them the arguments are the same)
		case $cb_bytes in
		"$RW_JMP"* | "$RW_GOTJMP" | "$RW_STUB") cb_tail=1 ;;
		"$RW_CALL"* | "$RW_GOTCALL") ;;
		*)
			fail "$cb_what: $prov:::$name at $loc: bytes [$cb_bytes] are not a probe NOP"
			cb_bad=1
			;;
		esac
		cb_want=$(expected_args "$prov" "$name" $cb_tail)
		if [ "$args" != "$cb_want" ]; then
			fail "$cb_what: $prov:::$name at $loc: arguments '$args', expected '$cb_want'"
			cb_bad=1
		fi
	done <notes.txt
	[ "$cb_bad" -eq 0 ] && pass
	[ -s notes.txt ] || fail "$cb_what: no stapsdt notes"
}

# check_objs WHAT VLOG OBJ...: -v reported one site per call relocation
# of OBJ (counted before -G, in cnt.OBJ), and OBJ now has no undefined
# non-weak __dtrace* symbol, only weak ones
count_relocs() {
	readelf -rW "$1" | awk '
		/^Relocation section/ { text = ($3 ~ /^.\.rela\.text/) }
		text && $5 ~ /^__dtrace_/ { c++ }
		text && $5 ~ /^__dtraceenabled_/ { e++ }
		END { print c + 0, e + 0 }' >"$1.cnt"
}
check_objs() {
	co_what=$1 co_vlog=$2
	shift 2
	co_c=0 co_e=0
	for co_o in "$@"; do
		read -r co_n co_en <"$co_o.cnt"
		co_c=$((co_c + co_n)) co_e=$((co_e + co_en))
		if nm "$co_o" | grep -q ' U __dtrace'; then
			fail "$co_what: $co_o still has undefined __dtrace symbols:"
			nm "$co_o" | grep ' U __dtrace' >&2
		else
			pass
		fi
		nm -u "$co_o" | grep '__dtrace' | grep -v '^ *w ' >nonweak.txt
		expect_eq "$co_what: $co_o: nm -u lists __dtrace* only as weak" "" \
			"$(cat nonweak.txt)"
		if [ "$co_n" -gt 0 ]; then
			nm -u "$co_o" | grep -q '^ *w __dtrace_' ||
				fail "$co_what: $co_o: no weak __dtrace_ symbol in nm -u"
		fi
	done
	expect_eq "$co_what: -v sites = call relocations" "$co_c" \
		"$(grep -v '(is-enabled)' "$co_vlog" | grep -c '^dtrace: .*:::')"
	expect_eq "$co_what: -v is-enabled sites = is-enabled relocations" \
		"$co_e" "$(grep -c '(is-enabled)' "$co_vlog")"
}

# rerun WHAT D OUT OBJ...: a second -G over rewritten objects changes
# nothing and writes the same output object
rerun() {
	rr_what=$1 rr_d=$2 rr_out=$3
	shift 3
	for rr_o in "$@"; do
		touch -d @1000000000 "$rr_o"
		cp -p "$rr_o" "$rr_o.keep"
	done
	run_dtrace -G -s "$rr_d" -o "$rr_out.again" "$@"
	expect_eq "$rr_what: second -G: exit status" 0 "$status"
	for rr_o in "$@"; do
		if cmp -s "$rr_o" "$rr_o.keep"; then pass; else
			fail "$rr_what: second -G changed $rr_o"
		fi
		expect_eq "$rr_what: second -G: mtime of $rr_o" 1000000000 \
			"$(stat -c %Y "$rr_o")"
	done
	if cmp "$rr_out" "$rr_out.again" >&2; then pass; else
		fail "$rr_what: second -G wrote a different $rr_out"
	fi
}

# ---------------------------------------------------------------------
# Providers and sources

{
	echo 'provider p {'
	k=0
	while [ $k -le 12 ]; do
		if [ $k -eq 0 ]; then
			printf '\tprobe a0();\n'
		else
			printf '\tprobe a%s(%s);\n' $k \
				"$(echo "$a12_types" | cut -d, -f1-$k)"
		fi
		k=$((k + 1))
	done
	cat <<'EOF'
	probe guarded(const char *, int);
	probe st(unsigned short);
	probe tail(long);
	probe old(int);
	probe unused(int);
};
EOF
} >p.d
grep -q 'probe a0();' p.d || fail "p.d: a0 is not 'probe a0();'"
grep -qF "probe a12($a12_types);" p.d || fail "p.d: a12 is not as declared"

cat >s.d <<'EOF'
provider s {
	probe work(int8_t, uint16_t, const char *);
	probe done();
};
EOF
cat >q.d <<'EOF'
provider q {
	probe enter(const char *, uint32_t);
	probe leave(int64_t);
};
EOF
cat >r.d <<'EOF'
provider r {
	probe run(int, unsigned char);
};
EOF
for d in p s q r; do
	run_ok "dtrace -h $d.d" "$DTRACE" -h -s $d.d -o $d.h || finish
done

# main.c: provider p
cat >main.c <<'EOF'
#include <stdio.h>
#include <stdint.h>
#include "p.h"

#define NOINLINE __attribute__((noinline))

#ifdef USDT_DISABLE_PROBES
#define OLD_ENABLED() 0
#else
/* the legacy is-enabled function, declared by hand as old code did */
extern int __dtraceenabled_p___old(void);
#define OLD_ENABLED() __dtraceenabled_p___old()
#endif

int aux_work(int n);		/* aux.c, provider s */
int forty_two(void);		/* aux.c: leaves 42 in %eax */
int old_call(int n);		/* old.c */
void old_tail(int n);

static unsigned long total;
unsigned long tail_total;

/* a static function holding a probe */
NOINLINE static int st_square(int x)
{
	P_ST((unsigned short)x);
	return x * x;
}

/* the probe is the last statement: a tail call at -O2 */
NOINLINE void tail_note(long v)
{
	tail_total += (unsigned long)v * 3;
	P_TAIL(v);
}

/* a tail call with a stack argument: it sits at 8(%rsp) there */
NOINLINE void fwd7(int a, unsigned char b, short c, long d, char *e,
		   uint64_t f, int g)
{
	P_A7(a, b, c, d, e, f, g);
}

int main(int argc, char **argv)
{
	char buf[32];
	int n = argc + 2, i, guarded = 0, r, en;

	(void)argv;
	snprintf(buf, sizeof(buf), "n=%d", n);
	P_A0();
	P_A1(n);
	P_A2(n, 200);
	P_A3(n, 200, -3);
	P_A4(n, 200, -3, -4L);
	P_A5(n, 200, -3, -4L, buf);
	P_A6(n, 200, -3, -4L, buf, UINT64_C(6) << 40);
	P_A7(n, 200, -3, -4L, buf, UINT64_C(6) << 40, -7);
	P_A8(n, 200, -3, -4L, buf, UINT64_C(6) << 40, -7, 8L);
	P_A9(n, 200, -3, -4L, buf, UINT64_C(6) << 40, -7, 8L, 9);
	P_A10(n, 200, -3, -4L, buf, UINT64_C(6) << 40, -7, 8L, 9, -10);
	P_A11(n, 200, -3, -4L, buf, UINT64_C(6) << 40, -7, 8L, 9, -10, 11);
	P_A12(n, 200, -3, -4L, buf, UINT64_C(6) << 40, -7, 8L, 9, -10, 11,
	      12UL);
	if (P_GUARDED_ENABLED()) {
		guarded++;
		P_GUARDED(buf, n);
	}
	for (i = 0; i < n; i++)
		total += (unsigned long)st_square(i + 1);
	tail_note(n * 5L);
	fwd7(n, 1, 2, 3, buf, 5, 6);
	r = forty_two();
	en = OLD_ENABLED();
	printf("%s total=%lu tail=%lu guarded=%d r=%d old_enabled=%d\n",
	       buf, total, tail_total, guarded, r, en);
	old_tail(n);
	printf("old=%d aux=%d\n", old_call(n), aux_work(n));
	return 0;
}
EOF

# main.cc: the same in C++, probes in a constructor, a destructor, a
# template member, a lambda and a function in an anonymous namespace
cat >main.cc <<'EOF'
#include <cstdio>
#include <cstdint>
#include <string>
#include "p.h"

#define NOINLINE __attribute__((noinline))

#ifdef USDT_DISABLE_PROBES
#define OLD_ENABLED() 0
#else
extern "C" int __dtraceenabled_p___old(void);
#define OLD_ENABLED() __dtraceenabled_p___old()
#endif

extern "C" int aux_work(int n);
extern "C" int forty_two(void);
extern "C" int old_call(int n);
extern "C" void old_tail(int n);

namespace {
unsigned long total;

NOINLINE int st_square(int x)
{
	P_ST(static_cast<unsigned short>(x));
	return x * x;
}
}

unsigned long tail_total;

NOINLINE void tail_note(long v)
{
	tail_total += static_cast<unsigned long>(v) * 3;
	P_TAIL(v);
}

class Widget {
public:
	explicit Widget(int n) : n_(n) { P_A1(n); }
	~Widget() { P_A0(); }
	int get() const { return n_; }
private:
	int n_;
};

template <typename T> struct Acc {
	T sum;
	NOINLINE void add(T v)
	{
		sum += v;
		P_A2(static_cast<int>(v), sizeof(T));
	}
};

int main(int argc, char **)
{
	char buf[32];
	int n = argc + 2, guarded = 0, r, en;
	Acc<long> acc = { 0 };
	std::string s;

	std::snprintf(buf, sizeof(buf), "n=%d", n);
	{
		Widget w(n);
		auto f = [&](int x) { P_A3(x, 200, -3); return x + w.get(); };
		for (int i = 0; i < n; i++)
			acc.add(f(i));
	}
	P_A12(n, 200, -3, -4L, buf, UINT64_C(6) << 40, -7, 8L, 9, -10, 11,
	      12UL);
	if (P_GUARDED_ENABLED()) {
		guarded++;
		P_GUARDED(buf, n);
	}
	for (int i = 0; i < n; i++)
		total += static_cast<unsigned long>(st_square(i + 1));
	tail_note(n * 5L);
	r = forty_two();
	en = OLD_ENABLED();
	s = std::string(buf) + " acc=" + std::to_string(acc.sum);
	std::printf("%s total=%lu tail=%lu guarded=%d r=%d old_enabled=%d\n",
		    s.c_str(), total, tail_total, guarded, r, en);
	old_tail(n);
	std::printf("old=%d aux=%d\n", old_call(n), aux_work(n));
	return 0;
}
EOF

# aux.c: provider s, in its own -G output
cat >aux.c <<'EOF'
#include <stdint.h>
#include "s.h"

int forty_two(void)
{
	return 42;
}

int aux_work(int n)
{
	S_WORK((int8_t)-n, (uint16_t)(n * 1000), "aux");
	S_DONE();
	return n * 7;
}

/* never called: with --gc-sections the DOF keeps it */
void never_called(int n)
{
	S_WORK(0, (uint16_t)n, "never");
}
EOF

# old.c: written against an old header, the probe function declared by
# hand with default visibility (-fno-plt calls it through the GOT)
cat >old.c <<'EOF'
#ifndef USDT_DISABLE_PROBES
extern void __dtrace_p___old(int);
#define OLD(n) __dtrace_p___old(n)
#else
#define OLD(n) ((void)0)
#endif

int old_sum = 100;

int old_call(int n)
{
	OLD(n);
	old_sum += n;
	return old_sum;
}

/* a tail call: with -fno-plt, jmp *__dtrace_p___old@GOTPCREL(%rip) */
void old_tail(int n)
{
	old_sum += 2 * n;
	OLD(n);
}
EOF

# the program without probes in one translation unit (its C part alone
# for the C++ program): main.c, aux.c and old.c share no static name
printf '#include "main.c"\n#include "aux.c"\n#include "old.c"\n' >off.c
printf '#include "aux.c"\n#include "old.c"\n' >off-aux.c

# ---------------------------------------------------------------------
# The matrix

# build TAG CC CXX LANG "CFLAGS" "LDFLAGS": build the program with probes
# (-G) and without, and check everything
build() {
	b_tag=$1 b_cc=$2 b_cxx=$3 b_lang=$4 b_cflags=$5 b_ldflags=$6
	bd=$b_tag
	mkdir "$bd" "$bd/off" || exit 99
	if [ "$b_lang" = c ]; then
		b_main=main.c b_mcc=$b_cc
	else
		b_main=main.cc b_mcc=$b_cxx
	fi
	# shellcheck disable=SC2086
	run_ok "$bd: compile" $b_mcc $b_cflags -c $b_main -o $bd/main.o &&
	run_ok "$bd: compile" $b_cc $b_cflags -c aux.c -o $bd/aux.o &&
	run_ok "$bd: compile" $b_cc $b_cflags -c old.c -o $bd/old.o &&
	# (the program without probes is only the reference output: its C
	# sources are compiled as one translation unit, off.c or off-aux.c)
	if [ "$b_lang" = c ]; then
		run_ok "$bd: compile without probes" $b_cc $b_cflags \
			-DUSDT_DISABLE_PROBES -c off.c -o $bd/off/all.o &&
		b_offo=$bd/off/all.o
	else
		run_ok "$bd: compile without probes" $b_mcc $b_cflags \
			-DUSDT_DISABLE_PROBES -c $b_main -o $bd/off/main.o &&
		run_ok "$bd: compile without probes" $b_cc $b_cflags \
			-DUSDT_DISABLE_PROBES -c off-aux.c -o $bd/off/aux.o &&
		b_offo="$bd/off/main.o $bd/off/aux.o"
	fi &&
	run_ok "$bd: link without probes" $b_mcc $b_ldflags -o $bd/off/prog \
		$b_offo || return 0
	$bd/off/prog >$bd/off/out.txt 2>&1 ||
		fail "$bd: the program without probes failed"

	for o in main old aux; do
		count_relocs $bd/$o.o
	done
	run_dtrace -G -v -s p.d -o $bd/p-probes.o $bd/main.o $bd/old.o
	expect_eq "$bd: -G p.d: exit status" 0 "$status"
	cp err.txt $bd/p.vlog
	[ "$status" -eq 0 ] || { sed 's/^/    | /' err.txt >&2; return 0; }
	run_dtrace -G -v -s s.d -o $bd/s-probes.o $bd/aux.o
	expect_eq "$bd: -G s.d: exit status" 0 "$status"
	cp err.txt $bd/s.vlog
	[ "$status" -eq 0 ] || { sed 's/^/    | /' err.txt >&2; return 0; }
	check_objs "$bd: p" $bd/p.vlog $bd/main.o $bd/old.o
	check_objs "$bd: s" $bd/s.vlog $bd/aux.o

	# the legacy is-enabled call reads 0
	expect_grep "$bd: legacy is-enabled rewritten to xor %eax,%eax" \
		'p:::old (is-enabled): .* -> 31 c0 ' $bd/p.vlog
	# every site got its rewrite
	if grep -v -e " -> $RW_CALL (" -e " -> $RW_JMP (" \
		-e " -> $RW_GOTCALL (" -e " -> $RW_GOTJMP (" \
		-e "(is-enabled): e8 .* -> $RW_EN_CALL (" \
		-e "(is-enabled): e9 .* -> $RW_EN_JMP (" \
		-e "(is-enabled): ff 15 .* -> $RW_EN_GOTCALL (" \
		-e "(is-enabled): ff 25 .* -> $RW_EN_GOTJMP (" \
		$bd/p.vlog $bd/s.vlog | grep ':::'; then
		fail "$bd: -v shows sites not rewritten to a NOP (above)"
	else
		pass
	fi

	# two -G outputs of two providers in one program
	# shellcheck disable=SC2086
	run_ok "$bd: link" $b_mcc $b_ldflags -o $bd/prog $bd/main.o $bd/aux.o \
		$bd/old.o $bd/p-probes.o $bd/s-probes.o || return 0
	if $bd/prog >$bd/out.txt 2>&1; then pass; else
		fail "$bd: the program failed"
	fi
	expect_file_eq "$bd: output as without probes" $bd/off/out.txt $bd/out.txt
	expect_grep "$bd: legacy is-enabled returns 0" \
		'r=42 old_enabled=0$' $bd/out.txt
	check_binary "$bd" $bd/prog $bd/p.vlog $bd/s.vlog
	rerun "$bd: p" p.d $bd/p-probes.o $bd/main.o $bd/old.o
	rerun "$bd: s" s.d $bd/s-probes.o $bd/aux.o
}

# -v lines: "dtrace: OBJ: FUNC+OFF: p:::tail: BEFORE (insn) -> AFTER (insn)"
expect_tail() {
	expect_grep "$1: tail call rewritten to NOP + ret" \
		"tail_note[^:]*+[0-9a-fx]*: p:::tail: e9 .* -> $RW_JMP (" \
		"$1/p.vlog"
}
expect_tail7() {
	expect_grep "$1: tail call with a stack argument" \
		"fwd7[^:]*+[0-9a-fx]*: p:::a7: e9 .* -> $RW_JMP (" \
		"$1/p.vlog"
}
# -fno-plt: the header declares probe functions hidden, so its probes
# stay plain calls; old.c's hand-written declaration goes through the GOT
expect_noplt() {
	expect_grep "$1: -fno-plt: the header's probes are plain calls" \
		"p:::a0: e8 .* -> $RW_CALL (" "$1/p.vlog"
	expect_grep "$1: -fno-plt call through the GOT rewritten" \
		"old_call+[0-9a-fx]*: p:::old: ff 15 .* -> $RW_GOTCALL (" \
		"$1/p.vlog"
	expect_grep "$1: -fno-plt tail call through the GOT rewritten" \
		"old_tail+[0-9a-fx]*: p:::old: ff 25 .* -> $RW_GOTJMP (" \
		"$1/p.vlog"
	expect_grep "$1: -fno-plt legacy is-enabled call rewritten" \
		"p:::old (is-enabled): ff 15 .* -> $RW_EN_GOTCALL (" \
		"$1/p.vlog"
}
# -fcf-protection=full: the objects and the -G outputs keep the IBT and
# SHSTK property (ld -r keeps it only if every input has it)
expect_cet() {
	if ld -r -o "$1/all.o" "$1/main.o" "$1/aux.o" "$1/old.o" \
		"$1/p-probes.o" "$1/s-probes.o" 2>step.log; then
		readelf -n "$1/all.o" >"$1/cet.txt"
		expect_grep "$1: IBT and SHSTK kept by -G" \
			'x86 feature: IBT, SHSTK' "$1/cet.txt"
	else
		fail "$1: ld -r of the objects failed"
	fi
}
# -ffunction-sections: static functions keep their own sections
expect_fsect() {
	if readelf -SW "$1/main.o" | grep -q '\.text\.[^ ]*st_square'; then
		pass
	else
		fail "$1: -ffunction-sections: no .text.*st_square section"
	fi
	# never_called() is kept, its site too (the DOF refers to it)
	expect_grep "$1: never_called site reported" 'never_called+' "$1/s.vlog"
	if nm "$1/prog" | grep -q ' T never_called$'; then pass; else
		fail "$1: never_called was collected despite its probe"
	fi
}
# the alias of the static function: a hidden global in the object
expect_static() {
	if readelf -sW "$1/main.o" |
		grep -q 'GLOBAL *HIDDEN .*\$dtrace[0-9a-f]*\..*st_square'; then
		pass
	else
		fail "$1: no hidden global alias for static st_square in main.o"
	fi
}

families=gcc
if have "${CLANG%% *}"; then
	families="gcc clang"
else
	echo "# CLANG is empty or missing: the clang builds are skipped"
fi

for f in $families; do
	if [ $f = gcc ]; then
		fcc=$GCC fcxx=$GXX
	else
		fcc=$CLANG fcxx=${CLANGXX:-}
	fi
	build $f-O0-g "$fcc" "$fcxx" c "-O0 -g" ""
	expect_static $f-O0-g
	build $f-O1-pie "$fcc" "$fcxx" c "-O1 -fPIE" "-pie"
	if readelf -h $f-O1-pie/prog 2>/dev/null | grep -q 'DYN'; then
		pass
	else
		fail "$f-O1-pie: -pie did not make an ET_DYN"
	fi
	build $f-O2-nopie "$fcc" "$fcxx" c "-O2 -fno-pie" "-no-pie"
	expect_tail $f-O2-nopie
	expect_tail7 $f-O2-nopie
	expect_static $f-O2-nopie
	if readelf -h $f-O2-nopie/prog 2>/dev/null | grep -q 'EXEC'; then
		pass
	else
		fail "$f-O2-nopie: -no-pie did not make an ET_EXEC"
	fi
	build $f-O3-gc "$fcc" "$fcxx" c "-O3 -ffunction-sections" \
		"-Wl,--gc-sections"
	expect_fsect $f-O3-gc
	build $f-Os-cet "$fcc" "$fcxx" c "-Os -fcf-protection=full" ""
	expect_cet $f-Os-cet
	build $f-O2-noplt "$fcc" "$fcxx" c "-O2 -fno-plt" ""
	expect_noplt $f-O2-noplt
	build $f-O2-pic "$fcc" "$fcxx" c "-O2 -fPIC -g" ""
	if have "${fcxx%% *}"; then
		build $f-cxx-O2-g "$fcc" "$fcxx" cxx "-O2 -g" ""
		expect_tail $f-cxx-O2-g
		build $f-cxx-O0 "$fcc" "$fcxx" cxx "-O0" ""
		build $f-cxx-O3-pic "$fcc" "$fcxx" cxx "-O3 -fPIC" ""
	else
		echo "# no C++ compiler for $f: its C++ builds are skipped"
	fi
done

# ---------------------------------------------------------------------
# A shared library with its own provider (q) and a dlopen'ed plugin with
# another (r), under a program with a third (p)

cat >lib.c <<'EOF'
#include <stdint.h>
#include <string.h>
#include "q.h"

static int lib_calls;

int lib_entry(const char *s, unsigned n)
{
	int h;

	Q_ENTER(s, (uint32_t)n);
	lib_calls++;
	h = (int)strlen(s) * (int)n + lib_calls;
	Q_LEAVE((int64_t)h);
	return h;
}
EOF
cat >plugin.c <<'EOF'
#include "r.h"

int plugin_run(int x)
{
	R_RUN(x, 7);
	return x * 11;
}
EOF
cat >host.c <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include "p.h"

int lib_entry(const char *s, unsigned n);

int main(int argc, char **argv)
{
	int (*run)(int);
	void *h;

	P_A1(argc);
	printf("lib=%d\n", lib_entry("abc", 3));
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	run = (int (*)(int))dlsym(h, "plugin_run");
	printf("plugin=%d\n", run ? run(5) : -1);
	printf("dlclose=%d\n", dlclose(h));
	P_A0();
	return 0;
}
EOF
printf 'lib=10\nplugin=55\ndlclose=0\n' >host.expected

# exports DSO: the dynamic symbols DSO defines or needs, none of ours
check_exports() {
	nm -D "$2" | grep -E '__dtrace|\$dtrace|__usdt_sema|__SUNW_dof' >exports.txt
	expect_eq "$1: nm -D exports no __dtrace*, \$dtrace*, __usdt_sema*" "" \
		"$(cat exports.txt)"
}

for f in $families; do
	if [ $f = gcc ]; then fcc=$GCC lopt=-O2; else fcc=$CLANG lopt=-O1; fi
	d=$f-shared
	mkdir $d || exit 99
	run_ok "$d: compile" $fcc $lopt -fPIC -c lib.c -o $d/lib.o &&
	run_ok "$d: compile" $fcc $lopt -fPIC -c plugin.c -o $d/plugin.o &&
	run_ok "$d: compile" $fcc -O2 -c host.c -o $d/host.o || continue
	for o in lib plugin host; do
		count_relocs $d/$o.o
	done
	run_dtrace -G -v -s q.d -o $d/q-probes.o $d/lib.o
	expect_eq "$d: -G q.d: exit status" 0 "$status"
	cp err.txt $d/q.vlog
	run_dtrace -G -v -s r.d -o $d/r-probes.o $d/plugin.o
	expect_eq "$d: -G r.d: exit status" 0 "$status"
	cp err.txt $d/r.vlog
	run_dtrace -G -v -s p.d -o $d/p-probes.o $d/host.o
	expect_eq "$d: -G p.d: exit status" 0 "$status"
	cp err.txt $d/p.vlog
	check_objs "$d: q" $d/q.vlog $d/lib.o
	check_objs "$d: r" $d/r.vlog $d/plugin.o
	check_objs "$d: p" $d/p.vlog $d/host.o

	run_ok "$d: link libq.so with -z defs" $fcc -shared -Wl,-z,defs \
		-o $d/libq.so $d/lib.o $d/q-probes.o &&
	run_ok "$d: link plugin.so with -z defs" $fcc -shared -Wl,-z,defs \
		-o $d/plugin.so $d/plugin.o $d/r-probes.o &&
	run_ok "$d: link the host" $fcc -o $d/host $d/host.o $d/p-probes.o \
		-L$d -lq -Wl,-rpath,"$tmp/$d" -ldl || continue
	check_exports "$d: libq.so" $d/libq.so
	check_exports "$d: plugin.so" $d/plugin.so
	check_exports "$d: host" $d/host
	if $d/host "$tmp/$d/plugin.so" >$d/out.txt 2>&1; then pass; else
		fail "$d: the host program failed"
	fi
	expect_file_eq "$d: host output" host.expected $d/out.txt
	check_binary "$d: libq.so" $d/libq.so $d/q.vlog
	check_binary "$d: plugin.so" $d/plugin.so $d/r.vlog
	check_binary "$d: host" $d/host $d/p.vlog
	rerun "$d: q" q.d $d/q-probes.o $d/lib.o
done

# ---------------------------------------------------------------------
# -G without objects, -G of a script without providers

cat >sema.c <<'EOF'
#include <stdio.h>
#include "p.h"

int main(void)
{
	printf("%d %d\n", P_A0_ENABLED() ? 1 : 0, P_UNUSED_ENABLED() ? 1 : 0);
	return 0;
}
EOF
run_dtrace -G -s p.d -o none.o
expect_eq "-G without objects: exit status" 0 "$status"
expect_eq "-G without objects: stderr" "" "$(cat err.txt)"
expect_eq "-G without objects: an ELF relocatable object" \
	"REL (Relocatable file)" \
	"$(readelf -h none.o 2>&1 | sed -n 's/^ *Type: *//p')"
# the semaphores are there for _ENABLED(), which is all such a program has
if run_ok "-G without objects: compile" $CC -O2 -c sema.c -o sema.o &&
   run_ok "-G without objects: link" $CC -o sema sema.o none.o; then
	expect_eq "-G without objects: the program runs" "0 0" "$(./sema)"
fi

printf 'BEGIN\n{\n}\n' >begin.d
printf 'int main(void) { return 0; }\n' >plain.c
run_ok "BEGIN only: compile" $CC -O2 -c plain.c -o plain.o
touch -d @1000000000 plain.o
cp -p plain.o plain.keep
run_dtrace -G -s begin.d -o begin.o plain.o
expect_eq "BEGIN only: exit status" 0 "$status"
expect_eq "BEGIN only: stderr" "" "$(cat err.txt)"
expect_eq "BEGIN only: an ELF relocatable object" "REL (Relocatable file)" \
	"$(readelf -h begin.o 2>&1 | sed -n 's/^ *Type: *//p')"
if cmp -s plain.o plain.keep; then pass; else
	fail "BEGIN only: an object without probes was changed"
fi
expect_eq "BEGIN only: mtime of an object without probes" 1000000000 \
	"$(stat -c %Y plain.o)"
if run_ok "BEGIN only: link" $CC -o plain plain.o begin.o; then
	if ./plain; then pass; else fail "BEGIN only: the program failed"; fi
fi
run_dtrace -G -s begin.d -o begin0.o
expect_eq "BEGIN only, no objects: exit status" 0 "$status"
run_ok "BEGIN only, no objects: link" $CC -o plain0 plain.o begin0.o

# ---------------------------------------------------------------------
# Former bugs

# A probe called twice in one function under -fno-plt: clang loaded the
# GOT entry into a register once (`mov x@GOTPCREL(%rip), %r14`, then
# `call *%r14`), which -G cannot rewrite.  With the hidden declarations
# of the header every call is direct.
cat >loop.c <<'EOF'
#include <stdio.h>
#include "p.h"

int main(int argc, char **argv)
{
	int i, s = 0;

	(void)argv;
	for (i = 0; i < argc + 3; i++) {
		P_A1(i);
		s += i * i;
		P_A1(s);
	}
	printf("%d\n", s);
	return 0;
}
EOF
for f in $families; do
	if [ $f = gcc ]; then fcc=$GCC; else fcc=$CLANG; fi
	d=$f-noplt-loop
	mkdir $d || exit 99
	run_ok "$d: compile" $fcc -O2 -fno-plt -c loop.c -o $d/loop.o || continue
	count_relocs $d/loop.o
	run_dtrace -G -v -s p.d -o $d/p-probes.o $d/loop.o
	expect_eq "$d: -G of a probe called twice in a loop with -fno-plt: exit status" \
		0 "$status"
	if [ "$status" -ne 0 ]; then
		sed 's/^/    | /' err.txt >&2
		continue
	fi
	cp err.txt $d/p.vlog
	check_objs "$d" $d/p.vlog $d/loop.o
	run_ok "$d: link" $fcc -o $d/prog $d/loop.o $d/p-probes.o &&
	expect_eq "$d: output" 14 "$($d/prog)" &&
	check_binary "$d" $d/prog $d/p.vlog
done

# An inline C++ function holding a probe, emitted by two objects: each
# has its own copy in a COMDAT group and the linker keeps one.  Whether
# the two objects go through one -G run or two, the program must link and
# have exactly one note for the copy it keeps, on its NOP.  Copies
# compiled differently put the probe at different offsets: in one run -G
# refuses them (run-G-errors.sh); in two runs it cannot compare them, but
# must never describe a site that is not the kept copy's: the program
# either links with exactly the kept copy's note, or fails to link with a
# message that names the function.
cat >inl.h <<'EOF'
#include "p.h"
struct Counter {
	int n;
	__attribute__((noinline)) void bump(int by) { n += by; P_A1(n); }
};
EOF
cat >inl1.cc <<'EOF'
#include <cstdio>
#include "inl.h"
int other(int);
int main() { Counter c = { 0 }; c.bump(3); std::printf("%d %d\n", c.n, other(4)); }
EOF
cat >inl2.cc <<'EOF'
#include "inl.h"
int other(int x) { Counter c = { x }; c.bump(1); return c.n; }
EOF
# comdat_obj CXX SRC OPT OUT: OUT is SRC compiled by CXX with OPT; the
# cases compile each source once per compiler and flags, and each takes
# a copy (-G rewrites the copy, never the object compiled)
mkdir comdat-objs || exit 99
comdat_obj() {
	cdo_o=comdat-objs/$(printf '%s' "$1 $3 $2" | tr -c 'A-Za-z0-9.+-' _).o
	# shellcheck disable=SC2086
	if [ ! -f "$cdo_o" ]; then
		run_ok "$cd_tag: compile" $1 $3 -c $2 -o "$cdo_o" || return 1
	fi
	cp "$cdo_o" "$4"
}
# comdat TAG CXX OPT1 OPT2 RUNS [MAYFAIL]: inl1.cc with OPT1, inl2.cc
# with OPT2, through -G in RUNS (1 or 2) runs; with MAYFAIL, a link
# failure that names the function is acceptable
comdat() {
	cd_tag=$1 cd_cxx=$2 cd_o1=$3 cd_o2=$4 cd_runs=$5 cd_mayfail=${6:-}
	mkdir $cd_tag || exit 99
	comdat_obj "$cd_cxx" inl1.cc "$cd_o1" $cd_tag/inl1.o &&
	comdat_obj "$cd_cxx" inl2.cc "$cd_o2" $cd_tag/inl2.o || return 0
	if [ "$cd_runs" = 1 ]; then
		run_dtrace -G -s p.d -o $cd_tag/p1.o $cd_tag/inl1.o $cd_tag/inl2.o
		expect_eq "$cd_tag: -G: exit status" 0 "$status"
		cd_probes=$cd_tag/p1.o
	else
		run_dtrace -G -s p.d -o $cd_tag/p1.o $cd_tag/inl1.o
		expect_eq "$cd_tag: first -G: exit status" 0 "$status"
		run_dtrace -G -s p.d -o $cd_tag/p2.o $cd_tag/inl2.o
		expect_eq "$cd_tag: second -G: exit status" 0 "$status"
		cd_probes="$cd_tag/p1.o $cd_tag/p2.o"
	fi
	# shellcheck disable=SC2086
	if [ -n "$cd_mayfail" ] &&
	   ! $cd_cxx -o $cd_tag/prog $cd_tag/inl1.o $cd_tag/inl2.o \
		$cd_probes >step.log 2>&1; then
		expect_grep "$cd_tag: the link failure names the function" \
			'_ZN7Counter4bumpEi' step.log
		return 0
	fi
	# shellcheck disable=SC2086
	run_ok "$cd_tag: link two copies of an inline function with a probe" \
		$cd_cxx -o $cd_tag/prog $cd_tag/inl1.o $cd_tag/inl2.o \
		$cd_probes || return 0
	expect_eq "$cd_tag: output" "3 5" "$($cd_tag/prog)"
	notes $cd_tag/prog >$cd_tag/notes.txt
	expect_eq "$cd_tag: one note for Counter::bump (one copy is kept)" 1 \
		"$(grep -c '^p a1 ' $cd_tag/notes.txt)"
	check_notes "$cd_tag" $cd_tag/prog
}
for f in $families; do
	if [ $f = gcc ]; then fcxx=$GXX; else fcxx=$CLANGXX; fi
	have "${fcxx%% *}" || continue
	comdat $f-comdat-1run "$fcxx" -O0 -O0 1
	comdat $f-comdat-2runs "$fcxx" -O0 -O0 2
	comdat $f-comdat-2runs-O0-O2 "$fcxx" -O0 -O2 2 mayfail
	comdat $f-comdat-2runs-O2-O0 "$fcxx" -O2 -O0 2 mayfail
done

finish
