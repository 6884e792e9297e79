#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-h-compile.sh: the header `dtrace -h` writes compiles, links and
# works.  One provider uses every type the provider compiler accepts
# (every C integer spelling, _Bool and bool, the <stdint.h> and
# <sys/types.h> names, the Solaris names, pointers, D string, typedefs of
# the .d file, struct/union pointers, enums) and probes of 0 to 12
# arguments; a second provider shares types with it.  A program calls
# every probe macro and every _ENABLED() macro and is built with gcc and
# clang as C89, C99, C11, C2x, C++11 and C++20 with -Wall -Wextra -Werror
# (and -pedantic for C99, C11 and C++11):
#  - with probes enabled it links against stand-ins for the probe stubs
#    and semaphores the header defines (stubs.c defines
#    USDT_NO_PROBE_STUBS; its __dtrace_* functions print their arguments,
#    and beat the header's weak stubs at the link) and must print every
#    argument with its exact
#    value, and _ENABLED() must follow its semaphore (0, then 1);
#  - with probes compiled out (-D_DTRACE_VERSION=0, -DUSDT_DISABLE_PROBES)
#    it must link without the stand-ins, reference no __dtrace_ or
#    __usdt_sema_ symbol, evaluate no probe argument and see every
#    _ENABLED() as 0.
# The two headers also compile alone and together in one translation
# unit with the strictest warnings, and a header included twice is
# harmless.

. "$top_srcdir/tests/lib.sh"

: "${CLANG:=}"
: "${CLANGXX:=}"

command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"
command -v nm >/dev/null 2>&1 || skip "no nm"

# ---------------------------------------------------------------------
# The providers

# n2 .. n11: int arguments; argument j of nK has the value K*100+j
gen_nk() {
	k=2
	while [ $k -le 11 ]; do
		"$@" $k
		k=$((k + 1))
	done
}
# list_join K FORMAT: FORMAT with %j replaced for j=1..K, joined by ", "
list_join() {
	lj_i=1 lj_out=
	while [ $lj_i -le "$1" ]; do
		lj_item=$(printf '%s' "$2" | sed "s/%j/$lj_i/g;s/%v/$(($3 * 100 + lj_i))/g")
		lj_out="${lj_out:+$lj_out, }$lj_item"
		lj_i=$((lj_i + 1))
	done
	printf '%s' "$lj_out"
}

d_nk() {
	printf '\tprobe n%s(%s);\n' "$1" "$(list_join "$1" int 0)"
}

{
	cat <<'EOF'
/*
 * Every type the provider compiler accepts, and probes of 0 to 12
 * arguments.
 */
typedef unsigned int Oid;
typedef Oid Oid2;			/* a typedef of a typedef */
typedef char *cstr;			/* of a pointer */
typedef const char *ccstr;
typedef struct conn *conn_p;		/* of a struct pointer, undeclared tag */
typedef union val *val_p;
typedef enum color color_t;
typedef long long counter_t;
struct conn;				/* forward declarations */
union val;
struct sess { int id; };		/* a definition */
enum color { RED, GREEN = 5 };

provider types {
	probe c_ints(char, signed char, unsigned char, short, short int,
	    signed short, unsigned short, unsigned short int, int, signed);
	probe c_ints2(signed int, unsigned, unsigned int, long, long int,
	    signed long, unsigned long, long unsigned int, long long,
	    long long int);
	probe c_ints3(signed long long, unsigned long long,
	    unsigned long long int, long long unsigned, _Bool, bool);
	probe exact(int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
	    uint32_t, uint64_t);
	probe least(int_least8_t, int_least16_t, int_least32_t,
	    int_least64_t, uint_least8_t, uint_least16_t, uint_least32_t,
	    uint_least64_t);
	probe fast(int_fast8_t, int_fast16_t, int_fast32_t, int_fast64_t,
	    uint_fast8_t, uint_fast16_t, uint_fast32_t, uint_fast64_t);
	probe ptrint(intptr_t, uintptr_t, intmax_t, uintmax_t, ptrdiff_t);
	probe systypes(size_t, ssize_t, off_t, pid_t, uid_t, gid_t, mode_t,
	    dev_t, ino_t, time_t);
	probe solaris(uchar_t, ushort_t, uint_t, ulong_t, longlong_t,
	    u_longlong_t, caddr_t);
	probe pointers(void *, const void *, char *, const char *, char **,
	    const char *const, const char **, int *, unsigned char *,
	    volatile void *);
	probe strings(string, string name);
	probe typedefs(Oid, Oid2, cstr, const cstr, ccstr, conn_p, val_p,
	    color_t, counter_t);
	probe tags(struct conn *, const struct conn *c, struct conn **,
	    union val *, struct sess *, enum color);
	probe xlated(int a, const char *b) : (string b, int a);
	probe name__with_under(void);
	probe n0();
	probe n1(int);
EOF
	gen_nk d_nk
	cat <<'EOF'
	probe n12(char, short, int, long, long long, unsigned char,
	    unsigned short, unsigned int, unsigned long, unsigned long long,
	    const char *, int);
};
EOF
} >types.d

cat >other.d <<'EOF'
/* a second provider sharing tags, typedefs and bool with the first */
struct conn;
typedef struct conn *conn_p;
provider other {
	probe conn__open(conn_p c, bool ok, uint64_t id);
	probe tick();
};
EOF

run_dtrace -h -s types.d -o types.h
expect_eq "dtrace -h types.d" 0 "$status"
run_dtrace -h -s other.d -o other.h
expect_eq "dtrace -h other.d" 0 "$status"
[ -s types.h ] && [ -s other.h ] || {
	fail "no headers to compile"
	finish
}

# every probe, as "provider probe"
probes="types c_ints
types c_ints2
types c_ints3
types exact
types least
types fast
types ptrint
types systypes
types solaris
types pointers
types strings
types typedefs
types tags
types xlated
types name__with_under
types n0
types n1
$(gen_nk printf 'types n%s\n')
types n12
other conn__open
other tick"

# ---------------------------------------------------------------------
# Stand-ins for what `dtrace -G` provides: each prints its arguments.
# stubs.c includes the headers, so each definition must also match the
# prototype the header declared.

stub_nk() {
	printf 'void __dtrace_types___n%s(%s)\n{\n\tprintf("n%s %s\\n", %s);\n}\n' \
		"$1" "$(list_join "$1" 'int a%j' 0)" "$1" \
		"$(list_join "$1" '%d' 0 | sed 's/, / /g')" \
		"$(list_join "$1" 'a%j' 0)"
}

{
	cat <<'EOF'
/* the stand-ins replace the stubs and semaphores the headers define */
#define USDT_NO_PROBE_STUBS 1
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "types.h"
#include "other.h"

struct conn { int id; };
union val { long l; };
struct sess { int id; };

EOF
	echo "$probes" | while read -r prov probe; do
		printf 'volatile unsigned short __usdt_sema_%s___%s;\n' "$prov" "$probe"
	done
	cat <<'EOF'

void __dtrace_types___c_ints(char a, signed char b, unsigned char c, short d,
			     short e, short f, unsigned short g,
			     unsigned short h, int i, int j)
{
	printf("c_ints %d %d %u %d %d %d %u %u %d %d\n", a, b, (unsigned)c, d,
	       e, f, (unsigned)g, (unsigned)h, i, j);
}

void __dtrace_types___c_ints2(int a, unsigned int b, unsigned int c, long d,
			      long e, long f, unsigned long g,
			      unsigned long h, long long i, long long j)
{
	printf("c_ints2 %d %u %u %ld %ld %ld %lu %lu %lld %lld\n", a, b, c, d,
	       e, f, g, h, i, j);
}

void __dtrace_types___c_ints3(long long a, unsigned long long b,
			      unsigned long long c, unsigned long long d,
			      _Bool e, _Bool f)
{
	printf("c_ints3 %lld 0x%llx %llu %llu %d %d\n", a, b, c, d, e, f);
}

void __dtrace_types___exact(int8_t a, int16_t b, int32_t c, int64_t d,
			    uint8_t e, uint16_t f, uint32_t g, uint64_t h)
{
	printf("exact %d %d %d %lld %u %u %u 0x%llx\n", a, b, c, (long long)d,
	       (unsigned)e, (unsigned)f, (unsigned)g, (unsigned long long)h);
}

void __dtrace_types___least(int_least8_t a, int_least16_t b,
			    int_least32_t c, int_least64_t d,
			    uint_least8_t e, uint_least16_t f,
			    uint_least32_t g, uint_least64_t h)
{
	printf("least %d %d %d %lld %u %u %u 0x%llx\n", a, b, c, (long long)d,
	       (unsigned)e, (unsigned)f, (unsigned)g, (unsigned long long)h);
}

void __dtrace_types___fast(int_fast8_t a, int_fast16_t b, int_fast32_t c,
			   int_fast64_t d, uint_fast8_t e, uint_fast16_t f,
			   uint_fast32_t g, uint_fast64_t h)
{
	printf("fast %d %lld %lld %lld %u %llu %llu 0x%llx\n", a,
	       (long long)b, (long long)c, (long long)d, (unsigned)e,
	       (unsigned long long)f, (unsigned long long)g,
	       (unsigned long long)h);
}

void __dtrace_types___ptrint(intptr_t a, uintptr_t b, intmax_t c,
			     uintmax_t d, ptrdiff_t e)
{
	printf("ptrint %ld 0x%lx %jd 0x%jx %td\n", (long)a, (unsigned long)b, c,
	       d, e);
}

void __dtrace_types___systypes(size_t a, ssize_t b, off_t c, pid_t d,
			       uid_t e, gid_t f, mode_t g, dev_t h, ino_t i,
			       time_t j)
{
	printf("systypes 0x%zx %zd %lld %d %u %u %o %llu %llu %lld\n", a, b,
	       (long long)c, (int)d, (unsigned)e, (unsigned)f, (unsigned)g,
	       (unsigned long long)h, (unsigned long long)i, (long long)j);
}

void __dtrace_types___solaris(unsigned char a, unsigned short b,
			      unsigned int c, unsigned long d, long long e,
			      unsigned long long f, char *g)
{
	printf("solaris %u %u %u 0x%lx %lld 0x%llx %s\n", (unsigned)a,
	       (unsigned)b, c, d, e, f, g);
}

void __dtrace_types___pointers(void *a, const void *b, char *c,
			       const char *d, char **e, const char *const f,
			       const char **g, int *h, unsigned char *i,
			       volatile void *j)
{
	printf("pointers 0x%lx 0x%lx %s %s %s %s %s %d 0x%x 0x%lx\n",
	       (unsigned long)(uintptr_t)a, (unsigned long)(uintptr_t)b, c, d,
	       e[0], f, g[0], *h, (unsigned)i[0],
	       (unsigned long)(uintptr_t)j);
}

void __dtrace_types___strings(const char *a, const char *b)
{
	printf("strings %s %s\n", a, b);
}

void __dtrace_types___typedefs(unsigned int a, unsigned int b, char *c,
			       char *const d, const char *e, struct conn *f,
			       union val *g, int h, long long i)
{
	printf("typedefs %u %u %s %s %s %d %ld %d %lld\n", a, b, c, d, e,
	       f->id, g->l, h, i);
}

void __dtrace_types___tags(struct conn *a, const struct conn *b,
			   struct conn **c, union val *d, struct sess *e, int f)
{
	printf("tags %d %d %d %ld %d %d\n", a->id, b->id, (*c)->id, d->l, e->id,
	       f);
}

void __dtrace_types___xlated(int a, const char *b)
{
	printf("xlated %d %s\n", a, b);
}

void __dtrace_types___name__with_under(void)
{
	printf("name__with_under\n");
}

void __dtrace_types___n0(void)
{
	printf("n0\n");
}

void __dtrace_types___n1(int a)
{
	printf("n1 %d\n", a);
}

EOF
	gen_nk stub_nk
	cat <<'EOF'

void __dtrace_types___n12(char a, short b, int c, long d, long long e,
			  unsigned char f, unsigned short g, unsigned int h,
			  unsigned long i, unsigned long long j, const char *k,
			  int l)
{
	printf("n12 %d %d %d %ld %lld %u %u %u 0x%lx 0x%llx %s %d\n", a, b, c,
	       d, e, (unsigned)f, (unsigned)g, h, i, j, k, l);
}

void __dtrace_other___conn__open(struct conn *c, _Bool ok, uint64_t id)
{
	printf("conn__open %d %d 0x%llx\n", c->id, ok, (unsigned long long)id);
}

void __dtrace_other___tick(void)
{
	printf("tick\n");
}
EOF
} >stubs.c

# ---------------------------------------------------------------------
# The program: C89-clean, and valid C++

call_nk() {
	printf '\tTYPES_N%s(%s);\n' "$1" "$(list_join "$1" '%v' "$1")"
}

{
	cat <<'EOF'
/* calls every probe and every _ENABLED() of types.d and other.d */
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "types.h"
#include "other.h"
#include "types.h"	/* again: the guard makes it harmless */

#ifdef __cplusplus
#define TBOOL bool
#else
#define TBOOL _Bool
#endif

#if _DTRACE_VERSION && !defined(USDT_DISABLE_PROBES)
/* _ENABLED() follows the semaphore: 0, then 1 while it is set */
#define CHECK(M, sema)							\
	do {								\
		int e0_ = M##_ENABLED() != 0, e1_;			\
		sema = 1;						\
		e1_ = M##_ENABLED() != 0;				\
		sema = 0;						\
		printf("%s_ENABLED %d %d\n", #M, e0_, e1_);		\
	} while (0)
#else
#define CHECK(M, sema) printf("%s_ENABLED %d\n", #M, M##_ENABLED() != 0)
#endif

struct conn { int id; };
union val { long l; };
struct sess { int id; };
enum color { RED, GREEN = 5 };

struct conn g_conn = { 7 };
struct conn *g_connp = &g_conn;
union val g_val;
struct sess g_sess = { 9 };
char g_str[] = "hello";
char *g_strv[] = { g_str, NULL };
const char *g_cstrv[] = { "world", NULL };
int g_int = 42;
unsigned char g_bytes[] = { 0xab, 0 };
TBOOL g_true = 1, g_false = 0;
int g_evaluated;	/* probe arguments evaluated */

int bump(void);
int bump(void)
{
	g_evaluated++;
	return 101;
}

int main(void)
{
	g_val.l = -77;

	TYPES_C_INTS('A', (signed char)-2, (unsigned char)255, (short)-3,
		     (short)-4, (short)-5, (unsigned short)65535,
		     (unsigned short)2, -1, -6);
	TYPES_C_INTS2(-7, 4294967295U, 3U, -8L, -9223372036854775807L - 1,
		      -9L, 18446744073709551615UL, 4UL, -10LL,
		      -9223372036854775807LL - 1);
	TYPES_C_INTS3(-11LL, 0xffffffffffffffffULL, 5ULL, 6ULL, g_true,
		      g_false);
	TYPES_EXACT((int8_t)-128, (int16_t)-32768, (int32_t)-2147483647 - 1,
		    (int64_t)-1, (uint8_t)255, (uint16_t)65535,
		    (uint32_t)4294967295U, (uint64_t)0xffffffffffffffffULL);
	TYPES_LEAST((int_least8_t)-127, (int_least16_t)-32767,
		    (int_least32_t)-2147483647, (int_least64_t)-2,
		    (uint_least8_t)254, (uint_least16_t)65534,
		    (uint_least32_t)4294967294U,
		    (uint_least64_t)0xfffffffffffffffeULL);
	TYPES_FAST((int_fast8_t)-100, (int_fast16_t)-30000,
		   (int_fast32_t)-2000000000, (int_fast64_t)-5,
		   (uint_fast8_t)200, (uint_fast16_t)60000,
		   (uint_fast32_t)4000000000U,
		   (uint_fast64_t)0xfffffffffffffffdULL);
	TYPES_PTRINT((intptr_t)-1, (uintptr_t)0xdeadbeefUL, (intmax_t)-2,
		     (uintmax_t)0xffffffffffffffffULL, (ptrdiff_t)-3);
	TYPES_SYSTYPES((size_t)-1, (ssize_t)-1, (off_t)-2, (pid_t)1234,
		       (uid_t)4294967294U, (gid_t)7, (mode_t)0644, (dev_t)8,
		       (ino_t)9, (time_t)-10);
	TYPES_SOLARIS((unsigned char)200, (unsigned short)60000, 4000000000U,
		      0xffffffffffffffffUL, -1LL, 0xfffffffffffffffeULL,
		      g_str);
	TYPES_POINTERS((void *)0x1234, (const void *)0x5678, g_str, "const",
		       g_strv, "cc", g_cstrv, &g_int, g_bytes,
		       (volatile void *)0x9abc);
	TYPES_STRINGS("one", "two");
	TYPES_TYPEDEFS(100U, 200U, g_str, g_str, "ccstr", &g_conn, &g_val,
		       GREEN, -12LL);
	TYPES_TAGS(&g_conn, &g_conn, &g_connp, &g_val, &g_sess, RED);
	TYPES_XLATED(3, "three");
	TYPES_NAME_WITH_UNDER();
	TYPES_N0();
	TYPES_N1(bump());
EOF
	gen_nk call_nk
	cat <<'EOF'
	TYPES_N12('z', (short)-2, -3, -4L, -5LL, (unsigned char)250,
		  (unsigned short)65000, 4000000001U, 0xfffffffffffffff0UL,
		  0xffffffffffffffffULL, "twelve", -12);
	OTHER_CONN_OPEN(&g_conn, g_true, (uint64_t)0x8000000000000000ULL);
	OTHER_TICK();

EOF
	echo "$probes" | while read -r prov probe; do
		m=$(echo "${prov}_$probe" | sed 's/__/_/g' | tr 'a-z' 'A-Z')
		printf '\tCHECK(%s, __usdt_sema_%s___%s);\n' "$m" "$prov" "$probe"
	done
	cat <<'EOF'

	printf("evaluated %d\n", g_evaluated);
	return 0;
}
EOF
} >prog.c
cp prog.c prog.cc

# ---------------------------------------------------------------------
# What the program prints

out_nk() {
	printf 'n%s %s\n' "$1" "$(list_join "$1" '%v' "$1" | sed 's/, / /g')"
}

{
	cat <<'EOF'
c_ints 65 -2 255 -3 -4 -5 65535 2 -1 -6
c_ints2 -7 4294967295 3 -8 -9223372036854775808 -9 18446744073709551615 4 -10 -9223372036854775808
c_ints3 -11 0xffffffffffffffff 5 6 1 0
exact -128 -32768 -2147483648 -1 255 65535 4294967295 0xffffffffffffffff
least -127 -32767 -2147483647 -2 254 65534 4294967294 0xfffffffffffffffe
fast -100 -30000 -2000000000 -5 200 60000 4000000000 0xfffffffffffffffd
ptrint -1 0xdeadbeef -2 0xffffffffffffffff -3
systypes 0xffffffffffffffff -1 -2 1234 4294967294 7 644 8 9 -10
solaris 200 60000 4000000000 0xffffffffffffffff -1 0xfffffffffffffffe hello
pointers 0x1234 0x5678 hello const hello cc world 42 0xab 0x9abc
strings one two
typedefs 100 200 hello hello ccstr 7 -77 5 -12
tags 7 7 7 -77 9 0
xlated 3 three
name__with_under
n0
n1 101
EOF
	gen_nk out_nk
	cat <<'EOF'
n12 122 -2 -3 -4 -5 250 65000 4000000001 0xfffffffffffffff0 0xffffffffffffffff twelve -12
conn__open 7 1 0x8000000000000000
tick
EOF
	echo "$probes" | while read -r prov probe; do
		m=$(echo "${prov}_$probe" | sed 's/__/_/g' | tr 'a-z' 'A-Z')
		echo "${m}_ENABLED 0 1"
	done
	echo "evaluated 1"
} >expected-on.txt

{
	echo "$probes" | while read -r prov probe; do
		m=$(echo "${prov}_$probe" | sed 's/__/_/g' | tr 'a-z' 'A-Z')
		echo "${m}_ENABLED 0"
	done
	echo "evaluated 0"
} >expected-off.txt

# ---------------------------------------------------------------------
# The matrix

W="-Wall -Wextra -Werror"
HW_C="$W -Wstrict-prototypes -Wmissing-prototypes -Wredundant-decls -Wshadow -Wundef"
HW_CXX="$W -Wredundant-decls -Wshadow -Wundef -Wmissing-declarations"

printf '#include "types.h"\n' >hdr-only.c
printf '#include "types.h"\n#include "other.h"\n' >hdr-two.c
cp hdr-only.c hdr-only.cc
cp hdr-two.c hdr-two.cc

# compile_ok WHAT COMMAND...: the command must succeed silently
compile_ok() {
	co_what=$1
	shift
	if "$@" >cc.log 2>&1 && [ ! -s cc.log ]; then
		pass
	else
		fail "$co_what: $*"
		sed 's/^/    | /' cc.log >&2
		return 1
	fi
}

# run_prog WHAT EXE EXPECTED
run_prog() {
	if ./"$2" >run.txt 2>&1; then
		pass
	else
		fail "$1: $2 failed"
	fi
	expect_file_eq "$1: output" "$3" run.txt
}

# no_probe_syms WHAT FILE: nm finds no __dtrace_ or __usdt_sema_ symbol
no_probe_syms() {
	if ! nm "$2" >nm.txt 2>&1; then
		fail "$1: nm $2"
		return
	fi
	if grep -q '__dtrace_\|__usdt_sema_' nm.txt; then
		fail "$1: $2 refers to probe symbols:"
		grep '__dtrace_\|__usdt_sema_' nm.txt | sed 's/^/    | /' >&2
	else
		pass
	fi
}

# matrix FAMILY CC CXX
matrix() {
	fam=$1 cc=$2 cxx=$3

	if ! compile_ok "$fam: stand-ins" $cc -std=gnu11 $W -c stubs.c \
		-o stubs-$fam.o; then
		return
	fi
	# the enabled program does refer to the probes, so the nm check
	# below can tell the difference
	if compile_ok "$fam: probes referenced" $cc -std=c99 $W -c prog.c \
		-o prog-$fam.o; then
		nm prog-$fam.o >nm-on.txt 2>&1
		expect_grep "$fam: prog.o refers to a probe" \
			'[UW] __dtrace_types___n12$' nm-on.txt
		expect_grep "$fam: prog.o refers to a semaphore" \
			'[UV] __usdt_sema_other___tick$' nm-on.txt
	fi

	for std in c89 c99 c11 c2x c++11 c++20; do
		case $std in
		c++*)	comp=$cxx src=prog.cc hdr=hdr-only.cc two=hdr-two.cc
			hw=$HW_CXX ;;
		*)	comp=$cc src=prog.c hdr=hdr-only.c two=hdr-two.c
			hw=$HW_C ;;
		esac
		if [ -z "$comp" ] || ! command -v "$comp" >/dev/null 2>&1; then
			echo "# $fam: no compiler for $std, skipped"
			continue
		fi
		t="$fam $std"
		exe=prog-$fam-$std

		# probes enabled: link with the stand-ins, run (C99's
		# object is prog-$fam.o, compiled alike above)
		src_on=$src
		[ $std = c99 ] && [ -f prog-$fam.o ] && src_on=prog-$fam.o
		if compile_ok "$t: enabled" $comp -std=$std $W $src_on \
			stubs-$fam.o -o $exe; then
			run_prog "$t: enabled" $exe expected-on.txt
		fi

		# probes compiled out, two ways: no stand-ins needed
		for off in -D_DTRACE_VERSION=0 -DUSDT_DISABLE_PROBES; do
			if compile_ok "$t: $off" $comp -std=$std $W $off $src \
				-o $exe-off; then
				no_probe_syms "$t: $off" $exe-off
				run_prog "$t: $off" $exe-off expected-off.txt
			fi
		done

		case $std in
		c99|c11|c++11)
			for m in "" -D_DTRACE_VERSION=0 -DUSDT_DISABLE_PROBES; do
				compile_ok "$t: -pedantic $m" $comp -std=$std \
					-pedantic $W $m -c $src -o pedantic.o
			done
			;;
		esac

		# the headers alone and together, strictest warnings
		for m in "" -DUSDT_DISABLE_PROBES; do
			compile_ok "$t: header alone $m" $comp -std=$std $hw $m \
				-c $hdr -o hdr.o
			compile_ok "$t: two headers $m" $comp -std=$std $hw $m \
				-c $two -o hdr.o
		done
	done
}

matrix gcc "$CC" "$CXX"

# under LTO, _ENABLED() still reads the semaphore (with gcc whatever $CC
# is: clang's LTO needs a linker plugin that may not be installed)
if ! lto_cc=$(gcc_driver "$CC" c); then
	echo "# no gcc: the LTO build is not tried"
elif compile_ok "$lto_cc -O2 -flto: build" $lto_cc -std=c99 $W -O2 \
	-c stubs.c -o stubs-lto.o; then
	# (the stand-ins stay out of the LTO unit: there, the semaphores
	# they define in C would meet the header's assembler definitions)
	if compile_ok "$lto_cc -O2 -flto: link" $lto_cc -std=c99 $W -O2 \
		-flto prog.c stubs-lto.o -o prog-lto; then
		run_prog "$lto_cc -O2 -flto" prog-lto expected-on.txt
	fi
fi

if [ -n "$CLANG" ] && command -v "$CLANG" >/dev/null 2>&1; then
	clangxx=$CLANGXX
	if [ -z "$clangxx" ] || ! command -v "$clangxx" >/dev/null 2>&1; then
		echo "# CLANGXX not set: clang's C++ builds skipped"
		clangxx=
	fi
	matrix clang "$CLANG" "$clangxx"
else
	echo "# CLANG not set: clang builds skipped"
fi

# ---------------------------------------------------------------------
# Known problems, kept apart so the matrix above stays readable

# off64_t and id_t must compile without feature-test macros: glibc's
# <sys/types.h> declares off64_t only with _LARGEFILE64_SOURCE and id_t
# only for POSIX 2008/XSI, neither of which strict ISO modes (nor, for
# off64_t, gcc's default gnu17) enable.
cat >sysx.d <<'EOF'
provider sysx {
	probe a(off64_t, id_t);
};
EOF
run_dtrace -h -s sysx.d -o sysx.h
expect_eq "dtrace -h sysx.d" 0 "$status"
cat >sysx.c <<'EOF'
#include "sysx.h"
void f(void);
void f(void)
{
	SYSX_A(-1, 2U);
}
EOF
for c in "$CC" ${CLANG:+"$CLANG"}; do
	for std in c99 c11 gnu11; do
		compile_ok "off64_t, id_t: $c -std=$std" $c -std=$std $W \
			-c sysx.c -o sysx.o
	done
done

# a pointer to an enum must accept a pointer to that enum (in C++ too):
# the header spells `enum color *` as `int *`, a different type
cat >enump.d <<'EOF'
enum color { RED, GREEN };
typedef enum color color_t;
provider enump {
	probe a(enum color *, const color_t *, enum color);
};
EOF
run_dtrace -h -s enump.d -o enump.h
expect_eq "dtrace -h enump.d" 0 "$status"
cat >enump.c <<'EOF'
enum color { RED, GREEN };
#include "enump.h"
enum color g_color = GREEN;
void f(void);
void f(void)
{
	ENUMP_A(&g_color, &g_color, g_color);
}
EOF
cp enump.c enump.cc
compile_ok "enum pointer: $CC" $CC -std=c99 $W -c enump.c -o enump.o
compile_ok "enum pointer: $CXX" $CXX -std=c++11 $W -c enump.cc -o enump.o

# the usual idiom, `if (P_ENABLED()) P(args);`, must stay warning-free
# with probes compiled out: an empty expansion trips -Wempty-body
cat >idiom.c <<'EOF'
#include "types.h"
int g_x;
void f(void);
void f(void)
{
	if (TYPES_N0_ENABLED())
		TYPES_N0();
	if (TYPES_N1_ENABLED())
		TYPES_N1(g_x);
}
EOF
cp idiom.c idiom.cc
for m in "" -D_DTRACE_VERSION=0 -DUSDT_DISABLE_PROBES; do
	compile_ok "if (ENABLED) PROBE(): $CC $m" $CC -std=c99 $W $m \
		-c idiom.c -o idiom.o
	compile_ok "if (ENABLED) PROBE(): $CXX $m" $CXX -std=c++11 $W $m \
		-c idiom.cc -o idiom.o
done

finish
