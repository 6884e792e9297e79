#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-h-cpp.sh: `dtrace -C -h` runs the C preprocessor over the provider
# file the way real builds need it: -I, -D NAME=VAL and -U reach cpp in
# order, #include brings in PostgreSQL-style type macros, #if/#ifdef
# choose probes, GNU's predefined `linux`/`unix` do not leak into names,
# $CPP is honoured (a logging wrapper proves the argv: `-x c`, the user's
# flags in order, the file last) and split on blanks (CPP="gcc -E"),
# errors inside an #include'd file name that file and line, and without
# -C a -D is accepted and ignored (QEMU passes -DSTAP_SDT_V2 without -C).

. "$top_srcdir/tests/lib.sh"

command -v cpp >/dev/null 2>&1 || skip "no cpp on PATH"

mkdir inc || exit 99
cat >inc/types.h <<'EOF'
/*
 * Type aliases the PostgreSQL way: macros, so that the .d file needs no
 * typedefs.
 */
#define LocalTransactionId unsigned int
#define Oid unsigned int
#define bool char
EOF

cat >probes.d <<'EOF'
/* a provider that only makes sense after cpp */
#include "types.h"

provider cpptest {
	probe xact__start(LocalTransactionId);
	probe plan__start();
	probe sort__done(bool, long);
	probe counted(COUNT_T);
#ifdef WITH_EXTRA
	probe extra(Oid);
#endif
#if LEVEL >= 2
	probe level2(int);
#else
	probe level1(int);
#endif
#ifdef DROPPED
	probe dropped();
#endif
#if defined(linux) || defined(unix)
	probe predefined();
#endif
#ifdef __SUNW_D
	probe sunw__d();
#endif
#ifdef FROM_CPP_VAR
	probe from__cpp__var();
#endif
};
EOF

# protos FILE: the probe prototypes of a generated header
protos() {
	grep '^extern void ' "$1"
}

# ---------------------------------------------------------------------
# -I, -D NAME=VAL, -D NAME, #include, #if, #ifdef

run_dtrace -C -Iinc -DWITH_EXTRA -DLEVEL=2 '-DCOUNT_T=unsigned long' \
	-h -s probes.d -o p1.h
expect_eq "-I -D: exit status" 0 "$status"
expect_eq "-I -D: stderr" "" "$(cat err.txt)"
cat >expected.txt <<'EOF'
extern void __dtrace_cpptest___xact__start(unsigned int)
extern void __dtrace_cpptest___plan__start(void)
extern void __dtrace_cpptest___sort__done(char, long)
extern void __dtrace_cpptest___counted(unsigned long)
extern void __dtrace_cpptest___extra(unsigned int)
extern void __dtrace_cpptest___level2(int)
extern void __dtrace_cpptest___sunw__d(void)
EOF
protos p1.h >actual.txt
expect_file_eq "-I -D: prototypes" expected.txt actual.txt
expect_grep "-I -D: macro" '^#define	CPPTEST_XACT_START(arg0) \\$' p1.h
expect_grep "-I -D: zero-argument probe" '^#define	CPPTEST_PLAN_START() \\$' p1.h

# separate option arguments (-I dir, -D name) work the same
run_dtrace -C -I inc -D LEVEL=1 -D COUNT_T=int -D DROPPED \
	-h -s probes.d -o p2.h
expect_eq "-I dir -D name: exit status" 0 "$status"
cat >expected.txt <<'EOF'
extern void __dtrace_cpptest___xact__start(unsigned int)
extern void __dtrace_cpptest___plan__start(void)
extern void __dtrace_cpptest___sort__done(char, long)
extern void __dtrace_cpptest___counted(int)
extern void __dtrace_cpptest___level1(int)
extern void __dtrace_cpptest___dropped(void)
extern void __dtrace_cpptest___sunw__d(void)
EOF
protos p2.h >actual.txt
expect_file_eq "-I dir -D name: prototypes" expected.txt actual.txt

# -U after -D undefines; -D after -U defines: the order is kept
run_dtrace -C -Iinc -DCOUNT_T=int -DWITH_EXTRA -UWITH_EXTRA \
	-h -s probes.d -o p3.h
expect_eq "-D then -U: exit status" 0 "$status"
if grep -q '__dtrace_cpptest___extra' p3.h; then
	fail "-D then -U: probe 'extra' is still there"
else
	pass
fi
run_dtrace -C -Iinc -DCOUNT_T=int -UWITH_EXTRA -DWITH_EXTRA \
	-h -s probes.d -o p4.h
expect_eq "-U then -D: exit status" 0 "$status"
expect_grep "-U then -D: probe 'extra'" \
	'^extern void __dtrace_cpptest___extra(unsigned int)$' p4.h

# a -U of one of cpp's own macros works too
run_dtrace -C -Iinc -DCOUNT_T=int -U__SUNW_D -h -s probes.d -o p5.h
expect_eq "-U__SUNW_D: exit status" 0 "$status"
if grep -q 'sunw__d' p5.h; then
	fail "-U__SUNW_D: probe 'sunw__d' is still there"
else
	pass
fi

# without -I the #include fails in cpp, and dtrace says cpp failed
run_dtrace -C -DCOUNT_T=int -h -s probes.d -o p6.h
expect_eq "missing -I: exit status" 1 "$status"
expect_eq "missing -I: dtrace's message" \
	"dtrace: failed to compile script probes.d: the preprocessor 'cpp' failed (exit status 1)" \
	"$(grep '^dtrace:' err.txt)"
expect_grep "missing -I: cpp's message" 'types\.h' err.txt
expect_eq "missing -I: no output" "" "$(ls p6.h 2>/dev/null)"

# ---------------------------------------------------------------------
# GNU cpp predefines linux and unix as 1; they must not rename anything

cat >unix.d <<'EOF'
provider unix {
	probe linux(int linux);
};
EOF
run_dtrace -C -h -s unix.d -o unix.h
expect_eq "provider 'unix': exit status" 0 "$status"
expect_grep "provider 'unix': prototype" \
	'^extern void __dtrace_unix___linux(int)$' unix.h
expect_grep "provider 'unix': macro" '^#define	UNIX_LINUX(arg0) \\$' unix.h

# ---------------------------------------------------------------------
# $CPP: a wrapper that logs its argv, one word a line

cat >logcpp <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >>cpp.log
exec cpp "$@"
EOF
chmod +x logcpp

CPP="./logcpp -DFROM_CPP_VAR"
export CPP
run_dtrace -C -Iinc -DWITH_EXTRA -DLEVEL=2 '-DCOUNT_T=unsigned long' \
	-UDROPPED -h -s probes.d -o w.h
unset CPP
expect_eq "\$CPP wrapper: exit status" 0 "$status"
if [ -f cpp.log ]; then
	pass
	# the words of $CPP come first
	expect_eq "\$CPP wrapper: first argument" "-DFROM_CPP_VAR" \
		"$(sed -n 1p cpp.log)"
	# `-x c`, so that gcc's driver does not take a .d file for the linker
	expect_eq "\$CPP wrapper: -x c" "yes" \
		"$(awk 'prev == "-x" && $0 == "c" { ok = 1 } { prev = $0 }
			END { print ok ? "yes" : "no" }' cpp.log)"
	# the user's flags in order, then the file
	cat >expected.txt <<'EOF'
-Iinc
-DWITH_EXTRA
-DLEVEL=2
-DCOUNT_T=unsigned long
-UDROPPED
probes.d
EOF
	tail -n 6 cpp.log >actual.txt
	expect_file_eq "\$CPP wrapper: user flags and file" expected.txt actual.txt
	expect_eq "\$CPP wrapper: called once" 1 \
		"$(grep -c '^probes\.d$' cpp.log)"
else
	fail "\$CPP wrapper: it was not run"
fi
expect_grep "\$CPP wrapper: its -D took effect" \
	'^extern void __dtrace_cpptest___from__cpp__var(void)$' w.h
# and the header is the one plain cpp gives with the same flags
mkdir ref || exit 99
run_dtrace -C -DFROM_CPP_VAR -Iinc -DWITH_EXTRA -DLEVEL=2 \
	'-DCOUNT_T=unsigned long' -UDROPPED -h -s probes.d -o ref/w.h
expect_file_eq "\$CPP wrapper: same header as plain cpp" ref/w.h w.h

# -x cpppath names the preprocessor too
rm -f cpp.log
run_dtrace -C -x cpppath=./logcpp -Iinc -DCOUNT_T=int -h -s probes.d -o x.h
expect_eq "-x cpppath: exit status" 0 "$status"
expect_eq "-x cpppath: the wrapper ran" "probes.d" \
	"$(tail -n 1 cpp.log 2>/dev/null)"

# CPP="gcc -E", with extra blanks and a tab: split on blanks, no shell
if command -v gcc >/dev/null 2>&1; then
	mkdir gcc || exit 99
	CPP="  gcc	 -E  "
	export CPP
	run_dtrace -C -Iinc -DWITH_EXTRA -DLEVEL=2 \
		'-DCOUNT_T=unsigned long' -h -s probes.d -o gcc/p1.h
	unset CPP
	expect_eq "CPP=\"gcc -E\": exit status" 0 "$status"
	expect_eq "CPP=\"gcc -E\": stderr" "" "$(cat err.txt)"
	expect_file_eq "CPP=\"gcc -E\": same header as cpp" p1.h gcc/p1.h
else
	echo "# no gcc: CPP=\"gcc -E\" not tested"
fi

# a CPP that fails is reported with its name and exit status
CPP=false
export CPP
run_dtrace -C -h -s unix.d -o f.h
unset CPP
expect_eq "CPP=false: exit status" 1 "$status"
expect_eq "CPP=false: message" \
	"dtrace: failed to compile script unix.d: the preprocessor 'false' failed (exit status 1)" \
	"$(cat err.txt)"

# ---------------------------------------------------------------------
# Errors in #include'd files point at that file and line

cat >inc/inner.h <<'EOF'
/* inner.h */
#define Oid unsigned int

typedef Oid RelFileNumber;
typedef foo_t bar_t;
EOF
cat >inc/outer.h <<'EOF'
/* outer.h */
#include "inner.h"
EOF
cat >bad.d <<'EOF'
#include "outer.h"
provider p {
	probe a(RelFileNumber);
};
EOF
run_dtrace -C -Iinc -h -s bad.d -o bad.h
expect_eq "error in an included file: exit status" 1 "$status"
cat >expected.txt <<'EOF'
dtrace: failed to compile script bad.d: inc/inner.h: line 5:9: unknown type name 'foo_t' in typedef
    typedef foo_t bar_t;
            ^
dtrace: hint: declare it first, e.g. 'typedef unsigned int Oid;', or pass it with -C and a #define
EOF
expect_file_eq "error in an included file: stderr" expected.txt err.txt
expect_eq "error in an included file: no output" "" "$(ls bad.h 2>/dev/null)"

# after the #include, lines count in the main file again
sed -i 's/^typedef foo_t bar_t;$//' inc/inner.h
cat >bad2.d <<'EOF'
#include "outer.h"

/* a comment
 * over lines */
provider p {
probe a(RelFileNumber);
probe b(LocalTransactionId);
};
EOF
run_dtrace -C -Iinc -h -s bad2.d -o bad2.h
expect_eq "error after an include: exit status" 1 "$status"
expect_eq "error after an include: position in the main file" \
	"dtrace: failed to compile script bad2.d: line 7:9: unknown type name 'LocalTransactionId' in argument 1 of probe 'b'" \
	"$(sed -n 1p err.txt)"

# #pragma D passes through cpp and is still checked, at its own line
cat >prag.d <<'EOF'
#define PROV cpptest
provider PROV {
	probe a();
};

#pragma D attributes Evolving/Evolving/Common provider cpptest provider
#pragma D attributes Evolving/Evolving/Kommon provider cpptest args
EOF
run_dtrace -C -h -s prag.d -o prag.h
expect_eq "bad #pragma under -C: exit status" 1 "$status"
expect_eq "bad #pragma under -C: message" \
	"dtrace: failed to compile script prag.d: line 7:1: invalid dependency class 'Kommon' in #pragma D attributes" \
	"$(sed -n 1p err.txt)"
sed -i 's/Kommon/Common/' prag.d
run_dtrace -C -h -s prag.d -o prag.h
expect_eq "good #pragma under -C: exit status" 0 "$status"
expect_eq "good #pragma under -C: stderr" "" "$(cat err.txt)"
expect_grep "good #pragma under -C: macro from a #define'd provider name" \
	'^#define	CPPTEST_A() \\$' prag.h

# ---------------------------------------------------------------------
# Without -C, -D (and -I, -U) are accepted and ignored: QEMU's
# `dtrace -DSTAP_SDT_V2 -o OUT -h -s IN`

cat >plain.d <<'EOF'
provider qemu {
	probe vm__state(bool running, uint64_t id, int8_t *p);
};
EOF
run_dtrace -o plain.h -h -s plain.d
expect_eq "no -C: exit status" 0 "$status"
mkdir qemu || exit 99
run_dtrace -DSTAP_SDT_V2 -o qemu/plain.h -h -s plain.d
expect_eq "no -C, -DSTAP_SDT_V2: exit status" 0 "$status"
expect_eq "no -C, -DSTAP_SDT_V2: stderr" "" "$(cat err.txt)"
expect_file_eq "no -C, -DSTAP_SDT_V2: same header" plain.h qemu/plain.h

# no cpp runs without -C, so a failing $CPP changes nothing
CPP=false
export CPP
mkdir qemu2 || exit 99
run_dtrace -DSTAP_SDT_V2 -o qemu2/plain.h -h -s plain.d
unset CPP
expect_eq "no -C, CPP=false: exit status" 0 "$status"
expect_file_eq "no -C, CPP=false: same header" plain.h qemu2/plain.h

finish
