#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-installed.sh - build the out-of-tree example against an installed
# usdt-sdk, the way a project that uses it would, and check the result.
# Run by `make installcheck' (sdk/integration.am), which points the
# environment at the installed tree, $(DESTDIR) included:
#
#   DTRACE            the installed dtrace (what configure must find)
#   PKG_CONFIG_PATH   the installed usdt.pc (and PKG_CONFIG_SYSROOT_DIR
#                     with DESTDIR); ACLOCAL_PATH, usdt.m4's directory
#   usdt_cmake_dir    the installed usdtConfig.cmake's directory
#   usdt_includedir   the installed $(includedir)/usdt
#   top_srcdir, CC
#
# Nothing else of the source or build tree is used: the example is
# copied to a temporary directory, bootstrapped (the fragment copied from
# the pkg-config variable, usdt.m4 found by aclocal), configured and
# built out of its source tree.  Then:
#
#  - autotools, probes on: configure chose the installed dtrace, the
#    program runs and prints what it should, its notes (readelf -n) are
#    exactly greet's probes and libtally.so's and libtally.a's exactly
#    tally's; a second `make' does nothing;
#  - autotools, --disable-dtrace: the headers come from usdt.am's awk,
#    the same program runs with the same output and has no notes;
#    --enable-dtrace=yes with a dtrace that fails stops configure with a
#    message naming the failed step, `auto' goes on without probes;
#  - pkg-config --cflags usdt puts usdt-sdk's <sys/sdt.h> first (when
#    that header is installed);
#  - autotools with CFLAGS=-flto: the call style works (the -flto
#    objects' probes reach the header's stubs); the program runs and
#    has its notes;
#  - CMake (Unix Makefiles, and Ninja when present; a second build does
#    nothing), with INTERPROCEDURAL_OPTIMIZATION, and with USDT_PROBES=OFF;
#    meson (when both meson and ninja are present), also with
#    -Db_lto=true: the same program, output and notes.
#
# CMake and meson are skipped with a message when missing; autotools,
# pkg-config, a C compiler and readelf are required.

: "${top_srcdir:?top_srcdir must be set}"
: "${usdt_includedir:?usdt_includedir must name the installed include/usdt}"
: "${usdt_cmake_dir:?usdt_cmake_dir must name the installed cmake/usdt}"
# shellcheck source=../../tests/lib.sh
. "$top_srcdir/tests/lib.sh"

: "${PKG_CONFIG:=pkg-config}"
[ -n "$PKG_CONFIG" ] || PKG_CONFIG=pkg-config
src=$top_srcdir/provider-examples/external

for t in "$CC" "$PKG_CONFIG" autoreconf readelf make; do
	command -v "$t" >/dev/null 2>&1 || skip "no $t"
done
case $(uname -m) in
x86_64) ;;
*) skip "dtrace -G rewrites x86-64 objects; this is $(uname -m)" ;;
esac

# step WHAT LOG COMMAND...: run COMMAND with its output in LOG; a
# failure shows the end of the log
step() {
	st_what=$1 st_log=$2
	shift 2
	if "$@" >"$st_log" 2>&1; then
		pass
		return 0
	fi
	fail "$st_what: $*"
	tail -n 40 "$st_log" | sed 's/^/    | /' >&2
	return 1
}

# notes FILE: the "provider:name" pairs the stapsdt notes name, sorted,
# once each (a probe has a note per site, and one for the header's stub)
notes() {
	readelf -n "$1" 2>/dev/null | awk '
		/^ *stapsdt/ { s = 1; next }
		s && /Provider:/ { p = $2 }
		s && /Name:/ { print p ":" $2; s = 0 }' | LC_ALL=C sort -u
}

# expect_notes WHAT FILE EXPECTED...
expect_notes() {
	en_what=$1 en_file=$2
	shift 2
	: >expected-notes.txt
	[ $# -eq 0 ] || printf '%s\n' "$@" >expected-notes.txt
	notes "$en_file" >notes.txt
	expect_file_eq "$en_what: stapsdt notes of $en_file" \
		expected-notes.txt notes.txt
}

cat >expected-out.txt <<'EOF'
hello, world
hello, tracer
hello, reader
hello, world
4 greetings, 22 letters
EOF

# expect_runs WHAT PROGRAM: the program's output, with 4 greetings
expect_runs() {
	if "$2" 4 >out.txt 2>err.txt; then
		pass
		expect_file_eq "$1: output" expected-out.txt out.txt
	else
		fail "$1: $2 4 exited with $?"
		sed 's/^/    | /' err.txt >&2
	fi
}

# expect_greet_notes WHAT FILE: FILE has exactly greet's probes
expect_greet_notes() {
	expect_notes "$1" "$2" greet:checksum greet:done greet:hello
}

# configure must find the installed dtrace by itself (through pkg-config),
# not because it is in the environment; lib.sh needed it set.
installed_dtrace=$DTRACE
unset DTRACE DTRACEFLAGS

# ---------------------------------------------------------------------
# The SDK as pkg-config describes it

pc_dtrace=$($PKG_CONFIG --variable=dtrace usdt 2>/dev/null)
expect_eq "pkg-config --variable=dtrace usdt" "$installed_dtrace" "$pc_dtrace"
for v in drti aclocaldir automake_fragment cmakedir; do
	p=$($PKG_CONFIG --variable=$v usdt 2>/dev/null)
	if [ -n "$p" ] && [ -e "$p" ]; then
		pass
	else
		fail "pkg-config --variable=$v usdt: '$p' does not exist"
	fi
done
expect_eq "pkg-config --cflags usdt" "-I$usdt_includedir" \
	"$($PKG_CONFIG --cflags usdt 2>/dev/null | sed 's/ *$//')"

if [ -f "$usdt_includedir/sys/sdt.h" ]; then
	printf '#include <sys/sdt.h>\n' >sdt.c
	# shellcheck disable=SC2046
	if $CC $($PKG_CONFIG --cflags usdt) -M sdt.c >sdt.dep 2>&1; then
		expect_grep "<sys/sdt.h> is usdt-sdk's" \
			"$usdt_includedir/sys/sdt.h" sdt.dep
	else
		fail "#include <sys/sdt.h> with pkg-config --cflags usdt"
		sed 's/^/    | /' sdt.dep >&2
	fi
else
	echo "# $usdt_includedir/sys/sdt.h is not installed: not checked"
fi

# ---------------------------------------------------------------------
# autotools: bootstrap from the installed fragment and macro

mkdir proj
cp "$src"/* proj/
chmod u+w proj/*
if ! step "bootstrap" bootstrap.log sh proj/bootstrap; then
	finish
fi
if [ -f proj/m4/usdt.m4 ]; then
	pass
else
	fail "aclocal --install did not copy usdt.m4 into the project's m4/"
fi
if cmp -s proj/build-aux/usdt.am \
	"$($PKG_CONFIG --variable=automake_fragment usdt)"; then
	pass
else
	fail "bootstrap did not copy the installed usdt.am"
fi

# probes on, built outside the source tree (VPATH), as users do
mkdir on
if (cd on && step "configure --enable-dtrace=yes" ../configure-on.log \
	../proj/configure --enable-dtrace=yes) &&
	step "make (probes on)" make-on.log make -C on; then
	expect_grep "configure chose the installed dtrace" \
		"^DTRACE = $installed_dtrace\$" on/Makefile
	expect_grep "config.h-less HAVE_DTRACE" "-DHAVE_DTRACE=1" on/Makefile
	expect_runs "autotools, probes on" on/greet
	expect_greet_notes "autotools" on/greet
	expect_notes "autotools" on/.libs/libtally.so "tally:add"
	if [ -f on/.libs/libtally.a ]; then
		expect_notes "autotools" on/.libs/libtally.a "tally:add"
	fi
	# -G rewrote the program's object: no relocation in its code against
	# a probe function is left but the neutralised ones (R_X86_64_NONE);
	# the stubs' own notes refer to the stubs
	readelf -rW on/greet.o | awk '/^Relocation section/ { sec = $3 }
		sec !~ /note/ && /__dtrace_greet___/' >relocs.txt
	expect_eq "greet.o: rewritten probe sites" 3 \
		"$(grep -c R_X86_64_NONE relocs.txt)"
	expect_eq "greet.o: other relocations to probe functions" 0 \
		"$(grep -vc R_X86_64_NONE relocs.txt)"
	make -C on V=1 >make-again.log 2>&1
	if grep -E 'dtrace|-o greet|libtally.la ' make-again.log >redo.txt; then
		fail "a second make rebuilt something:"
		sed 's/^/    | /' redo.txt >&2
	else
		pass
	fi
fi

# probes off: the awk header, the empty probe object
mkdir off
if (cd off && step "configure --disable-dtrace" ../configure-off.log \
	../proj/configure --disable-dtrace) &&
	step "make (probes off)" make-off.log make -C off; then
	expect_grep "the stub header" "Generated from .*greet-provider.d by usdt.am" \
		off/greet-provider.h
	expect_runs "autotools, probes off" off/greet
	expect_notes "autotools, probes off" off/greet
	expect_notes "autotools, probes off" off/.libs/libtally.so
fi

# -flto: the plain check passes (the probe calls of -flto objects reach
# the header's stubs, and -G leaves those objects alone), so configure
# keeps the call style and gives -G the objects.  (probestyle.h tells
# the meson part below whether this dtrace has inline probes.)
"$installed_dtrace" -x probestyle=inline -h -s "$src/tally-provider.d" \
	-o probestyle.h >probestyle.log 2>&1 || rm -f probestyle.h
if mkdir lto && (cd lto && step "configure CFLAGS=-flto" \
	../configure-lto.log ../proj/configure CFLAGS="-O2 -flto") &&
	step "make (-flto)" make-lto.log make -C lto; then
	expect_grep "-flto: the call style" "^DTRACEFLAGS = *\$" lto/Makefile
	expect_grep "-flto: -G is given the objects" "^USDT_LTO = no\$" \
		lto/Makefile
	expect_runs "autotools, -flto" lto/greet
	expect_greet_notes "autotools, -flto" lto/greet
	expect_notes "autotools, -flto" lto/.libs/libtally.so "tally:add"
	# the user chose inline probes: kept, once
	if (cd lto && DTRACEFLAGS='-x probestyle=inline' ../proj/configure \
		CFLAGS="-O2 -flto" >../configure-lto2.log 2>&1); then
		expect_grep "-flto, DTRACEFLAGS given: not added twice" \
			"^DTRACEFLAGS = -x probestyle=inline\$" lto/Makefile
	else
		fail "configure DTRACEFLAGS='-x probestyle=inline' CFLAGS=-flto"
		tail -n 20 configure-lto2.log | sed 's/^/    | /' >&2
	fi
fi

# a dtrace that does not work: `yes' stops, `auto' goes on without
mkdir bad
if (cd bad && DTRACE=false ../proj/configure --enable-dtrace=yes \
	>../configure-bad.log 2>&1); then
	fail "configure --enable-dtrace=yes DTRACE=false succeeded"
else
	expect_grep "--enable-dtrace=yes: the step that failed" \
		"error: --enable-dtrace was given, but .[^ ]*false -h' failed" \
		configure-bad.log
fi
if (cd bad && DTRACE=false ../proj/configure >../configure-auto.log 2>&1); then
	expect_grep "--enable-dtrace=auto: a warning" \
		"WARNING: building without USDT probes" configure-auto.log
	expect_grep "--enable-dtrace=auto: probes off" \
		"USDT probes: no" configure-auto.log
else
	fail "configure (auto) with DTRACE=false failed"
	tail -n 20 configure-auto.log | sed 's/^/    | /' >&2
fi

# ---------------------------------------------------------------------
# CMake, with each generator there is

if ! command -v cmake >/dev/null 2>&1; then
	echo "# no cmake: the CMake variant is not checked"
else
	gens="Unix Makefiles"
	command -v ninja >/dev/null 2>&1 && gens="$gens:Ninja"
	IFS=:
	for gen in $gens; do
		unset IFS
		b=cmake-$(echo "$gen" | tr -c 'A-Za-z\n' -)
		if step "cmake -G '$gen'" "$b-configure.log" \
			cmake -S "$src" -B "$b" -G "$gen" \
			-Dusdt_DIR="$usdt_cmake_dir" -DCMAKE_BUILD_TYPE=Release &&
			step "cmake --build ($gen)" "$b-build.log" \
				cmake --build "$b"; then
			expect_runs "CMake ($gen)" "$b/greet"
			expect_greet_notes "CMake ($gen)" "$b/greet"
			expect_notes "CMake ($gen)" "$b/libtally.so" "tally:add"
			cmake --build "$b" >"$b-again.log" 2>&1
			if grep -E 'dtrace|Linking' "$b-again.log" >redo.txt; then
				# Ninja may relink once: -G changed the objects
				# while the link command ran
				cmake --build "$b" >"$b-third.log" 2>&1
				if grep -E 'dtrace|Linking' "$b-third.log" >redo.txt; then
					fail "CMake ($gen): builds never settle:"
					sed 's/^/    | /' redo.txt >&2
				else
					pass
				fi
			else
				pass
			fi
		fi
		IFS=:
	done
	unset IFS

	# INTERPROCEDURAL_OPTIMIZATION: inline probes, -G without objects
	b=cmake-lto
	if [ ! -f probestyle.h ]; then
		echo "# no -x probestyle=inline: CMake with LTO is not checked"
	elif step "cmake -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON" \
		"$b-configure.log" cmake -S "$src" -B "$b" \
		-Dusdt_DIR="$usdt_cmake_dir" \
		-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON &&
		step "cmake --build (LTO)" "$b-build.log" \
			cmake --build "$b" -v; then
		expect_grep "CMake, LTO: inline probes" \
			"-xprobestyle=inline -h" "$b-build.log"
		expect_runs "CMake, LTO" "$b/greet"
		expect_greet_notes "CMake, LTO" "$b/greet"
		expect_notes "CMake, LTO" "$b/libtally.so" "tally:add"
	fi

	b=cmake-off
	if step "cmake -DUSDT_PROBES=OFF" "$b-configure.log" \
		cmake -S "$src" -B "$b" -Dusdt_DIR="$usdt_cmake_dir" \
		-DUSDT_PROBES=OFF &&
		step "cmake --build (probes off)" "$b-build.log" \
			cmake --build "$b"; then
		expect_runs "CMake, probes off" "$b/greet"
		expect_notes "CMake, probes off" "$b/greet"
	fi
fi

# ---------------------------------------------------------------------
# meson (doc/meson.md's recipe)

if ! command -v meson >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
	echo "# no meson or ninja: the meson variant is not checked"
else
	if step "meson setup" meson-setup.log meson setup meson-b "$src" &&
		step "meson compile" meson-build.log meson compile -C meson-b; then
		expect_runs "meson" meson-b/greet
		expect_greet_notes "meson" meson-b/greet
		expect_notes "meson" meson-b/libtally.so "tally:add"
	fi
	if [ ! -f probestyle.h ]; then
		echo "# no -x probestyle=inline: meson with LTO is not checked"
	elif step "meson setup -Db_lto=true" meson-lto-setup.log \
		meson setup -Db_lto=true meson-lto "$src" &&
		step "meson compile (LTO)" meson-lto-build.log \
			meson compile -C meson-lto; then
		expect_runs "meson, LTO" meson-lto/greet
		expect_greet_notes "meson, LTO" meson-lto/greet
	fi
fi

finish
