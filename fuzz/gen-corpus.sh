#!/bin/sh
# SPDX-License-Identifier: MIT
#
# gen-corpus.sh - build the fuzzers' seed corpora from real objects.
#
#	gen-corpus.sh OUTDIR
#
# Compiles fuzz/src/sites.c (and comdat.cc with a C++ compiler, sdt.c
# where <sys/sdt.h> exists) at several optimisation levels, with and
# without -fno-plt and -fPIC, and for aarch64 where its cross compiler
# is, runs the built `dtrace -h` and `dtrace -G` on them, links them
# (x86-64), and files what each harness reads:
#
#	OUTDIR/elf/	objects before and after -G rewrote them, -G outputs
#	OUTDIR/dof/	.SUNW_dof of -G outputs and of linked programs
#	OUTDIR/stapsdt/	.note.stapsdt of the same, and of <sys/sdt.h> programs
#	OUTDIR/prov/	provider files: fuzz/src, tests/data, the examples
#
# Nothing is committed: seeds are made from whatever this build's
# compiler and dtrace produce.  Environment: DTRACE, DTRACE_DRTI (drti.o),
# top_srcdir, CC (default cc), CXX (optional), OBJCOPY (default objcopy).
# Exit status 0 even when a variant cannot be built (it is skipped with
# a note on stderr), 1 when not even one object could be made.

set -u

out=${1:?usage: gen-corpus.sh OUTDIR}
: "${DTRACE:?DTRACE must name the dtrace binary}"
: "${DTRACE_DRTI:?DTRACE_DRTI must name drti.o}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${CXX:=}"
: "${OBJCOPY:=objcopy}"
export DTRACE_DRTI
unset CPP CFLAGS CPPFLAGS LDFLAGS

src=$top_srcdir/fuzz/src
mkdir -p "$out/elf" "$out/dof" "$out/stapsdt" "$out/prov" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/usdt-corpus.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

note() { echo "gen-corpus: $*" >&2; }

# sections NAME FILE: the DOF and the notes of FILE, if it has them
sections() {
	"$OBJCOPY" --dump-section .SUNW_dof="$out/dof/$1" "$2" \
		/dev/null 2>/dev/null || rm -f "$out/dof/$1"
	"$OBJCOPY" --dump-section .note.stapsdt="$out/stapsdt/$1" "$2" \
		/dev/null 2>/dev/null || rm -f "$out/stapsdt/$1"
}

cp "$src"/*.d "$top_srcdir"/tests/data/*.d \
	"$top_srcdir"/provider-examples/*.d "$out/prov/" 2>/dev/null

if ! "$DTRACE" -h -s "$src/probes.d" -o probes.h; then
	note "dtrace -h failed"
	exit 1
fi

made=0
# variant NAME CFLAGS...: sites.c built, rewritten, linked
variant() {
	name=$1
	shift
	if ! $CC "$@" -I. -c "$src/sites.c" -o "$name.o"; then
		note "$name: $CC $* failed; skipped"
		return
	fi
	cp "$name.o" "$out/elf/$name.o"
	if ! "$DTRACE" -G -s "$src/probes.d" -o "$name-probes.o" "$name.o"; then
		note "$name: dtrace -G failed; skipped"
		return
	fi
	cp "$name.o" "$out/elf/$name-G.o"
	cp "$name-probes.o" "$out/elf/$name-probes.o"
	sections "$name-probes" "$name-probes.o"
	case " $* " in
	*" -fPIC "*)
		$CC -shared "$name.o" "$name-probes.o" -o "$name.so" &&
			sections "$name-so" "$name.so" ;;
	*)
		$CC "$name.o" "$name-probes.o" -o "$name" &&
			sections "$name-exe" "$name" ;;
	esac
	made=$((made + 1))
}

variant O0 -O0
variant O2 -O2
variant O2-noplt -O2 -fno-plt
variant Os-pie -Os -fPIE
variant O3-pic -O3 -fPIC -DFZ_NO_MAIN

if [ -n "$CXX" ] && command -v "$CXX" >/dev/null 2>&1; then
	if $CXX -O2 -I. -c "$src/comdat.cc" -o comdat.o &&
		cp comdat.o "$out/elf/comdat.o" &&
		"$DTRACE" -G -s "$src/probes.d" -o comdat-probes.o comdat.o; then
		cp comdat.o "$out/elf/comdat-G.o"
		cp comdat-probes.o "$out/elf/comdat-probes.o"
		sections comdat-probes comdat-probes.o
	else
		note "comdat.cc: skipped"
	fi
fi

# aarch64 objects, where the cross compiler is (Debian's
# gcc-aarch64-linux-gnu): -G reads them through sdk/a64site.c, and its
# output needs a drti.o built for aarch64
a64cc=${A64_CC:-aarch64-linux-gnu-gcc}
if command -v "$a64cc" >/dev/null 2>&1 &&
	"$a64cc" -O2 -fPIC -I"$top_srcdir/sdk/include" \
		-c "$top_srcdir/drti/drti.c" -o drti-a64.o; then
	for v in "a64-O0 -O0" "a64-O2 -O2" "a64-O2-pic -O2 -fPIC -DFZ_NO_MAIN"; do
		# shellcheck disable=SC2086
		set -- $v
		name=$1
		shift
		$a64cc "$@" -I. -c "$src/sites.c" -o "$name.o" || continue
		cp "$name.o" "$out/elf/$name.o"
		DTRACE_DRTI="$DTRACE_DRTI:$work/drti-a64.o" "$DTRACE" -G \
			-s "$src/probes.d" -o "$name-probes.o" "$name.o" ||
			{ note "$name: dtrace -G failed; skipped"; continue; }
		cp "$name.o" "$out/elf/$name-G.o"
		cp "$name-probes.o" "$out/elf/$name-probes.o"
		sections "$name-probes" "$name-probes.o"
		made=$((made + 1))
	done
else
	note "no aarch64 cross compiler ($a64cc): no aarch64 seeds"
fi

if [ -f /usr/include/sys/sdt.h ] ||
	[ -f "/usr/include/$(uname -m)-linux-gnu/sys/sdt.h" ]; then
	for o in -O0 -O2; do
		$CC $o -c "$src/sdt.c" -o "sdt$o.o" &&
			$CC "sdt$o.o" -o "sdt$o" &&
			sections "sdt$o" "sdt$o"
	done
fi

if [ "$made" -eq 0 ]; then
	note "no object could be built"
	exit 1
fi
for h in elf dof stapsdt prov; do
	echo "gen-corpus: $h: $(ls "$out/$h" | wc -l) seeds"
done
exit 0
