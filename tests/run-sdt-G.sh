#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-sdt-G.sh: `dtrace -G` over objects whose probes are inline:
# written by the compiler from a `dtrace -h -x probestyle=inline` header,
# from <sys/sdt.h>, or in assembler (tests/data/sdt/g-*).
#
# One -G run gets a call-form object (g-call.c), an inline-header object
# (g-inline.c), a <sys/sdt.h> object with a probe of a declared provider
# and one of an undeclared provider (g-sdt.c), an assembler object
# (g-asm.S) and two C++ objects with the same inline function, probe
# included, in a COMDAT group (g-inl.cc):
#  - -G succeeds; -v shows the call rewritten and every inline probe
#    "with its note", and the undeclared provider's probe left alone;
#  - the inline objects' code and notes keep their bytes: only aliases
#    are added to their symbol tables;
#  - the DOF, read back with $DOFDUMP: one probe per (probe, function),
#    functions named from their symbols (static ones too), offsets as
#    the notes give them, relocated against the functions' aliases; the
#    undeclared provider is not in it;
#  - the linked program runs; its DOF sites are exactly the locations of
#    the notes of declared providers, one note per site (-G wrote notes
#    only for the call form), the COMDAT copy once;
#  - a second -G leaves every object byte-identical with its mtime, and
#    writes the same output;
#  - an inline probe the provider lacks, or with another argument count
#    than declared, is an error naming the function and the probe, and
#    nothing is changed;
#  - -flto: -G refuses the bitcode and says to run it without; without
#    objects it defines the semaphores; the -flto program links, runs,
#    has its notes with their semaphores, and (root) bpftrace lists its
#    probes and reads their arguments; the same with clang and lld.

. "$top_srcdir/tests/lib.sh"

# gcc's -flto objects are built with gcc whatever $CC is
gcc_cc=$(gcc_driver "$CC" c) && gcc_cc="$gcc_cc -DUSDT_NO_PROBE_STUBS"

# This test checks exactly what -G writes for the calls it is given, so
# its objects leave out the probe stubs a header defines (a note each,
# for every declared probe): USDT_NO_PROBE_STUBS.  tests/run-dropin.sh
# covers the stubs.
CC="${CC:-cc} -DUSDT_NO_PROBE_STUBS"
CXX="${CXX:-c++} -DUSDT_NO_PROBE_STUBS"
[ -n "${CLANG:-}" ] && CLANG="$CLANG -DUSDT_NO_PROBE_STUBS"
[ -n "${CLANGXX:-}" ] && CLANGXX="$CLANGXX -DUSDT_NO_PROBE_STUBS"

: "${CLANG:=}"
: "${DOFDUMP:?DOFDUMP must name tests/tools/dofdump}"
data=$top_srcdir/tests/data/sdt
inc=$top_srcdir/sdk/include

require_G readelf nm cmp stat

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

run_dtrace -h -s "$data/g.d" -o g-call.h
expect_eq "dtrace -h" 0 "$status"
run_dtrace -h -x probestyle=inline -s "$data/g.d" -o g-inline.h
expect_eq "dtrace -h -x probestyle=inline" 0 "$status"

build_ok "call.o" $CC -O2 -I. -c "$data/g-call.c" -o call.o &&
build_ok "inline.o" $CC -O2 -I. -c "$data/g-inline.c" -o inline.o &&
build_ok "sdt.o" $CC -O2 -I"$inc" -c "$data/g-sdt.c" -o sdt.o &&
build_ok "asm.o" $CC -I"$inc" -c "$data/g-asm.S" -o asm.o &&
build_ok "inl1.o" $CXX -O2 -I. -DTWICE=twice_a -c "$data/g-inl.cc" \
	-o inl1.o &&
build_ok "inl2.o" $CXX -O2 -I. -DTWICE=twice_b -c "$data/g-inl.cc" \
	-o inl2.o || {
	fail "cannot build the objects"
	finish
}
objs="call.o inline.o sdt.o asm.o inl1.o inl2.o"
inline_objs="inline.o sdt.o asm.o inl1.o inl2.o"

# sections BIN NAME...: the bytes of each named section, as readelf -x
sections() {
	s_bin=$1
	shift
	for s in "$@"; do
		readelf -x "$s" "$s_bin" 2>&1
	done
}
for o in $inline_objs; do
	sections $o .text .note.stapsdt >"$o.before"
done

# ---------------------------------------------------------------------
# -G over everything

# shellcheck disable=SC2086
run_dtrace -G -v -s "$data/g.d" -o probes.o $objs
expect_eq "-G: exit status" 0 "$status"
cat >expected-v.txt <<'EOF'
dtrace: asm.o: asmfn+0: app:::asmp: 90 66 2e 0f 1f 84 00 00 00 00 00, an inline probe with its note
dtrace: call.o: caller+OFF: app:::start: e8 00 00 00 00 -> 0f 1f 40 00 90
dtrace: inl1.o: _Z5twicei+OFF: app:::inl: 90 66 2e 0f 1f 84 00 00 00 00 00, an inline probe with its note
dtrace: inl2.o: _Z5twicei+OFF: app:::inl: 90 66 2e 0f 1f 84 00 00 00 00 00, an inline probe with its note
dtrace: inline.o: helper+OFF: app:::start: 90 66 2e 0f 1f 84 00 00 00 00 00, an inline probe with its note
dtrace: inline.o: main+OFF: app:::flag: 90 66 2e 0f 1f 84 00 00 00 00 00, an inline probe with its note
dtrace: inline.o: main+OFF: other:::tick: 90 66 2e 0f 1f 84 00 00 00 00 00, an inline probe with its note
dtrace: sdt.o: inline probe foreign:::thing left to the tracers that read notes: DFILE declares no provider 'foreign'
dtrace: sdt.o: sdtfn+OFF: app:::sdt: 90 66 2e 0f 1f 84 00 00 00 00 00, an inline probe with its note
EOF
# offsets in compiled functions depend on the compiler (gcc starts
# helper, sdtfn and twice with their probe, clang does not; the DOF's
# offsets are checked against the notes below), the disassembly text on
# libopcodes
sed -e 's/ ([a-z][^)]*)\( ->\)/\1/' -e 's/ ([a-z].*)$//' \
	-e "s|$data/g.d|DFILE|" \
	-e '/^dtrace: asm\.o: /!s/^\(dtrace: [^:]*: [^:+]*\)+\(0\|0x[0-9a-f]*\): /\1+OFF: /' \
	err.txt | LC_ALL=C sort >actual-v.txt
expect_file_eq "-G -v" expected-v.txt actual-v.txt

for o in $inline_objs; do
	sections $o .text .note.stapsdt >"$o.after"
	if cmp -s "$o.before" "$o.after"; then pass; else
		fail "$o: -G changed its code or its notes"
		diff -u "$o.before" "$o.after" >&2
	fi
	expect_grep "$o: has a function alias" \
		'NOTYPE  GLOBAL HIDDEN .* \$dtrace' \
		"$(readelf -sW $o >$o.syms; echo $o.syms)"
done

# ---------------------------------------------------------------------
# The DOF

"$DOFDUMP" probes.o >dump.txt 2>dump.err
expect_eq "dofdump probes.o" 0 "$?"
sed -n -E -e 's/ addr=0x[0-9a-f]+//' \
	-e 's/ (offs|enoffs)=(0x[0-9a-f]+(,0x[0-9a-f]+)*)?/ \1=<\2>/g' \
	-e 's/^(probe .*)$/\1/p' \
	-e 's/^elfreloc off=0x[0-9a-f]+ (R_X86_64_64) sym=\$dtrace\.?[0-9a-f]+\.([^ ]*) (.*)/elfreloc \1 \2 \3/p' \
	dump.txt | awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^(offs|enoffs)=</) {
				v = $i; sub(/^[a-z]*=</, "", v); sub(/>$/, "", v)
				n = v == "" ? 0 : split(v, x, ",")
				sub(/=<.*$/, "=" n, $i)
			}
		print }' >dof.txt
cat >expected-dof.txt <<'EOF'
probe app:caller:start nargc=2 nargv="const char *","int" xargc=2 xargv="const char *","int" argmap=0,1 offs=1 enoffs=0
probe app:helper:start nargc=2 nargv="const char *","int" xargc=2 xargv="const char *","int" argmap=0,1 offs=1 enoffs=0
probe app:main:flag nargc=2 nargv="_Bool","long" xargc=2 xargv="_Bool","long" argmap=0,1 offs=1 enoffs=0
probe app:sdtfn:sdt nargc=2 nargv="int","long" xargc=2 xargv="int","long" argmap=0,1 offs=1 enoffs=0
probe app:asmfn:asmp nargc=2 nargv="long","unsigned long" xargc=2 xargv="long","unsigned long" argmap=0,1 offs=1 enoffs=0
probe app:_Z5twicei:inl nargc=1 nargv="int" xargc=1 xargv="int" argmap=0 offs=1 enoffs=0
probe other:main:tick nargc=0 nargv= xargc=0 xargv= argmap= offs=1 enoffs=0
elfreloc R_X86_64_64 caller+0 probe=app:caller:start
elfreloc R_X86_64_64 helper+0 probe=app:helper:start
elfreloc R_X86_64_64 main+0 probe=app:main:flag
elfreloc R_X86_64_64 sdtfn+0 probe=app:sdtfn:sdt
elfreloc R_X86_64_64 asmfn+0 probe=app:asmfn:asmp
elfreloc R_X86_64_64 _Z5twicei+0 probe=app:_Z5twicei:inl
elfreloc R_X86_64_64 main+0 probe=other:main:tick
EOF
expect_file_eq "the DOF of the -G output" expected-dof.txt dof.txt

# offsets: the notes' own, function-relative (asmfn starts with its
# probe; the others are checked in the program below)
expect_grep "app:asmfn:asmp: the probe is at offset 0" \
	"^probe app:asmfn:asmp .* offs=0x0 " dump.txt

# ---------------------------------------------------------------------
# The program

if build_ok "link" $CXX -o prog $objs probes.o; then
	expect_eq "the program runs" "sum 88" "$(./prog)"
	"$DOFDUMP" prog >pdump.txt 2>&1
	expect_eq "dofdump prog" 0 "$?"
	sed -n 's/^ site 0x\([0-9a-f]*\) .*/\1/p' pdump.txt | LC_ALL=C sort \
		>dof-sites.txt
	readelf -nW prog | awk '/Provider:/ { p = $NF }
		/Location:/ && p != "foreign" {
			l = $2; sub(/,$/, "", l); sub(/^0x0*/, "", l); print l
		}' | LC_ALL=C sort >note-sites.txt
	expect_eq "seven DOF sites" 7 "$(wc -l <dof-sites.txt)"
	expect_file_eq "DOF sites = note locations" note-sites.txt \
		dof-sites.txt
	expect_eq "one note per location" "$(wc -l <note-sites.txt)" \
		"$(LC_ALL=C sort -u note-sites.txt | wc -l)"
	expect_eq "one note for the inline function's probe" 1 \
		"$(readelf -n prog | grep -c 'Name: inl$')"
	expect_eq "every DOF function resolves to its symbol" \
		"_Z5twicei asmfn caller helper main main sdtfn" \
		"$(sed -n 's/^ resolved addr=0x[0-9a-f]* sym=\([^+]*\)+0x0$/\1/p' \
			pdump.txt | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
	# each probe's DOF offsets in probes.o are its notes' locations in
	# the program less the start of the function each is in (nm)
	nm prog | awk '$2 ~ /^[tTwW]$/ && $3 !~ /^\$/ { print $1, $3 }' |
		LC_ALL=C sort >funcs.txt
	readelf -nW prog | awk '/Provider:/ { p = $NF } /Name:/ { n = $NF }
		/Location:/ && p != "foreign" {
			l = $2; sub(/,$/, "", l); print p, n, l
		}' >note-locs.txt
	while read -r p n l; do
		f=? o=0
		while read -r fa fn; do
			[ $((0x$fa)) -le $((l)) ] || break
			f=$fn o=$((l - 0x$fa))
		done <funcs.txt
		printf '%s:%s:%s 0x%x\n' "$p" "$f" "$n" "$o"
	done <note-locs.txt | LC_ALL=C sort >note-offs.txt
	awk '/^probe / { for (i = 3; i <= NF; i++) if ($i ~ /^offs=/) {
			n = split(substr($i, 6), x, ",")
			for (j = 1; j <= n; j++) print $2, x[j]
		} }' dump.txt | LC_ALL=C sort >dof-offs.txt
	expect_file_eq "DOF offsets = note locations in their functions" \
		note-offs.txt dof-offs.txt
fi

# ---------------------------------------------------------------------
# lld --gc-sections keeps .stapsdt.base (marked SHF_GNU_RETAIN by the
# header and by -G; without it gdb ignores every probe): in the program
# above, and in one where only the -G output defines it

# base_ok BIN: .stapsdt.base exists and every note's Base is it
base_ok() {
	bo_base=$(readelf -SW "$1" | awk '{
		for (i = 1; i < NF; i++)
			if ($i == ".stapsdt.base") print $(i + 2) }')
	[ -n "$bo_base" ] || return 1
	readelf -n "$1" | awk -v b="$bo_base" '/Base:/ {
		for (i = 1; i < NF; i++) if ($i == "Base:") x = $(i + 1)
		sub(/,$/, "", x); sub(/^0x0*/, "", x); y = b; sub(/^0*/, "", y)
		if (x != y) bad = 1 }
		END { exit bad }'
}
if command -v ld.lld >/dev/null 2>&1; then
	printf 'int caller(int n);\nint main(void) { return caller(1) != 3; }\n' \
		>callmain.c
	cp call.o callonly.o
	build_ok "lld: call-only program" sh -c "$CC -O2 -c callmain.c &&
		$DTRACE -G -s $data/g.d -o callonly-probes.o callonly.o &&
		$CC -fuse-ld=lld -Wl,--gc-sections -o callonly callmain.o \
			callonly.o callonly-probes.o" &&
		./callonly && pass || fail "lld: callonly fails"
	build_ok "lld: the mixed program" $CXX -fuse-ld=lld -Wl,--gc-sections \
		-o prog-lld $objs probes.o
	for b in callonly prog-lld; do
		[ -f $b ] || continue
		if base_ok $b; then pass; else
			fail "lld --gc-sections: $b lost .stapsdt.base"
		fi
	done
else
	echo "# no ld.lld: lld --gc-sections is not tested"
fi

# ---------------------------------------------------------------------
# A second run changes nothing

for o in $objs; do
	touch -d @1000000000 "$o"
	cp -p "$o" "$o.first"
done
cp probes.o probes.first
# shellcheck disable=SC2086
run_dtrace -G -s "$data/g.d" -o probes.o $objs
expect_eq "second -G: exit status" 0 "$status"
for o in $objs; do
	if cmp -s "$o" "$o.first"; then pass; else
		fail "second -G changed $o"
	fi
	expect_eq "second -G: mtime of $o" 1000000000 "$(stat -c %Y "$o")"
done
if cmp -s probes.o probes.first; then pass; else
	fail "second -G wrote another output"
fi

# ---------------------------------------------------------------------
# Inline probes the script does not match

cat >nosuch.c <<'EOF'
#include <sys/sdt.h>
void nosuch(int a);
void nosuch(int a) { DTRACE_PROBE1(app, nosuch, a); }
EOF
cat >argc.c <<'EOF'
#include <sys/sdt.h>
void argc3(int a);
void argc3(int a) { DTRACE_PROBE3(app, check, a, a, a); }
EOF
for t in nosuch argc; do
	build_ok "$t.o" $CC -O2 -I"$inc" -c $t.c -o $t.o || continue
	cp -p $t.o $t.o.orig
	run_dtrace -G -s "$data/g.d" -o $t-probes.o $t.o
	expect_eq "$t: exit status" 1 "$status"
	if cmp -s $t.o $t.o.orig; then pass; else
		fail "$t: the object changed"
	fi
	expect_eq "$t: no output" no \
		"$([ -e $t-probes.o ] && echo yes || echo no)"
	# the site and the arguments as the note gives them (the compiler
	# chooses both: gcc passes registers, clang the red zone)
	fn=$t
	[ $t = argc ] && fn=argc3
	loc=$(readelf -nW $t.o | sed -n 's/.*Location: \(0x[0-9a-f]*\),.*/\1/p')
	fv=$(readelf -sW $t.o | awk -v f=$fn '$8 == f && $4 == "FUNC" { print $2 }')
	off=$((loc - 0x${fv:-0}))
	[ "$off" -eq 0 ] || off=$(printf '0x%x' "$off")
	args=$(readelf -nW $t.o | sed -n 's/^ *Arguments: //p')
	case $t in
	nosuch) want="dtrace: failed to link script $data/g.d: nosuch.o: function nosuch+$off has inline probe app:::nosuch, but provider 'app' has no probe 'nosuch'" ;;
	argc) want="dtrace: failed to link script $data/g.d: argc.o: function argc3+$off: inline probe app:::check has the arguments \"$args\", but $data/g.d declares 0" ;;
	esac
	expect_eq "$t: the message" "$want" "$(head -n 1 err.txt)"
done

# ---------------------------------------------------------------------
# -flto

# lto_build NAME CC LDFLAGS: NAME/prog from g-inline.c alone, -flto
lto_build() {
	l_dir=$1 l_cc=$2 l_ld=$3
	mkdir "$l_dir"
	build_ok "$l_dir: compile" $l_cc -O2 -flto -DALONE -I. \
		-c "$data/g-inline.c" -o "$l_dir/lto.o" || return 1
	cp -p "$l_dir/lto.o" "$l_dir/lto.o.orig"
	# an -flto object is accepted and left as it is
	run_dtrace -G -s "$data/g.d" -o "$l_dir/probes.o" "$l_dir/lto.o"
	expect_eq "$l_dir: -G accepts the -flto object" 0 "$status"
	expect_eq "$l_dir: -G with the -flto object: quiet" "" "$(cat err.txt)"
	if cmp -s "$l_dir/lto.o" "$l_dir/lto.o.orig"; then pass; else
		fail "$l_dir: -G changed the -flto object"
	fi
	run_dtrace -G -s "$data/g.d" -o "$l_dir/probes.o"
	expect_eq "$l_dir: -G without objects" 0 "$status"
	expect_eq "$l_dir: -G without objects: quiet" "" "$(cat err.txt)"
	if cmp -s "$l_dir/lto.o" "$l_dir/lto.o.orig"; then pass; else
		fail "$l_dir: -G changed the bitcode"
	fi
	build_ok "$l_dir: link" $l_cc -O2 -flto $l_ld -o "$l_dir/prog" \
		"$l_dir/lto.o" "$l_dir/probes.o" || return 1
	expect_eq "$l_dir: runs" "sum 43" "$("$l_dir/prog" 2>&1)"
	readelf -n "$l_dir/prog" | awk '/Provider:/ { p = $NF } /Name:/ { n = $2 }
		/Semaphore:/ { print p, n, ($NF != "0x0000000000000000") }' |
		LC_ALL=C sort >"$l_dir/notes.txt"
	printf '%s\n' "app flag 1" "app start 1" "other tick 1" \
		>expected-lto-notes.txt
	expect_file_eq "$l_dir: notes, with semaphores" expected-lto-notes.txt \
		"$l_dir/notes.txt"
	nm "$l_dir/prog" | awk '$3 ~ /^__usdt_sema_/ { print $1 }' |
		LC_ALL=C sort >"$l_dir/semas.txt"
	readelf -n "$l_dir/prog" | awk '/Semaphore:/ {
		s = $NF; sub(/^0x/, "", s); print s }' | LC_ALL=C sort \
		>"$l_dir/note-semas.txt"
	if [ -s "$l_dir/note-semas.txt" ] &&
	   LC_ALL=C comm -23 "$l_dir/note-semas.txt" "$l_dir/semas.txt" |
	   grep -q .; then
		fail "$l_dir: a note's semaphore is no __usdt_sema_ symbol"
	else
		pass
	fi
	if [ "$(id -u)" -eq 0 ] && command -v bpftrace >/dev/null 2>&1; then
		(cd "$l_dir" && bpftrace -l 'usdt:./prog:*' 2>/dev/null) |
			LC_ALL=C sort >"$l_dir/bpl.txt"
		printf '%s\n' usdt:./prog:app:flag usdt:./prog:app:start \
			usdt:./prog:other:tick >expected-bpl.txt
		expect_file_eq "$l_dir: bpftrace -l" expected-bpl.txt \
			"$l_dir/bpl.txt"
		(cd "$l_dir" && timeout 120 bpftrace -B none -e '
			usdt:./prog:app:start {
				printf("start %s %d\n", str(arg0), arg1); }
			usdt:./prog:app:flag {
				printf("flag %d %d\n", arg0, arg1); }' \
			-c ./prog >bt.out 2>bt.err)
		expect_eq "$l_dir: bpftrace's exit status" 0 $?
		grep -e '^start ' -e '^flag ' "$l_dir/bt.out" | LC_ALL=C sort \
			>"$l_dir/bt.txt"
		printf '%s\n' "flag 1 -5" "start inline 42" >expected-bt.txt
		expect_file_eq "$l_dir: bpftrace reads the arguments" \
			expected-bt.txt "$l_dir/bt.txt"
	else
		echo "# $l_dir: not root or no bpftrace: its part is skipped"
	fi
}

if [ -n "$gcc_cc" ]; then
	lto_build gcc-lto "$gcc_cc" ""
else
	echo "# no gcc: gcc -flto is not tested"
fi
if [ -n "$CLANG" ] && command -v "${CLANG%% *}" >/dev/null 2>&1 &&
   command -v ld.lld >/dev/null 2>&1; then
	lto_build clang-lto "$CLANG" "-fuse-ld=lld"
else
	echo "# no clang or no ld.lld: clang -flto is not tested"
fi

finish
