#!/bin/sh
# SPDX-License-Identifier: MIT
#
# build-progs.sh DIR NAME...: the programs several tests trace, built
# into DIR.  make check builds them all once, into tests/progs
# (Makefile.am, TEST_PROGS), and the tests copy them from there
# (tests/lib.sh's trace_progs_copy); a test run without TEST_PROGS
# builds the ones it needs into its own directory with this script.
# One build each, so a test traces the same program either way:
#  trprog  tests/data/trace: trprog (provider tr) linked with libtrl.so
#          (trlib), and the plug-in trplug.so (trplug) it dlopen()s,
#          PIE, -O2; trprog finds libtrl.so beside it ($ORIGIN), so a
#          copy of the two runs wherever they are copied together;
#  sp      tests/data/spec: sp (provider sp), -lpthread;
#  cgout   tests/data/cgenout/cgout.c, no probes;
#  kpprog  tests/data/kprov/kpprog.c, no probes, not position-
#          independent (the tests take its addresses from nm),
#          -lpthread;
#  ut      tests/data/untouched: ut (provider ut), -O2, 8 MB of
#          .rodata (run-cgen-untouched.sh's only: built there).
# Needs DTRACE (its -h and -G: the dtrace under test, DTRACE_DRTI as it
# reads it), CC and top_srcdir.  Status 1 (what failed said by the
# compiler or dtrace) when one cannot be built.

bp_dir=$1
shift
cd "$bp_dir" || exit 1
bp_data=$top_srcdir/tests/data
for bp in "$@"; do
	case $bp in
	trprog)
		for bp_d in tr trlib trplug; do
			"$DTRACE" -h -s "$bp_data/trace/$bp_d.d" -o "$bp_d.h" ||
				exit 1
		done
		$CC -O2 -fPIC -I. -c "$bp_data/trace/trlib.c" -o trlib.o &&
			"$DTRACE" -G -s "$bp_data/trace/trlib.d" trlib.o \
				-o trlib-probes.o &&
			$CC -shared -o libtrl.so trlib.o trlib-probes.o &&
			$CC -O2 -fPIC -I. -c "$bp_data/trace/trplug.c" \
				-o trplug.o &&
			"$DTRACE" -G -s "$bp_data/trace/trplug.d" trplug.o \
				-o trplug-probes.o &&
			$CC -shared -o trplug.so trplug.o trplug-probes.o &&
			$CC -O2 -I. -c "$bp_data/trace/trprog.c" -o trprog.o &&
			"$DTRACE" -G -s "$bp_data/trace/tr.d" trprog.o \
				-o trprog-probes.o &&
			$CC -o trprog trprog.o trprog-probes.o -L. -ltrl \
				-Wl,-rpath,'$ORIGIN' -ldl -lpthread || exit 1
		;;
	sp)
		"$DTRACE" -h -s "$bp_data/spec/sp.d" -o sp.h &&
			$CC -O2 -I. -c "$bp_data/spec/sp.c" -o sp.o &&
			"$DTRACE" -G -s "$bp_data/spec/sp.d" sp.o \
				-o sp-probes.o &&
			$CC -o sp sp.o sp-probes.o -lpthread || exit 1
		;;
	cgout)
		$CC -O2 -o cgout "$bp_data/cgenout/cgout.c" || exit 1
		;;
	kpprog)
		$CC -O2 -fno-pie -no-pie -o kpprog \
			"$bp_data/kprov/kpprog.c" -lpthread || exit 1
		;;
	ut)
		"$DTRACE" -h -s "$bp_data/untouched/ut_probes.d" \
			-o ut_probes.h &&
			$CC -O2 -I. -c "$bp_data/untouched/ut.c" -o ut.o &&
			"$DTRACE" -G -s "$bp_data/untouched/ut_probes.d" ut.o \
				-o ut-probes.o &&
			$CC -o ut ut.o ut-probes.o || exit 1
		;;
	*)
		echo "build-progs.sh: no program named '$bp'" >&2
		exit 1
		;;
	esac
done
exit 0
