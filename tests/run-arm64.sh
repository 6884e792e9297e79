#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-arm64.sh (make check-arm64): the build side on aarch64, cross-built
# with Debian's cross toolchain and run under qemu-user.  Nothing here
# traces: uprobes and BPF on arm64 need an arm64 kernel.
#
#  - drti/drti.c builds for aarch64 without a warning (-Werror);
#  - dtrace -h headers and <sys/sdt.h> compile with aarch64-linux-gnu-gcc
#    -O2 -Wall -Wextra -Werror;
#  - before -G, the objects call the probe functions with bl
#    (R_AARCH64_CALL26) and, for a tail call, b (R_AARCH64_JUMP26);
#  - -G with only an x86-64 drti.o is refused, naming it, and changes
#    nothing; an x86-64 object and an aarch64 one in one run too;
#  - -G (drti.o for both machines in DTRACE_DRTI) rewrites each site in
#    place: bl -> nop, tail b -> ret, is-enabled bl -> mov x0, #0, each
#    relocation R_AARCH64_NONE; -v says so; an is-enabled tail call is
#    refused with the way out;
#  - the output is an aarch64 object: its DOF relocated with
#    R_AARCH64_ABS64, its notes' arguments as aarch64 writes them
#    (-8@x0 ... -4@[sp], plain char unsigned), BTI and PAC marked as
#    drti.o is;
#  - a second -G leaves the objects byte-identical with their mtimes and
#    writes the same output; `$LD -r` (the cross ld) merges the same;
#  - a program (not PIC, and a PIE) and a shared library (PIC) link with
#    -z defs and run under qemu-aarch64: probes as NOPs (arguments kept),
#    is-enabled false, semaphores 0, drti.o silent with no helper and
#    explaining itself under DTRACE_DOF_INIT_DEBUG; the DOF's sites, read
#    back from the linked files, are exactly the notes' locations;
#  - without -G, the calls reach the header's stubs (nop; ret), each a
#    probe site with its note, and the program runs; dtrace -l --object
#    (here, on x86-64) lists each stub's probe under the functions that
#    bl or tail-b to it, as -G would have named it;
#  - <sys/sdt.h> probes: one nop each, notes with x-register arguments,
#    the same strings as systemtap's header for register arguments;
#    dtrace -l -v reads "-4@[sp, 16]" as one argument; -G
#    takes them into the DOF as they are; the inline form of dtrace -h
#    headers the same;
#  - the consumer's aarch64 register table (dtrace-G/consumer/bpf/
#    uregs.h) puts x0-x30, sp and pc where the sysroot's struct
#    user_pt_regs has them;
#  - usdt.bpf.c compiles for arm64 (clang -target bpf
#    -D__TARGET_ARCH_arm64, -Werror: the BPF stack fits), with the
#    kernel providers' programs;
#  - with A64_DTRACE (dtrace built for aarch64 by tests/arm64/
#    cross-build.sh, its libraries in A64_LIBPATH), that dtrace under
#    qemu-aarch64 writes the x86-64 build's header and -G bytes, lists
#    stub callers, lists arm64's system calls (the __NR3264_ ones such
#    as lseek too, not the table's bounds), runs BEGIN and tick-N
#    clauses, knows uregs[]'s aarch64 names (R_X0-R_X30, R_SP, R_PC,
#    R_PSTATE, R_FP: Linux DTrace's numbers) and no x86-64 one.
#    (Tracing USDT probes, the pid provider and the helper need an
#    arm64 kernel: tests/arm64/guest.sh, make check-arm64-guest.)
#
# Skips (77) with the reason when the cross compiler, its binutils,
# qemu-aarch64 or the aarch64 libc (libc6-dev-arm64-cross) is missing.

. "$top_srcdir/tests/lib.sh"

: "${A64_CROSS:=aarch64-linux-gnu-}"
: "${A64_SYSROOT:=/usr/aarch64-linux-gnu}"
: "${QEMU_AARCH64:=qemu-aarch64}"
: "${DTRACE_DRTI:?DTRACE_DRTI must name the x86-64 drti.o}"
: "${DOFDUMP:?DOFDUMP must name tests/tools/dofdump}"
a64cc=${A64_CROSS}gcc
readelf=${A64_CROSS}readelf
objdump=${A64_CROSS}objdump
inc=$top_srcdir/sdk/include

for t in "$a64cc" "$readelf" "$objdump" "${A64_CROSS}ld"; do
	command -v "$t" >/dev/null 2>&1 ||
		skip "no $t (Debian: gcc-aarch64-linux-gnu, binutils-aarch64-linux-gnu)"
done
command -v "$QEMU_AARCH64" >/dev/null 2>&1 ||
	skip "no $QEMU_AARCH64 (Debian: qemu-user)"
[ -e "$A64_SYSROOT/lib/ld-linux-aarch64.so.1" ] ||
	skip "no aarch64 C library in $A64_SYSROOT (Debian: libc6-dev-arm64-cross)"

x86_drti=$DTRACE_DRTI
a64_drti=$PWD/drti-aarch64.o
cflags="-O2 -Wall -Wextra -Werror"

# build_ok WHAT COMMAND...: the command must succeed
build_ok() {
	bo_what=$1
	shift
	if "$@" >build.log 2>&1; then
		pass
		return 0
	fi
	fail "$bo_what: $*"
	sed 's/^/    | /' build.log >&2
	return 1
}

# qrun PROGRAM ARGS...: run under qemu-aarch64, with no helper device
qrun() {
	DTRACE_DOF_INIT_DEVNAME=$PWD/no-helper LD_LIBRARY_PATH=$PWD \
		"$QEMU_AARCH64" -L "$A64_SYSROOT" "$@" >run.out 2>run.err
	qstatus=$?
}

# sites OBJECT: "function word relocation symbol" for every relocation
# against a probe function, the word being the instruction it patches
sites() {
	"$objdump" -dr "$1" | awk '
		/^[0-9a-f]+ <[^>]+>:$/ { f = $2; gsub(/[<>:]/, "", f) }
		/^ +[0-9a-f]+:\t[0-9a-f]+ / {
			a = $1; sub(/:$/, "", a); w[a] = $2
		}
		/^\t+[0-9a-f]+: R_AARCH64_/ && /__dtrace/ {
			a = $1; sub(/:$/, "", a); s = $3; sub(/\+.*/, "", s)
			print f, w[a], $2, s
		}' | sort
}

# notes FILE: "provider name args" per stapsdt note, sorted
notes() {
	"$readelf" -n "$1" | awk '
		/Provider:/ { p = $2 }
		/Name:/ { n = $2 }
		/Arguments:/ { sub(/^ *Arguments: */, ""); print p, n, $0 }' |
		sort
}

# ---------------------------------------------------------------------
# drti.o for aarch64

# with branch protection, as a distribution building its programs so
# would: the -G output's BTI/PAC marking is drti.o's (checked below)
build_ok "drti.c for aarch64" $a64cc $cflags -fPIC \
	-mbranch-protection=standard -I"$inc" \
	-c "$top_srcdir/drti/drti.c" -o "$a64_drti" || finish

# ---------------------------------------------------------------------
# the program and the library, as the call form of dtrace -h writes them

cat >ap.d <<'EOF'
provider ap {
	probe start(int argc, char *name);
	probe many(long, long, long, long, long, long, long, long, int, char);
	probe tail(int);
	probe en();
	probe lib(long, const char *);
};
EOF
cat >main.c <<'EOF'
#include <stdio.h>
#include "ap.h"

/* the legacy is-enabled call, as old headers wrote it */
extern int __dtraceenabled_ap___en(void)
	__attribute__((visibility("hidden")));
extern long libfn(long);

__attribute__((noinline)) void tail(int x)
{
	AP_TAIL(x);
}

int main(int argc, char **argv)
{
	long s = argc;

	AP_START(argc, argv[0]);
	AP_MANY(s, s + 1, s + 2, s + 3, s + 4, s + 5, s + 6, s + 7, -9, 'c');
	tail(argc);
	if (__dtraceenabled_ap___en())
		puts("is-enabled: true");
	if (AP_START_ENABLED())
		puts("semaphore: set");
	printf("main %ld %ld\n", s * 3 + 1, libfn(s));
	return 0;
}
EOF
cat >lib.c <<'EOF'
#include "ap.h"

long libfn(long v)
{
	AP_LIB(v, "lib");
	return AP_LIB_ENABLED() ? -1 : v * 7;
}
EOF

run_dtrace -h -s ap.d -o ap.h
expect_eq "dtrace -h" 0 "$status"
build_ok "main.o (-O2, not PIC)" $a64cc $cflags -fno-pie -c main.c -o main.o &&
build_ok "lib.o (-O2 -fPIC)" $a64cc $cflags -fPIC -c lib.c -o lib.o &&
build_ok "stub.o (-O2)" $a64cc $cflags -c lib.c -o stub.o || finish

cat >expect.txt <<'EOF'
main 94000000 R_AARCH64_CALL26 __dtrace_ap___many
main 94000000 R_AARCH64_CALL26 __dtrace_ap___start
main 94000000 R_AARCH64_CALL26 __dtraceenabled_ap___en
tail 14000000 R_AARCH64_JUMP26 __dtrace_ap___tail
EOF
sites main.o >got.txt
expect_file_eq "main.o before -G: bl and a tail b to the probes" \
	expect.txt got.txt

# ---------------------------------------------------------------------
# refusals: nothing changes

cp main.o main.orig.o
cp lib.o lib.orig.o
DTRACE_DRTI=$x86_drti run_dtrace -G -s ap.d -o out.o main.o
expect_eq "-G with an x86-64 drti.o only: exit" 1 "$status"
expect_eq "-G with an x86-64 drti.o only: message" \
	"dtrace: failed to link script ap.d: no drti.o for aarch64 ($x86_drti: built for x86-64); install usdt-sdk (make install), or name one built for aarch64 with DTRACE_DRTI" \
	"$(sed -n 1p err.txt)"
cmp -s main.o main.orig.o && [ ! -e out.o ] && pass ||
	fail "-G with an x86-64 drti.o changed main.o or wrote out.o"

echo 'void x86(void) {}' >x86.c
if ${CC:-cc} -c x86.c -o x86.o 2>/dev/null; then
	DTRACE_DRTI=$x86_drti:$a64_drti run_dtrace -G -s ap.d -o out.o \
		main.o x86.o
	expect_eq "-G over aarch64 and x86-64: message" \
		"dtrace: failed to link script ap.d: x86.o: is an x86-64 object, but main.o is aarch64: the objects of one run make one program or library, for one machine" \
		"$(sed -n 1p err.txt)"
	cmp -s main.o main.orig.o && pass ||
		fail "-G over two machines changed main.o"
fi

cat >tailen.c <<'EOF'
extern int __dtraceenabled_ap___en(void)
	__attribute__((visibility("hidden")));
int tailen(void) { return __dtraceenabled_ap___en(); }
EOF
build_ok "tailen.o" $a64cc $cflags -c tailen.c -o tailen.o
cp tailen.o tailen.orig.o
DTRACE_DRTI=$a64_drti run_dtrace -G -s ap.d -o out.o tailen.o
expect_eq "-G over an is-enabled tail call: exit" 1 "$status"
expect_grep "-G over an is-enabled tail call: message" \
	"function tailen+0: call to '__dtraceenabled_ap___en': a tail call (b) to an is-enabled probe function cannot be rewritten on aarch64" \
	err.txt
cmp -s tailen.o tailen.orig.o && pass ||
	fail "a refused is-enabled tail call changed tailen.o"

# ---------------------------------------------------------------------
# -G

export DTRACE_DRTI="$x86_drti:$a64_drti"
run_dtrace -v -G -s ap.d -o out.o main.o
expect_eq "-G main.o: exit" 0 "$status"
for want in \
	"main.o: tail+0: ap:::tail: 00 00 00 14 (b .+0) -> c0 03 5f d6 (ret)" \
	"ap:::start: 00 00 00 94 (bl .+0) -> 1f 20 03 d5 (nop)" \
	"ap:::en (is-enabled): 00 00 00 94 (bl .+0) -> 00 00 80 d2 (mov x0, #0)"
do
	expect_grep "-G -v: $want" "$want" err.txt
done
run_dtrace -G -s ap.d -o libout.o lib.o
expect_eq "-G lib.o: exit" 0 "$status"

cat >expect.txt <<'EOF'
main d2800000 R_AARCH64_NONE __dtraceenabled_ap___en
main d503201f R_AARCH64_NONE __dtrace_ap___many
main d503201f R_AARCH64_NONE __dtrace_ap___start
tail d65f03c0 R_AARCH64_NONE __dtrace_ap___tail
EOF
sites main.o >got.txt
expect_file_eq "main.o after -G: nop, ret, mov x0, #0" expect.txt got.txt
echo "libfn d503201f R_AARCH64_NONE __dtrace_ap___lib" >expect.txt
sites lib.o >got.txt
expect_file_eq "lib.o after -G" expect.txt got.txt

"$readelf" -h out.o | grep -q 'Machine: *AArch64' && pass ||
	fail "out.o is not an AArch64 object"
"$readelf" -n out.o | grep -q 'AArch64 feature: BTI, PAC' && pass ||
	fail "out.o lost drti.o's BTI and PAC marking"
"$readelf" -rW out.o | awk '
	/^Relocation section/ { sec = $3 }
	sec ~ /SUNW_dof|stapsdt/ && /^[0-9a-f]+ / { print sec, $3 }' |
	sort | uniq -c | sed 's/^ *//' >got.txt
cat >expect.txt <<'EOF'
4 '.rela.SUNW_dof' R_AARCH64_ABS64
9 '.rela.note.stapsdt' R_AARCH64_ABS64
EOF
expect_file_eq "out.o: DOF and note relocations" expect.txt got.txt

cat >expect.txt <<'EOF'
ap many -8@x0 -8@x1 -8@x2 -8@x3 -8@x4 -8@x5 -8@x6 -8@x7 -4@[sp] 1@[sp, 8]
ap start -4@x0 8@x1
ap tail -4@x0
EOF
notes out.o >got.txt
expect_file_eq "out.o: the notes' arguments" expect.txt got.txt

# no objects (glib's and libvirt's way): the semaphores, for the machine
# of the drti.o DTRACE_DRTI names first
DTRACE_DRTI=$a64_drti run_dtrace -G -s ap.d -o empty.o
expect_eq "-G without objects: exit" 0 "$status"
"$readelf" -h empty.o | grep -q 'Machine: *AArch64' && pass ||
	fail "-G without objects, an aarch64 drti.o: not an AArch64 object"
"$readelf" -n empty.o | grep -q 'AArch64 feature: BTI, PAC' && pass ||
	fail "-G without objects: no code, but no BTI and PAC marking"

# again: nothing changes
stat -c '%s %Y' main.o >mtime1.txt
cp out.o out1.o
run_dtrace -G -s ap.d -o out.o main.o
expect_eq "second -G: exit" 0 "$status"
stat -c '%s %Y' main.o >mtime2.txt
expect_file_eq "second -G: main.o's size and mtime" mtime1.txt mtime2.txt
cmp -s out.o out1.o && pass || fail "second -G wrote another out.o"

# the cross linker merges drti.o the same way
LD=${A64_CROSS}ld run_dtrace -G -s ap.d -o outld.o main.o
expect_eq "-G with LD=${A64_CROSS}ld: exit" 0 "$status"
notes outld.o >got.txt
expect_file_eq "-G with LD=${A64_CROSS}ld: notes" expect.txt got.txt
for f in out.o outld.o; do
	"$readelf" -sW "$f" | awk '$5 != "LOCAL" && $7 != "UND" { print $8 }' |
		sort >"$f.globals"
done
expect_file_eq "-G with LD=${A64_CROSS}ld: globals" out.o.globals \
	outld.o.globals
"$readelf" -n outld.o | grep -q 'AArch64 feature: BTI, PAC' && pass ||
	fail "-G with LD=${A64_CROSS}ld: BTI and PAC lost"
# without drti.o's marking the output has none: ld -r takes the AND
build_ok "drti.c without branch protection" $a64cc $cflags -fPIC \
	-I"$inc" -c "$top_srcdir/drti/drti.c" -o plain-drti.o
for ld in "" "${A64_CROSS}ld"; do
	LD=$ld DTRACE_DRTI=$PWD/plain-drti.o run_dtrace -G -s ap.d \
		-o outplain.o main.o
	"$readelf" -n outplain.o | grep -q 'AArch64 feature' && fail \
		"-G (LD=$ld) with an unmarked drti.o: the output claims BTI" ||
		pass
done

# ---------------------------------------------------------------------
# linked and run under qemu-aarch64

build_ok "libap.so (-z defs)" $a64cc -shared -Wl,-z,defs lib.o libout.o \
	-o libap.so &&
build_ok "main (no PIE, -z defs)" $a64cc -no-pie -Wl,-z,defs main.o out.o \
	-L. -lap -o main || finish

# a PIE too: GNU ld takes R_AARCH64_NONE against the hidden weak symbols
build_ok "mainpie.o (-O2, PIE)" $a64cc $cflags -fpie -c main.c -o mainpie.o &&
	run_dtrace -G -s ap.d -o pieout.o mainpie.o &&
	build_ok "mainpie (PIE, -z defs)" $a64cc -pie -Wl,-z,defs mainpie.o \
		pieout.o -L. -lap -o mainpie &&
	qrun ./mainpie a b &&
	expect_eq "mainpie under qemu" "0 main 10 21" "$qstatus $(cat run.out)"

qrun ./main a b
expect_eq "main under qemu: exit" 0 "$qstatus"
expect_eq "main under qemu: output (probes as NOPs, all disabled)" \
	"main 10 21" "$(cat run.out)"
expect_eq "main under qemu: drti.o silent without a helper" "" \
	"$(cat run.err)"
DTRACE_DOF_INIT_DEBUG=1 qrun ./main
expect_eq "DTRACE_DOF_INIT_DEBUG under qemu: exit" 0 "$qstatus"
expect_eq "DTRACE_DOF_INIT_DEBUG: one line per module" 2 \
	"$(grep -c "cannot open helper device \"$PWD/no-helper\".*not registered" run.err)"

# The DOF's sites, read back from the linked files, are locations of
# notes, -G's (the header's stubs add notes the DOF leaves out, and
# is-enabled sites have none): 3 in main, 1 in the library.
for f in main:3 libap.so:1; do
	n=${f#*:} f=${f%:*}
	"$DOFDUMP" "$f" | sed -n 's/^ *site \(0x[0-9a-f]*\) .*/\1/p' |
		sort >dof-sites.txt
	"$readelf" -n "$f" | awk '/Location:/ { sub(/,$/, "", $2); print $2 }' |
		while read -r a; do printf '0x%x\n' "$((a))"; done |
		sort >note-sites.txt
	expect_eq "$f: DOF sites" "$n" "$(grep -c . dof-sites.txt)"
	expect_eq "$f: every DOF site is a note's location" "" \
		"$(comm -23 dof-sites.txt note-sites.txt)"
done

# ---------------------------------------------------------------------
# without -G: the header's stubs

build_ok "stubprog (no -G)" $a64cc -Wl,-z,defs -DSTUBPROG stub.o \
	-x c - -o stubprog <<'EOF' || finish
#include <stdio.h>
extern long libfn(long);
int main(void) { printf("%ld\n", libfn(6)); return 0; }
EOF
qrun ./stubprog
expect_eq "stubprog under qemu" "0 42" "$qstatus $(cat run.out)"
"$objdump" -d stubprog | awk '/<__dtrace_ap___lib>:/ { n = 3 }
	n && n-- < 3 { print $2, $3 }' >got.txt
printf 'd503201f nop\nd65f03c0 ret\n' >expect.txt
expect_file_eq "stubprog: the stub is nop; ret" expect.txt got.txt
notes stubprog | grep '^ap lib ' >got.txt
echo "ap lib -8@x0 8@x1" >expect.txt
expect_file_eq "stubprog: the stub's note" expect.txt got.txt

# Stub callers, read here by dtrace -l (an x86-64 program reading
# aarch64 ELF): in a program linked without -G, each bl and tail b to a
# header's stub is a site of the calling function's probe, as -G would
# have named it; the stub is no site of its own.
cat >callers.c <<'EOF'
#include <stdio.h>
#include "ap.h"

__attribute__((noinline)) void tailer(int x)
{
	AP_TAIL(x);
}

__attribute__((noinline)) long twice(long v)
{
	AP_LIB(v, "one");
	AP_LIB(v + 1, "two");
	return v * 2;
}

int main(int argc, char **argv)
{
	AP_START(argc, argv[0]);
	tailer(argc);
	printf("%ld\n", twice(argc));
	return 0;
}
EOF
if build_ok "callers (no -G)" $a64cc $cflags -Wl,-z,defs callers.c \
	-o callers; then
	qrun ./callers
	expect_eq "callers under qemu" "0 2" "$qstatus $(cat run.out)"
	"$objdump" -d callers | awk '
		/^[0-9a-f]+ <[^>]+>:$/ { f = $2; gsub(/[<>:]/, "", f) }
		/\t(bl|b)\t[0-9a-f]+ <__dtrace_ap___/ {
			t = $NF; gsub(/[<>]/, "", t); print f, $3, t }' |
		sort >got.txt
	printf '%s\n' "main bl __dtrace_ap___start" \
		"tailer b __dtrace_ap___tail" "twice bl __dtrace_ap___lib" \
		"twice bl __dtrace_ap___lib" >expect.txt
	expect_file_eq "callers: bl and a tail b to the stubs" expect.txt \
		got.txt
	run_dtrace -l --object=callers
	expect_eq "callers: dtrace -l --object" 0 "$status"
	awk '$2 == "ap" { print $4, $5 }' out.txt | sort >got.txt
	printf '%s\n' "main start" "tailer tail" "twice lib" >expect.txt
	expect_file_eq "callers: each probe under its caller, no stub" \
		expect.txt got.txt
fi

# ---------------------------------------------------------------------
# <sys/sdt.h>

cat >sdt.c <<'EOF'
#include <sys/sdt.h>

int g = 4;

__attribute__((noinline)) long sdtfn(long a, int b, unsigned char c,
				     short d, char *p)
{
	DTRACE_PROBE5(ap, sdt, a, b, c, d, p);
	DTRACE_PROBE2(ap, konst, 5, -3L);
	DTRACE_PROBE1(ap, global, g);
	return a + b + c + d;
}
EOF
cat >sdtmain.c <<'EOF'
#include <stdio.h>
extern long sdtfn(long, int, unsigned char, short, char *);
int main(int argc, char **argv)
{
	printf("%ld\n", sdtfn(argc, 2, 3, 4, argv[0]));
	return 0;
}
EOF
build_ok "sdt.o" $a64cc $cflags -I"$inc" -c sdt.c -o sdt.o || finish
notes sdt.o >got.txt
echo "ap sdt -8@x0 -4@x1 1@x2 -2@x3 8@x4" >expect-sdt.txt
grep '^ap sdt ' got.txt >got-sdt.txt
expect_file_eq "sdt.o: register arguments" expect-sdt.txt got-sdt.txt
# the constants and the global variable too, each in an x register
sed 's/@x[0-9][0-9]*\( \|$\)/@xN\1/g' got.txt >gotn.txt
printf '%s\n' "ap global -4@xN" "ap konst -4@xN -8@xN" \
	"ap sdt -8@xN -4@xN 1@xN -2@xN 8@xN" >expect.txt
expect_file_eq "sdt.o: every argument in an x register" expect.txt gotn.txt
nsite=$("$objdump" -d sdt.o | grep -c 'd503201f')
expect_eq "sdt.o: one nop per probe" 3 "$nsite"

# systemtap's header, compiled by the cross compiler: the same strings for
# arguments in registers
stap=$(find /usr/include -path '*/sys/sdt.h' -not -path '*/usdt/*' 2>/dev/null |
	head -n 1)
if [ -n "$stap" ] && [ -f "$(dirname "$stap")/sdt-config.h" ]; then
	mkdir -p stap/sys
	cp "$stap" "$(dirname "$stap")/sdt-config.h" stap/sys/
	if build_ok "sdt.c with systemtap's sdt.h" $a64cc -O2 -Istap \
		-c sdt.c -o stap.o; then
		notes stap.o | grep '^ap sdt ' >stap-sdt.txt
		expect_file_eq "systemtap's sdt.h writes the same registers" \
			stap-sdt.txt got-sdt.txt
	fi
else
	echo "# systemtap's sys/sdt.h not installed: not compared"
fi

# An aarch64 note's specs are split at blanks outside brackets: a stack
# slot as systemtap's header writes it, "-4@[sp, 16]", is one argument
cat >memarg.c <<'EOF'
#include <sys/sdt.h>
int main(void)
{
	/* STAP_PROBE_ASM's template form, with the text given */
	__asm__ __volatile__(STAP_PROBE_ASM(ap, mem,
		"\n\t.ascii \"-4@[sp, 16] 8@x0\"", "-"));
	return 0;
}
EOF
if build_ok "memarg" $a64cc $cflags -I"$inc" memarg.c -o memarg; then
	notes memarg >got.txt
	echo "ap mem -4@[sp, 16] 8@x0" >expect.txt
	expect_file_eq "memarg: the note" expect.txt got.txt
	run_dtrace -l -v --object=memarg
	sed -n 's/^[[:space:]]*args\[\([0-9]*\)\]: /\1 /p' out.txt >got.txt
	printf '%s\n' "0 int32_t" "1 uint64_t" >expect.txt
	expect_file_eq "memarg: dtrace -l -v, two arguments" expect.txt got.txt
fi

# the inline form of dtrace -h headers is the same machinery
run_dtrace -h -x probestyle=inline -s ap.d -o ap-inline.h
expect_eq "dtrace -h -x probestyle=inline" 0 "$status"
sed 's/"ap.h"/"ap-inline.h"/' lib.c >libinl.c
build_ok "libinl.o (inline header)" $a64cc $cflags -c libinl.c -o libinl.o &&
	notes libinl.o | sed 's/@x[0-9][0-9]*\( \|$\)/@xN\1/g' >got.txt &&
	echo "ap lib -8@xN 8@xN" >expect.txt &&
	expect_file_eq "libinl.o: the inline probe's note" expect.txt got.txt

cat >sdtprov.d <<'EOF'
provider ap {
	probe sdt(long, int, unsigned char, short, char *);
	probe konst(int, long);
	probe global(int);
};
EOF
cp sdt.o sdt.orig.o
run_dtrace -G -s sdtprov.d -o sdtout.o sdt.o
expect_eq "-G over <sys/sdt.h> probes: exit" 0 "$status"
"$objdump" -d sdt.o >dis1.txt
"$objdump" -d sdt.orig.o >dis2.txt
sed -i 1,3d dis1.txt dis2.txt
expect_file_eq "-G over <sys/sdt.h> probes: the code unchanged" dis2.txt \
	dis1.txt
"$DOFDUMP" sdtout.o | grep -c '^probe ap:sdtfn:' >got.txt
echo 3 >expect.txt
expect_file_eq "-G over <sys/sdt.h> probes: three DOF probes" expect.txt \
	got.txt
build_ok "sdtprog" $a64cc -Wl,-z,defs sdtmain.c sdt.o sdtout.o \
	-o sdtprog &&
	qrun ./sdtprog &&
	expect_eq "sdtprog under qemu" "0 10" "$qstatus $(cat run.out)"

# ---------------------------------------------------------------------
# the consumer's aarch64 register table (bpf/uregs.h), against the
# kernel's struct user_pt_regs of the cross sysroot: each x register,
# sp and pc where a uprobe's BPF context has them

cat >uregs.c <<'EOF'
#include <asm/ptrace.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "uregs.h"

int main(void)
{
	static const int off[] = UREG_OFFSETS;
	static const char *const name[] = UREG_NAMES;
	char x[8];
	int bad = 0;

	if (sizeof(off) / sizeof(off[0]) != UREG_N ||
	    sizeof(name) / sizeof(name[0]) != UREG_N)
		bad++;
	for (int n = 0; n < 31; n++) {
		snprintf(x, sizeof(x), "x%d", n);
		if (off[n] != (int)(offsetof(struct user_pt_regs, regs) + 8 * n) ||
		    strcmp(name[n], x))
			bad++;
	}
	if (off[UREG_SP] != (int)offsetof(struct user_pt_regs, sp) ||
	    strcmp(name[UREG_SP], "sp") ||
	    off[UREG_IP] != (int)offsetof(struct user_pt_regs, pc) ||
	    strcmp(name[UREG_IP], "pc"))
		bad++;
	printf("%d\n", bad);
	return bad != 0;
}
EOF
if build_ok "uregs.c" $a64cc $cflags -I"$top_srcdir/dtrace-G/consumer/bpf" \
	uregs.c -o uregs; then
	qrun ./uregs
	expect_eq "uregs.h: the aarch64 table is struct user_pt_regs" "0 0" \
		"$qstatus $(cat run.out)"
fi

# ---------------------------------------------------------------------
# the consumer's BPF program compiled for arm64 (as make does on an
# aarch64 host): it compiles (the stack within the verifier's 512
# bytes: the registers' copy in a per-CPU array), with the kernel
# providers' programs

if command -v "${BPF_CLANG:-clang}" >/dev/null 2>&1 &&
	[ -f /usr/include/bpf/bpf_helpers.h ]; then
	build_ok "usdt.bpf.c for arm64" "${BPF_CLANG:-clang}" -target bpf -O2 \
		-g -Wall -Werror -D__TARGET_ARCH_arm64 \
		-idirafter "$A64_SYSROOT/include" \
		-c "$top_srcdir/dtrace-G/consumer/bpf/usdt.bpf.c" -o a64bpf.o &&
		"$objdump" -h a64bpf.o | awk '$2 ~ /^(uprobe|raw_tp|tp|perf_event)/ { print $2 }' |
		sort >got.txt &&
		printf '%s\n' perf_event raw_tp raw_tp/sched_switch tp uprobe \
			>expect.txt &&
		expect_file_eq "usdt.bpf.c for arm64: its programs' sections" \
			expect.txt got.txt
else
	echo "# no clang or libbpf headers: usdt.bpf.c not compiled for arm64"
fi

# ---------------------------------------------------------------------
# dtrace itself built for aarch64 (tests/arm64/cross-build.sh), run under
# qemu-aarch64: -h writes the x86-64 build's header, -G rewrites the same
# object into the same bytes and writes the same output, -l lists the
# stub callers; tracing is refused with the reason

if [ -z "${A64_DTRACE:-}" ]; then
	echo "# no aarch64 dtrace (A64_DTRACE, A64_LIBPATH: tests/arm64/cross-build.sh): dtrace itself is not run on aarch64"
elif [ ! -x "$A64_DTRACE" ]; then
	fail "A64_DTRACE=$A64_DTRACE is not an executable"
else
	a64dt() {
		"$QEMU_AARCH64" -L "$A64_SYSROOT" \
			-E LD_LIBRARY_PATH="${A64_LIBPATH:-}" \
			-E DTRACE_DRTI="$a64_drti" "$A64_DTRACE" "$@" \
			>a64.out 2>a64.err
		a64status=$?
	}
	# both in one directory, one after the other: -G's aliases hash
	# the object's path
	mkdir -p a64
	cp ap.d a64/ || exit 99
	"$a64cc" $cflags -c callers.c -o c-orig.o || exit 99
	cd a64 || exit 99
	cp ../c-orig.o c.o
	"$DTRACE" -h -s ap.d -o ap.h && mv ap.h ap-x86.h
	DTRACE_DRTI=$a64_drti "$DTRACE" -G -s ap.d -o g.o c.o &&
		mv g.o g-x86.o && mv c.o c-x86.o
	cp ../c-orig.o c.o
	a64dt -h -s ap.d -o ap.h
	expect_eq "aarch64 dtrace -h: exit" 0 "$a64status"
	expect_file_eq "aarch64 dtrace -h: the x86-64 build's header" \
		ap-x86.h ap.h
	a64dt -G -s ap.d -o g.o c.o
	expect_eq "aarch64 dtrace -G: exit" 0 "$a64status"
	cmp -s c-x86.o c.o && pass ||
		fail "aarch64 dtrace -G: the object differs from the x86-64 build's"
	cmp -s g-x86.o g.o && pass ||
		fail "aarch64 dtrace -G: the output differs from the x86-64 build's"
	cd .. || exit 99
	a64dt -l --object=callers
	awk '$2 == "ap" { print $4, $5 }' a64.out | sort >got.txt
	printf '%s\n' "main start" "tailer tail" "twice lib" >expect.txt
	expect_file_eq "aarch64 dtrace -l --object: the stub callers" \
		expect.txt got.txt
	# what needs no kernel probe runs under qemu-user (the uprobe
	# backend: qemu-user has no bpf())
	DTRACE_BACKEND=uprobe a64dt -q -n 'BEGIN { printf("%d\n", 6 * 7); }
		tick-1ms /++i == 3/ { printf("tick %d\n", i); exit(0); }'
	expect_eq "aarch64 dtrace -n: BEGIN and tick-1ms" \
		"0 42 tick 3 " \
		"$a64status $(grep -v '^$' a64.out | tr '\n' ' ')$(cat a64.err)"
	# arm64's system call table: the __NR3264_ calls are there, the
	# bounds __NR_syscalls and __NR_arch_specific_syscall are not
	a64dt -l -P syscall
	expect_eq "aarch64 dtrace -l -P syscall: fcntl, lseek, mmap; no bounds" \
		"0 fcntl lseek mmap " \
		"$a64status $(awk '$5 == "entry" && $4 ~ /^(fcntl|lseek|mmap|syscalls|arch_specific_syscall)$/ { print $4 }' a64.out | sort | tr '\n' ' ')$(cat a64.err)"
	# uregs[]'s names are aarch64's (Linux DTrace's numbers)
	DTRACE_BACKEND=uprobe a64dt -q -n 'BEGIN { printf("%d %d %d %d %d %d\n",
		R_X0, R_X29, R_X30, R_SP, R_PC, R_FP); exit(0); }'
	expect_eq "aarch64 dtrace: R_X0, R_X29, R_X30, R_SP, R_PC, R_FP" \
		"0 0 29 30 32 33 29 " \
		"$a64status $(grep -v '^$' a64.out | tr '\n' ' ')$(cat a64.err)"
	for r in \
		"BEGIN { trace(uregs[R_RIP]); }|invalid probe specifier BEGIN { trace(uregs[R_RIP]); }: line 1, column 21: failed to resolve R_RIP: Unknown variable name" \
		"BEGIN { trace(uregs[R_PSTATE]); }|invalid probe specifier BEGIN { trace(uregs[R_PSTATE]); }: line 1, column 21: uregs[34] is not supported: a hit records the general registers, R_SP and R_PC, not R_PSTATE" \
		"BEGIN { trace(uregs[31]); }|invalid probe specifier BEGIN { trace(uregs[31]); }: line 1, column 21: uregs[31]: no such register (R_X0 0 to R_PSTATE 34)"
	do
		DTRACE_BACKEND=uprobe a64dt -q -n "${r%%|*}"
		expect_eq "aarch64 dtrace -n '${r%%|*}': refused" \
			"1 dtrace: ${r#*|}" "$a64status $(cat a64.err)"
	done
fi

finish
