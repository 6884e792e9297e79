#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-G-errors.sh: every error of `dtrace -G`, through the real command.
# Each case runs in a directory holding only the script p.d and the input
# objects, with every file's mtime set to 1000000000, and proves:
#  - the exit status (1; 2 for a usage error) and an empty stdout;
#  - the first line of stderr: the exact text where it is stable, else
#    its key words, the object's name and, where one exists, the function;
#  - that every input is left byte-identical with its mtime, and that
#    nothing else is left in the directory: no output object and no
#    temporary file.
# Cases: archives, 32-bit objects, other machines, shared objects and
# executables, files that are not ELF, GCC LTO (slim and fat) and clang
# LTO bitcode, unknown providers and probes, a probe function whose
# address is taken (in data and in code), relocations that are not calls
# (R_X86_64_64, a GOT load into a register as clang -fno-plt emits it
# with old headers, a wrong addend), a site that is not on an instruction
# boundary (with libopcodes), a call outside any function symbol, a probe
# function the object defines, a corrupted rewritten site, copies of a
# C++ inline function compiled differently, read-only, missing and
# repeated objects, a bad object after a good one (the good one must stay
# untouched), an output that cannot be created, a linker that fails or is
# missing, a run killed with SIGKILL while the linker runs (the inputs
# stay intact and a fresh run succeeds; SIGKILL may leave .NAME.XXXXXX
# temporary files, which is documented here, not an error), a script
# that does not compile, and -G without -s.

. "$top_srcdir/tests/lib.sh"

: "${CLANG:=}"

require_G ar cmp stat dd od readelf

have_opcodes=
if [ -n "${top_builddir:-}" ] && [ -f "$top_builddir/config.h" ] &&
   grep -q '^#define HAVE_LIBOPCODES 1' "$top_builddir/config.h"; then
	have_opcodes=yes
fi

P="dtrace: failed to link script p.d:"

# ---------------------------------------------------------------------
# Inputs, built once in src/

mkdir src || exit 99
cat >src/p.d <<'EOF'
provider p {
	probe x();
	probe y(int);
};
EOF
"$DTRACE" -h -s src/p.d -o src/p.h || exit 99

# compile NAME.o [CC FLAGS...] < source: build src/NAME.o
compile() {
	c_out=$1
	shift
	cat >src/src.c
	if [ $# -eq 0 ]; then
		set -- "$CC"
	fi
	if "$@" -c -Isrc -o "src/$c_out" src/src.c >cc.log 2>&1; then
		return 0
	fi
	echo "# cannot build $c_out with '$*':" >&2
	sed 's/^/#   /' cc.log >&2
	return 1
}

# assemble NAME.o < assembler source
assemble() {
	a_out=$1
	{
		cat
		printf '\t.section .note.GNU-stack,"",@progbits\n'
	} >src/src.s
	"$CC" -c -o "src/$a_out" src/src.s >cc.log 2>&1 && return 0
	sed 's/^/#   /' cc.log >&2
	exit 99
}

compile good.o <<'EOF' || exit 99
#include "p.h"
int good(int n)
{
	P_Y(n);
	return n + 1;
}
EOF
compile good2.o <<'EOF' || exit 99
#include "p.h"
int good2(int n)
{
	P_X();
	return n + 2;
}
EOF
compile main.o <<'EOF' || exit 99
#include <stdio.h>
int good(int n);
int good2(int n);
int main(void)
{
	printf("%d %d\n", good(1), good2(2));
	return 0;
}
EOF
compile plain.o <<'EOF' || exit 99
int main(void) { return 0; }
EOF
compile lib0.o "$CC" -fPIC <<'EOF' || exit 99
int lib0(int n) { return n; }
EOF

# ---------------------------------------------------------------------
# The harness

# new_case: an empty case directory c/ with the script
new_case() {
	rm -rf c keep && mkdir c keep || exit 99
	cp src/p.d c/
}

# gfail NAME EXIT DTRACE_ARGS...: run dtrace in c/ over what it holds;
# check the exit status, the empty stdout, and that c/ is as it was
gfail() {
	gf_name=$1 gf_exit=$2
	shift 2
	find c -type f -exec touch -d @1000000000 {} +
	ls -A c >before.ls
	for gf_f in $(cat before.ls); do
		[ -f "c/$gf_f" ] && cp -p "c/$gf_f" keep/
	done
	(cd c && exec "$DTRACE" "$@") >out.txt 2>err.txt
	status=$?
	expect_eq "$gf_name: exit status" "$gf_exit" "$status"
	expect_eq "$gf_name: stdout" "" "$(cat out.txt)"
	expect_eq "$gf_name: what is left in the directory" \
		"$(tr '\n' ' ' <before.ls)" "$(ls -A c | tr '\n' ' ')"
	for gf_f in $(cat before.ls); do
		[ -f "keep/$gf_f" ] || continue
		if cmp -s "c/$gf_f" "keep/$gf_f"; then pass; else
			fail "$gf_name: $gf_f was changed"
		fi
		expect_eq "$gf_name: mtime of $gf_f" 1000000000 \
			"$(stat -c %Y "c/$gf_f")"
	done
	if [ -s err.txt ]; then pass; else fail "$gf_name: no message"; fi
}

# first_is NAME TEXT: the first line of stderr is TEXT
first_is() {
	expect_eq "$1: first line of stderr" "$2" "$(sed -n 1p err.txt)"
}

# first_has NAME STRING...: the first line of stderr holds every STRING
first_has() {
	fh_name=$1
	shift
	sed -n 1p err.txt >first.txt
	for fh_s in "$@"; do
		if grep -qF -e "$fh_s" first.txt; then pass; else
			fail "$fh_name: '$fh_s' not in the first line of stderr:"
			sed 's/^/    | /' err.txt >&2
		fi
	done
}

# ---------------------------------------------------------------------
# Inputs that are not x86-64 relocatable objects

new_case
cp src/good.o c/x.o
(cd c && ar rc lib.a x.o) || exit 99
rm c/x.o
gfail "archive" 1 -G -s p.d -o out.o lib.a
first_is "archive" \
	"$P lib.a: is an archive; pass its object files instead (ar x)"

new_case
cp src/good.o c/good.o
cp src/good.o c/b32.o
# EI_CLASS (byte 4): ELFCLASS32
printf '\001' | dd of=c/b32.o bs=1 seek=4 conv=notrunc 2>/dev/null
gfail "ELFCLASS32 copy" 1 -G -s p.d -o out.o good.o b32.o
first_is "ELFCLASS32 copy" \
	"$P b32.o: is not a 64-bit little-endian object; dtrace -G rewrites x86-64 and aarch64 (LP64) objects only"

if compile i386.o "$CC" -m32 <<'EOF'
#include "p.h"
void f(void) { P_X(); }
EOF
then
	new_case
	cp src/i386.o c/
	gfail "-m32 object" 1 -G -s p.d -o out.o i386.o
	first_is "-m32 object" \
		"$P i386.o: is not a 64-bit little-endian object; dtrace -G rewrites x86-64 and aarch64 (LP64) objects only"
else
	echo "# $CC -m32 does not work here: only the patched 32-bit object is tested"
fi

new_case
cp src/good.o c/arm.o
# e_machine (bytes 18-19, little-endian): 40, EM_ARM
printf '\050\000' | dd of=c/arm.o bs=1 seek=18 conv=notrunc 2>/dev/null
gfail "e_machine 40" 1 -G -s p.d -o out.o arm.o
first_is "e_machine 40" \
	"$P arm.o: is for machine 40; dtrace -G rewrites x86-64 and aarch64 objects only"

# an x86-64 object that says it is aarch64 (183): read as aarch64, whose
# stub bytes its stub does not have, so it is refused, not rewritten
new_case
cp src/good.o c/a64.o
printf '\267\000' | dd of=c/a64.o bs=1 seek=18 conv=notrunc 2>/dev/null
gfail "e_machine 183 on x86 code" 1 -G -s p.d -o out.o a64.o
first_is "e_machine 183 on x86 code" \
	"$P a64.o: defines '__dtrace_p___y' itself; probe functions must be left undefined for dtrace -G"

# objects of two machines in one run
new_case
cp src/good.o c/
cp src/good.o c/a64.o
printf '\267\000' | dd of=c/a64.o bs=1 seek=18 conv=notrunc 2>/dev/null
gfail "x86-64 and aarch64 mixed" 1 -G -s p.d -o out.o good.o a64.o
first_is "x86-64 and aarch64 mixed" \
	"$P a64.o: is an aarch64 object, but good.o is x86-64: the objects of one run make one program or library, for one machine"

new_case
"$CC" -shared -o c/lib0.so src/lib0.o 2>cc.log ||
	{ cat cc.log >&2; exit 99; }
gfail "shared object" 1 -G -s p.d -o out.o lib0.so
first_is "shared object" \
	"$P lib0.so: is not a relocatable object (ELF type 3); pass the .o files that make up the program or library"

new_case
"$CC" -no-pie -o c/prog src/plain.o 2>cc.log ||
	{ cat cc.log >&2; exit 99; }
gfail "executable" 1 -G -s p.d -o out.o prog
first_is "executable" \
	"$P prog: is not a relocatable object (ELF type 2); pass the .o files that make up the program or library"

new_case
printf 'this is not an object\n' >c/text.o
gfail "text file" 1 -G -s p.d -o out.o text.o
first_is "text file" "$P text.o: not an ELF object"

new_case
: >c/empty.o
gfail "empty file" 1 -G -s p.d -o out.o empty.o
first_is "empty file" "$P empty.o: not an ELF object"

new_case
mkdir c/dir.o
gfail "directory" 1 -G -s p.d -o out.o dir.o
first_is "directory" "$P dir.o: not a regular file"

# ---------------------------------------------------------------------
# LTO objects are no error: -G leaves them alone (tests/run-sdt-G.sh and
# tests/run-dropin.sh show their probes at work).

# ---------------------------------------------------------------------
# Probe calls -G cannot accept

compile other.o <<'EOF' || exit 99
extern void __dtrace_other___x(void);
void use_other(void) { __dtrace_other___x(); }
EOF
new_case
cp src/other.o c/
gfail "unknown provider" 1 -G -s p.d -o out.o other.o
first_has "unknown provider" "$P other.o: function use_other+" \
	"calls '__dtrace_other___x', but p.d defines no such provider"

compile nosuch.o <<'EOF' || exit 99
extern void __dtrace_p___nosuch(int);
void use_nosuch(int n) { __dtrace_p___nosuch(n); }
EOF
new_case
cp src/nosuch.o c/
gfail "unknown probe" 1 -G -s p.d -o out.o nosuch.o
first_has "unknown probe" "$P nosuch.o: function use_nosuch+" \
	"calls '__dtrace_p___nosuch', but provider 'p' has no probe 'nosuch'"

# a legacy is-enabled call of an unknown probe
compile noen.o <<'EOF' || exit 99
extern int __dtraceenabled_p___nosuch(void);
int use_noen(void) { return __dtraceenabled_p___nosuch(); }
EOF
new_case
cp src/noen.o c/
gfail "unknown is-enabled probe" 1 -G -s p.d -o out.o noen.o
first_has "unknown is-enabled probe" "$P noen.o: function use_noen+" \
	"'__dtraceenabled_p___nosuch'" "has no probe 'nosuch'"

compile fptr.o "$CC" -fPIC <<'EOF' || exit 99
extern void __dtrace_p___x(void);
void (*fp)(void) = __dtrace_p___x;
EOF
fptr_sec=$(readelf -rW src/fptr.o | sed -n "s/^Relocation section '\.rela\(\.data[^']*\)'.*/\1/p")
new_case
cp src/fptr.o c/
gfail "address taken in data" 1 -G -s p.d -o out.o fptr.o
first_has "address taken in data" "$P fptr.o: section ${fptr_sec:-.data.rel}" \
	"takes the address of probe function '__dtrace_p___x'; probes may only be called"

assemble movabs.o <<'EOF'
	.text
	.globl	f
	.type	f, @function
f:
	movabs	$__dtrace_p___x, %rax
	ret
	.size	f, .-f
EOF
new_case
cp src/movabs.o c/
gfail "R_X86_64_64 in .text" 1 -G -s p.d -o out.o movabs.o
first_has "R_X86_64_64 in .text" "$P movabs.o: function f+0x2:" \
	"'__dtrace_p___x'" "unexpected relocation type 1 "

# the GOT load clang -fno-plt emits for a probe function declared with
# default visibility and called twice (headers before -h declared them
# hidden): `mov x@GOTPCREL(%rip), %reg` + `call *%reg`
assemble rexgot.o <<'EOF'
	.text
	.globl	f
	.type	f, @function
f:
	movq	__dtrace_p___x@GOTPCREL(%rip), %rax
	call	*%rax
	call	*%rax
	ret
	.size	f, .-f
EOF
new_case
cp src/rexgot.o c/
gfail "R_X86_64_REX_GOTPCRELX" 1 -G -s p.d -o out.o rexgot.o
first_has "R_X86_64_REX_GOTPCRELX" "$P rexgot.o: function f+0x3:" \
	"'__dtrace_p___x'" "R_X86_64_REX_GOTPCRELX" \
	"regenerate the header with dtrace -h" "without -fno-plt"

if [ -n "$CLANG" ] && command -v "$CLANG" >/dev/null 2>&1 &&
   compile oldnoplt.o "$CLANG" -O2 -fno-plt <<'EOF'
extern void __dtrace_p___y(int);	/* an old header: default visibility */
int loop(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++) {
		__dtrace_p___y(i);
		s += i * i;
		__dtrace_p___y(s);
	}
	return s;
}
EOF
then
	if readelf -rW src/oldnoplt.o | grep -q 'REX_GOTPCRELX.*__dtrace_p___y'; then
		new_case
		cp src/oldnoplt.o c/
		gfail "clang -fno-plt, old header" 1 -G -s p.d -o out.o oldnoplt.o
		first_has "clang -fno-plt, old header" \
			"$P oldnoplt.o: function loop+" "R_X86_64_REX_GOTPCRELX" \
			"regenerate the header with dtrace -h"
	else
		echo "# $CLANG -O2 -fno-plt calls through the GOT directly here: its GOT load is tested in assembler only"
	fi
fi

assemble lea.o <<'EOF'
	.text
	.globl	f
	.type	f, @function
f:
	leaq	__dtrace_p___x(%rip), %rax
	ret
	.size	f, .-f
EOF
new_case
cp src/lea.o c/
gfail "address taken in code" 1 -G -s p.d -o out.o lea.o
first_has "address taken in code" "$P lea.o: function f+0x3:" \
	"'__dtrace_p___x'" "the bytes [05 00 00 00 00] at the relocation" \
	"not a call or jmp instruction"

assemble addend.o <<'EOF'
	.text
	.globl	f
	.type	f, @function
f:
	call	__dtrace_p___x+4
	ret
	.size	f, .-f
EOF
new_case
cp src/addend.o c/
gfail "call with an addend" 1 -G -s p.d -o out.o addend.o
first_has "call with an addend" "$P addend.o: function f+0x1:" \
	"'__dtrace_p___x'" "addend 0 is not that of a call (-4)"

# movabs $imm64, %rax whose immediate holds e8 and then the relocation:
# the bytes look like a call, but sit inside the movabs.  The .globl
# names the symbol for clang's assembler, which otherwise writes the
# .reloc against *ABS* (gas creates the undefined symbol by itself).
assemble inside.o <<'EOF'
	.globl	__dtrace_p___x
	.text
	.globl	f
	.type	f, @function
f:
	nop
	.byte	0x48, 0xb8, 0xe8
	.reloc	., R_X86_64_PLT32, __dtrace_p___x - 4
	.long	0
	.byte	0, 0, 0
	ret
	.size	f, .-f
EOF
readelf -rW src/inside.o | grep -q 'R_X86_64_PLT32.*__dtrace_p___x' || {
	echo "# $CC wrote inside.o without its relocation to __dtrace_p___x" >&2
	exit 99
}
if [ -n "$have_opcodes" ]; then
	new_case
	cp src/inside.o c/
	gfail "call inside another instruction" 1 -G -s p.d -o out.o inside.o
	first_has "call inside another instruction" \
		"$P inside.o: function f+0x3:" "'__dtrace_p___x'" \
		"not on an instruction boundary" "function offset 0x1"
else
	echo "# built without libopcodes: a site inside another instruction is not detected, not tested"
fi

assemble nofunc.o <<'EOF'
	.text
	.globl	g
g:
	nop
	call	__dtrace_p___x
	ret
EOF
new_case
cp src/nofunc.o c/
gfail "call outside any function" 1 -G -s p.d -o out.o nofunc.o
first_is "call outside any function" \
	"$P nofunc.o: section .text offset 0x1: call to '__dtrace_p___x' is not inside any function symbol"

assemble defines.o <<'EOF'
	.text
	.globl	__dtrace_p___x
	.type	__dtrace_p___x, @function
__dtrace_p___x:
	ret
	.size	__dtrace_p___x, .-__dtrace_p___x
	.globl	f
	.type	f, @function
f:
	call	__dtrace_p___x
	ret
	.size	f, .-f
EOF
new_case
cp src/defines.o c/
gfail "probe function defined" 1 -G -s p.d -o out.o defines.o
first_is "probe function defined" \
	"$P defines.o: defines '__dtrace_p___x' itself; probe functions must be left undefined for dtrace -G"

# an object rewritten by -G whose NOP was overwritten since: f is the
# first thing in .text, so its site is at the start of the section
assemble site.o <<'EOF'
	.text
	.globl	f
	.type	f, @function
f:
	call	__dtrace_p___x
	ret
	.size	f, .-f
EOF
mkdir once || exit 99
cp src/site.o src/p.d once/
(cd once && "$DTRACE" -G -s p.d -o out.o site.o) 2>err.txt ||
	{ cat err.txt >&2; fail "rewriting site.o failed"; }
text_off=$(readelf -SW once/site.o |
	sed -n 's/^ *\[ *[0-9]*\] \.text  *PROGBITS  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
expect_eq "site.o: .text begins with the NOPs" "0f 1f 40 00 90" \
	"$(od -An -tx1 -j $((0x${text_off:-0})) -N 5 once/site.o | sed 's/^ *//; s/  */ /g')"
new_case
cp once/site.o c/
printf '\220\220' | dd of=c/site.o bs=1 seek=$((0x${text_off:-0})) conv=notrunc 2>/dev/null
gfail "corrupted rewritten site" 1 -G -s p.d -o out.o site.o
first_has "corrupted rewritten site" "$P site.o: function f" \
	"neutralised relocation, but the bytes [90 90 40 00 90 c3]" \
	"are not a site rewritten by dtrace -G"

# one inline C++ function in two objects (COMDAT copies, of which the
# linker keeps one), compiled with different flags: its probe sites sit
# at different offsets, so no single description fits the kept copy
if command -v "$CXX" >/dev/null 2>&1; then
	cat >src/inl.h <<'EOF'
#include "p.h"
struct Counter {
	int n;
	__attribute__((noinline)) void bump(int by) { n += by; P_Y(n); }
};
EOF
	printf '#include "inl.h"\nint one(void) { Counter c = { 0 }; c.bump(3); return c.n; }\n' >src/inl1.cc
	printf '#include "inl.h"\nint two(void) { Counter c = { 1 }; c.bump(4); return c.n; }\n' >src/inl2.cc
	if "$CXX" -O0 -Isrc -c -o src/inl1.o src/inl1.cc 2>cc.log &&
	   "$CXX" -O2 -Isrc -c -o src/inl2.o src/inl2.cc 2>cc.log; then
		new_case
		cp src/inl1.o src/inl2.o c/
		gfail "COMDAT copies compiled differently" 1 \
			-G -s p.d -o out.o inl1.o inl2.o
		first_has "COMDAT copies compiled differently" "$P inl2.o:" \
			"_ZN7Counter4bumpEi" "inl1.o" "compiled differently"
	else
		sed 's/^/#   /' cc.log
		fail "cannot compile the COMDAT case with $CXX"
	fi
else
	echo "# no C++ compiler ($CXX): COMDAT copies are not tested"
fi

# ---------------------------------------------------------------------
# Objects that cannot be rewritten or are named wrongly

new_case
cp src/good.o c/
chmod 444 c/good.o
gfail "read-only object" 1 -G -s p.d -o out.o good.o
first_is "read-only object" \
	"$P good.o: is read-only; dtrace -G must rewrite it in place"
expect_eq "read-only object: mode" 444 "$(stat -c %a c/good.o)"

new_case
gfail "missing object" 1 -G -s p.d -o out.o nosuch.o
first_is "missing object" \
	"$P nosuch.o: cannot open: No such file or directory"

new_case
cp src/good.o c/
gfail "same object twice" 1 -G -s p.d -o out.o good.o good.o
first_is "same object twice" "$P good.o: is given twice"

new_case
cp src/good.o c/
gfail "same object under two names" 1 -G -s p.d -o out.o good.o ./good.o
first_is "same object under two names" \
	"$P ./good.o: is the same file as good.o"

new_case
cp src/good.o c/
ln c/good.o c/link.o
gfail "hard link to the same object" 1 -G -s p.d -o out.o good.o link.o
first_is "hard link to the same object" \
	"$P link.o: is the same file as good.o"

# ---------------------------------------------------------------------
# Atomicity: a good object first, then a bad one

new_case
cp src/good.o src/good2.o c/
printf 'junk\n' >c/text.o
gfail "good, good, not ELF" 1 -G -s p.d -o out.o good.o good2.o text.o
first_is "good, good, not ELF" "$P text.o: not an ELF object"

new_case
cp src/good.o src/nosuch.o c/
gfail "good, unknown probe" 1 -G -s p.d -o out.o good.o nosuch.o
first_has "good, unknown probe" "$P nosuch.o: function use_nosuch+" \
	"has no probe 'nosuch'"

# the read-only check comes after the first object's rewritten copy was
# written: that copy must go
new_case
cp src/good.o src/good2.o c/
chmod 444 c/good2.o
gfail "good, read-only" 1 -G -s p.d -o out.o good.o good2.o
first_is "good, read-only" \
	"$P good2.o: is read-only; dtrace -G must rewrite it in place"

# the output cannot be created: every object was understood and copied
new_case
cp src/good.o src/good2.o c/
gfail "output in a missing directory" 1 -G -s p.d -o nodir/out.o good.o good2.o
first_is "output in a missing directory" \
	"$P cannot create a file beside nodir/out.o: No such file or directory"

# ---------------------------------------------------------------------
# The linker

new_case
cp src/good.o src/good2.o c/
LD=/bin/false
export LD
gfail "LD=/bin/false" 1 -G -s p.d -o out.o good.o good2.o
first_is "LD=/bin/false" "$P '/bin/false -r' failed merging $DTRACE_DRTI"

new_case
cp src/good.o src/good2.o c/
LD=/nonexistent/ld
gfail "LD missing" 1 -G -s p.d -o out.o good.o good2.o
first_is "LD missing" \
	"$P cannot run the linker '/nonexistent/ld': No such file or directory"
unset LD

new_case
cp src/good.o src/good2.o c/
save_drti=$DTRACE_DRTI
DTRACE_DRTI=/nonexistent/drti.o
gfail "DTRACE_DRTI missing" 1 -G -s p.d -o out.o good.o good2.o
DTRACE_DRTI=$save_drti
grep '^dtrace:' err.txt | sed -n 1p >first.txt
expect_eq "DTRACE_DRTI missing: dtrace's message" \
	"$P no drti.o for x86-64 (/nonexistent/drti.o: No such file or directory); install usdt-sdk (make install), or name one built for x86-64 with DTRACE_DRTI" \
	"$(cat first.txt)"

# a linker that kills dtrace: the objects are only renamed into place
# after the linker succeeded, so they must be intact
cat >killer.sh <<'EOF'
#!/bin/sh
kill -9 $PPID
sleep 1
exit 1
EOF
chmod +x killer.sh
new_case
cp src/good.o src/good2.o c/
find c -type f -exec touch -d @1000000000 {} +
cp -p c/* keep/
LD=$tmp/killer.sh
export LD
(cd c && exec "$DTRACE" -G -s p.d -o out.o good.o good2.o) >out.txt 2>err.txt
status=$?
unset LD
expect_eq "SIGKILL: exit status" 137 "$status"
for f in p.d good.o good2.o; do
	if cmp -s "c/$f" "keep/$f"; then pass; else
		fail "SIGKILL: $f was changed"
	fi
	expect_eq "SIGKILL: mtime of $f" 1000000000 "$(stat -c %Y "c/$f")"
done
expect_eq "SIGKILL: no output" "" "$(ls c/out.o 2>/dev/null)"
# documented: SIGKILL cannot be caught, so temporary files may stay
left=$(ls -A c | grep -v -x -e p.d -e good.o -e good2.o | tr '\n' ' ')
echo "# SIGKILL left: ${left:-nothing}"
bad_left=$(ls -A c | grep -v -x -e p.d -e good.o -e good2.o |
	grep -v -e '^\.good\.o\.......$' -e '^\.good2\.o\.......$' \
		-e '^\.out\.o\.......$')
expect_eq "SIGKILL: only .NAME.XXXXXX temporary files are left" "" "$bad_left"
# the intact inputs: a fresh run succeeds and the program works
(cd c && exec "$DTRACE" -G -s p.d -o out.o good.o good2.o) >out.txt 2>err.txt
expect_eq "after SIGKILL: a fresh -G: exit status" 0 "$?"
if "$CC" -o c/prog src/main.o c/good.o c/good2.o c/out.o 2>cc.log; then
	expect_eq "after SIGKILL: the program" "2 4" "$(c/prog)"
else
	fail "after SIGKILL: link failed:"
	sed 's/^/    | /' cc.log >&2
fi

# ---------------------------------------------------------------------
# The script and the command line

new_case
cp src/good.o c/
printf 'provider p {\n\tprobe x(;\n};\n' >c/p.d
gfail "script that does not compile" 1 -G -s p.d -o out.o good.o
first_has "script that does not compile" \
	"dtrace: failed to compile script p.d: line 2:"

new_case
cp src/good.o c/
gfail "-G without -s" 2 -G -o out.o good.o
first_is "-G without -s" "dtrace: -G needs a provider script: -s file.d"

new_case
cp src/good.o c/
gfail "-G with a missing script" 1 -G -s nosuch.d -o out.o good.o
first_is "-G with a missing script" \
	"dtrace: failed to compile script nosuch.d: cannot open nosuch.d: No such file or directory"

finish
