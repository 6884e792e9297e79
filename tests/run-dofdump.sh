#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-dofdump.sh: tests/tools/dofdump on ELF files carrying hand-built DOF
# (tests/dofdump/dof-object.c), until `dtrace -G` writes real ones:
#  - an object (ET_REL): the whole dump, exactly, including the ELF
#    relocations that fill each dofpr_addr (R_X86_64_64 against the
#    function's $dtrace alias, or the function itself);
#  - the same with DOF-level SETX relocations instead;
#  - a non-PIE executable, a PIE and a shared library: every probe and
#    site resolves to the right function (addresses masked), and in the
#    PIE and library the dynamic relocations map to the right probes;
#  - `ld -r` of two objects and a program linked from them: two blobs in
#    one section, each read and resolved;
#  - failures: invalid DOF (also as the second blob of a section), no
#    .SUNW_dof, not ELF, a missing file: exit 1, nothing on stdout, one
#    message naming the file; bad usage: exit 2.
#
# Environment: DOFDUMP (the binary under test), top_srcdir, CC, and
# DOF_CPPFLAGS (-I for usdt/dof.h; default $top_srcdir/sdk/include).  TESTS_LIB may
# point at tests/lib.sh when this runs outside the main tree.

. "${TESTS_LIB:-$top_srcdir/tests/lib.sh}"

: "${DOFDUMP:?DOFDUMP must name the dofdump binary under test}"
: "${DOF_CPPFLAGS:=-I$top_srcdir/sdk/include}"
src="$top_srcdir/tests/dofdump/dof-object.c"

command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"
command -v ld >/dev/null 2>&1 || skip "no ld"
case $(uname -m) in
x86_64) ;;
*) skip "DOF objects are x86-64 only" ;;
esac

# compile OUT [CFLAGS...]
compile() {
	out=$1
	shift
	# shellcheck disable=SC2086 # DOF_CPPFLAGS is a list of flags
	$CC -O2 -Wall -Wextra -Werror $DOF_CPPFLAGS "$@" -c "$src" -o "$out" ||
		fail "cannot compile $out"
}

# dump FILE: dofdump FILE > out.txt 2> err.txt, status in $status
dump() {
	"$DOFDUMP" "$1" >out.txt 2>err.txt
	status=$?
}

# masked: out.txt without the section table and with addresses masked
masked() {
	sed -E -e '/^(sec|hdr) /d' \
		-e 's/addr=0x[0-9a-f]+/addr=A/g' \
		-e 's/^ (site|ensite) 0x[0-9a-f]+/ \1 A/' \
		-e 's/\*ABS\*\+0x[0-9a-f]+/*ABS*+A/' out.txt
}

# expect_ok WHAT: dofdump succeeded quietly
expect_ok() {
	expect_eq "$1: status" 0 "$status"
	expect_eq "$1: stderr" "" "$(cat err.txt)"
}

# expect_refused WHAT MESSAGE: exit 1, no stdout, exactly MESSAGE
expect_refused() {
	expect_eq "$1: status" 1 "$status"
	expect_eq "$1: stdout" "" "$(cat out.txt)"
	expect_eq "$1: message" "$2" "$(cat err.txt)"
}

compile obj1.o
compile obj2.o -DVARIANT=2
compile setx.o -DSETX=1
compile pic1.o -fPIC
compile pic2.o -fPIC -DVARIANT=2
compile broken.o -DBREAK=1
compile broken2.o -DBREAK=1 -DVARIANT=2

# ---------------------------------------------------------------------
# An object, as `dtrace -G` will write it

dump obj1.o
expect_ok "object"
cat >expected.txt <<'EOF'
elf type=ET_REL machine=62
section .SUNW_dof size=0x208 addr=0x0 flags=WA
blob 0 offset=0x0
hdr version=2 model=2 encoding=1 difvers=2 difireg=8 diftreg=8 flags=0x0 hdrsize=64 secsize=32 secnum=6 secoff=0x40 loadsz=0x208 filesz=0x208
sec 0 PROBES align=8 flags=0x1 entsize=48 offset=0x100 size=0x60
sec 1 PRARGS align=1 flags=0x1 entsize=1 offset=0x160 size=0x4
sec 2 PROFFS align=4 flags=0x1 entsize=4 offset=0x164 size=0xc
sec 3 PRENOFFS align=4 flags=0x1 entsize=4 offset=0x170 size=0x8
sec 4 PROVIDER align=4 flags=0x1 entsize=0 offset=0x178 size=0x2c
sec 5 STRTAB align=1 flags=0x1 entsize=0 offset=0x1a4 size=0x64
provider myapp provattr=Evolving/Evolving/Common modattr=Private/Private/Unknown funcattr=Private/Private/Unknown nameattr=Evolving/Evolving/Common argsattr=Evolving/Evolving/Common probes=2
probe myapp:main:query-start addr=0x0 nargc=2 nargv="const char *","int" xargc=2 xargv="string","int" argmap=0,1 offs=0x4,0x8 enoffs=0x6
probe myapp:worker:query-done addr=0x0 nargc=2 nargv="const char *","long" xargc=2 xargv="long","string" argmap=1,0 offs=0x2 enoffs=0x1
elfreloc off=0x100 R_X86_64_64 sym=$dtrace1234.main+0 probe=myapp:main:query-start
elfreloc off=0x130 R_X86_64_64 sym=worker+0 probe=myapp:worker:query-done
EOF
expect_file_eq "object dump" expected.txt out.txt

dump setx.o
expect_ok "object with SETX"
masked >masked.txt
cat >expected.txt <<'EOF'
elf type=ET_REL machine=62
section .SUNW_dof size=0x288 addr=A flags=WA
blob 0 offset=0x0
provider myapp provattr=Evolving/Evolving/Common modattr=Private/Private/Unknown funcattr=Private/Private/Unknown nameattr=Evolving/Evolving/Common argsattr=Evolving/Evolving/Common probes=2
probe myapp:main:query-start addr=A nargc=2 nargv="const char *","int" xargc=2 xargv="string","int" argmap=0,1 offs=0x4,0x8 enoffs=0x6
probe myapp:worker:query-done addr=A nargc=2 nargv="const char *","long" xargc=2 xargv="long","string" argmap=1,0 offs=0x2 enoffs=0x1
reloc SETX name=main offset=0x0 data=0x0 probe=myapp:main:query-start
reloc SETX name=worker offset=0x30 data=0x0 probe=myapp:worker:query-done
EOF
expect_file_eq "object with SETX relocations" expected.txt masked.txt

# ---------------------------------------------------------------------
# Linked: every probe and site inside the right function

cat >linked-probes.txt <<'EOF'
probe myapp:main:query-start addr=A nargc=2 nargv="const char *","int" xargc=2 xargv="string","int" argmap=0,1 offs=0x4,0x8 enoffs=0x6
 resolved addr=A sym=main+0x0
 site A sym=main+0x4
 site A sym=main+0x8
 ensite A sym=main+0x6
probe myapp:worker:query-done addr=A nargc=2 nargv="const char *","long" xargc=2 xargv="long","string" argmap=1,0 offs=0x2 enoffs=0x1
 resolved addr=A sym=worker+0x0
 site A sym=worker+0x2
 ensite A sym=worker+0x1
EOF

if $CC -no-pie obj1.o -o prog 2>cc.txt; then
	dump prog
	expect_ok "executable"
	masked >masked.txt
	{
		echo "elf type=ET_EXEC machine=62"
		echo "section .SUNW_dof size=0x208 addr=A flags=WA"
		echo "blob 0 offset=0x0"
		grep '^provider' masked.txt
		cat linked-probes.txt
	} >expected.txt
	expect_file_eq "executable dump" expected.txt masked.txt
else
	fail "cannot link a non-PIE program: $(cat cc.txt)"
fi

if $CC -pie pic1.o -o prog-pie 2>cc.txt; then
	dump prog-pie
	expect_ok "PIE"
	masked >masked.txt
	{
		echo "elf type=ET_DYN machine=62"
		echo "section .SUNW_dof size=0x208 addr=A flags=WA"
		echo "blob 0 offset=0x0"
		grep '^provider' masked.txt
		cat linked-probes.txt
		echo "elfreloc off=0x100 R_X86_64_RELATIVE sym=*ABS*+A probe=myapp:main:query-start"
		echo "elfreloc off=0x130 R_X86_64_RELATIVE sym=*ABS*+A probe=myapp:worker:query-done"
	} >expected.txt
	expect_file_eq "PIE dump" expected.txt masked.txt
else
	fail "cannot link a PIE: $(cat cc.txt)"
fi

# In a shared library the alias is what keeps the field from being bound
# to a symbol another module could interpose: probe 1 gets RELATIVE,
# probe 2 (relocated against the exported function) a symbolic one.
if $CC -shared pic2.o -o libother.so 2>cc.txt; then
	dump libother.so
	expect_ok "shared library"
	masked >masked.txt
	expect_grep "library: probe 1 resolved" \
		'^ resolved addr=A sym=other_main+0x0$' masked.txt
	expect_grep "library: probe 2 resolved" \
		'^ resolved addr=A sym=other_worker+0x0$' masked.txt
	expect_grep "library: alias reference is RELATIVE" \
		'^elfreloc off=0x100 R_X86_64_RELATIVE sym=\*ABS\*+A probe=other:other_main:query-start$' \
		masked.txt
	expect_grep "library: function reference is symbolic" \
		'^elfreloc off=0x130 R_X86_64_64 sym=other_worker+0 probe=other:other_worker:query-done$' \
		masked.txt
else
	fail "cannot link a shared library: $(cat cc.txt)"
fi

# ---------------------------------------------------------------------
# Two blobs in one section

if ld -r obj1.o obj2.o -o both.o 2>ld.txt; then
	dump both.o
	expect_ok "ld -r object"
	grep -E '^(blob|provider [a-z]+|elfreloc)' out.txt |
		sed -E 's/^(provider [a-z]+) .*/\1/' >got.txt
	cat >expected.txt <<'EOF'
blob 0 offset=0x0
provider myapp
blob 1 offset=0x208
provider other
elfreloc off=0x100 R_X86_64_64 sym=$dtrace1234.main+0 probe=myapp:main:query-start
elfreloc off=0x130 R_X86_64_64 sym=worker+0 probe=myapp:worker:query-done
elfreloc off=0x308 R_X86_64_64 sym=$dtrace5678.other_main+0 probe=other:other_main:query-start
elfreloc off=0x338 R_X86_64_64 sym=other_worker+0 probe=other:other_worker:query-done
EOF
	expect_file_eq "ld -r: both blobs and their relocations" expected.txt \
		got.txt

	if $CC -no-pie both.o -o both 2>cc.txt; then
		dump both
		expect_ok "program with two blobs"
		masked >masked.txt
		grep -E '^( resolved|blob)' masked.txt >got.txt
		cat >expected.txt <<'EOF'
blob 0 offset=0x0
 resolved addr=A sym=main+0x0
 resolved addr=A sym=worker+0x0
blob 1 offset=0x208
 resolved addr=A sym=other_main+0x0
 resolved addr=A sym=other_worker+0x0
EOF
		expect_file_eq "program with two blobs" expected.txt got.txt
	else
		fail "cannot link both.o: $(cat cc.txt)"
	fi
else
	fail "ld -r failed: $(cat ld.txt)"
fi

# ---------------------------------------------------------------------
# Failures

dump broken.o
expect_refused "invalid DOF" "dofdump: broken.o: invalid DOF in .SUNW_dof at 0x0: probe 1: argument map entry 2 is not below nargc (offset 0x163)"

if ld -r obj1.o broken2.o -o half.o 2>ld.txt; then
	dump half.o
	expect_refused "invalid second blob" "dofdump: half.o: invalid DOF in .SUNW_dof at 0x208: probe 1: argument map entry 2 is not below nargc (offset 0x36b)"
else
	fail "ld -r failed: $(cat ld.txt)"
fi

echo 'int plain;' >plain.c
if $CC -c plain.c -o plain.o; then
	dump plain.o
	expect_refused "no DOF" "dofdump: plain.o: no .SUNW_dof section: no DOF"
else
	fail "cannot compile plain.c"
fi

dump plain.c
expect_refused "not ELF" "dofdump: plain.c: not an ELF file"

dump missing.o
expect_refused "missing file" "dofdump: missing.o: No such file or directory"

"$DOFDUMP" >out.txt 2>err.txt
expect_eq "no argument: status" 2 "$?"
expect_eq "no argument: usage" "usage: dofdump FILE" "$(cat err.txt)"

finish
