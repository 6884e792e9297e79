#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuzz.sh - `make fuzz`: build the harnesses with clang and libFuzzer, make
# seed corpora from real objects, and fuzz each harness for a while.
#
#	fuzz.sh [HARNESS...]		(default: dof prov elf stapsdt)
#
# Run by the `fuzz` target of fuzz/fuzz.am, from the top build directory,
# with the environment it sets: FUZZ_CC (clang), FUZZ_TIME (seconds per
# harness), FUZZ_JOBS (harnesses at once), top_srcdir, LIBELF_CFLAGS,
# LIBELF_LIBS, OPCODES_CFLAGS, DRTI_PATH, and DTRACE, DTRACE_DRTI, CC, CXX
# for the seeds (fuzz/gen-corpus.sh).
#
# Layout under fuzz/work/ in the build directory (never in the source
# tree's fuzz/seeds or fuzz/regress, even in an in-tree build):
#	obj/, bin/fuzz-HARNESS	the clang build (rebuilt when a source moves)
#	seeds/HARNESS/		seeds made from real objects, each run
#	corpus/HARNESS/		what libFuzzer found, kept between runs
#	artifacts/HARNESS/	crash-*, timeout-*, leak-*, oom-* inputs
#	HARNESS.log		libFuzzer's output
#
# Each harness also reads the committed fuzz/seeds/HARNESS/ and
# fuzz/regress/HARNESS/ of the source tree.  The harnesses are built with
# AddressSanitizer and UndefinedBehaviorSanitizer (-fno-sanitize-recover,
# so any report is a crash), and run with -timeout=10 so that a hang
# counts too.  Exit status 1 if any harness crashed, leaked, hung or
# could not be built; the input that did it is named, to be fixed and
# then copied into fuzz/regress/HARNESS/, where `make check` replays it.

set -u

: "${FUZZ_CC:?FUZZ_CC must name clang with libFuzzer (configure looks for it)}"
: "${FUZZ_TIME:=60}"
: "${FUZZ_JOBS:=$(nproc 2>/dev/null || echo 1)}"
: "${top_srcdir:?top_srcdir must be set}"
: "${LIBELF_CFLAGS:=}"
: "${LIBELF_LIBS:=-lelf}"
: "${OPCODES_CFLAGS:=}"
: "${DRTI_PATH:=drti.o}"

harnesses=${*:-dof prov elf stapsdt}
f=fuzz/work
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-g -O1 -fno-omit-frame-pointer $san -I. -I$top_srcdir/sdk -I$top_srcdir/sdk/include"
cflags="$cflags -I$top_srcdir/dtrace-G -I$top_srcdir/fuzz"
cflags="$cflags $LIBELF_CFLAGS $OPCODES_CFLAGS"

say() { echo "fuzz: $*"; }

# -------------------------------------------------------------------
# Build: every library source once into obj/, then one binary per
# harness.  The library is compiled with -fsanitize=fuzzer-no-link so
# libFuzzer sees its coverage; the harness gets the libFuzzer main.

lib_sources="sdk/prov_lex.c sdk/prov_parse.c sdk/prov_parse_type.c
	sdk/prov_names.c sdk/prov_types.c sdk/prov_input.c sdk/prov_header.c
	sdk/outfile.c sdk/dof_build.c sdk/dof_check.c sdk/elfw.c sdk/elfsec.c
	sdk/site.c sdk/a64site.c sdk/x86site.c sdk/stapsdt.c sdk/objfile.c
	dtrace-G/link/link.c dtrace-G/link/link_sites.c dtrace-G/link/link_out.c"

build() {
	mkdir -p $f/obj $f/bin || return 1
	stamp=$f/obj/stamp
	if [ -f "$stamp" ] && [ -z "$(find "$top_srcdir/sdk" \
		"$top_srcdir/dtrace-G" "$top_srcdir/fuzz" config.h \
		-newer "$stamp" \( -name '*.[ch]' -o -name config.h \) \
		2>/dev/null | head -n 1)" ]; then
		return 0
	fi
	say "building the harnesses with $FUZZ_CC"
	rm -f $f/obj/*.o $f/obj/libfuzz.a "$stamp"
	pids=
	for s in $lib_sources; do
		o=$f/obj/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')
		# shellcheck disable=SC2086
		$FUZZ_CC $cflags -fsanitize=fuzzer-no-link \
			-DDRTI_PATH="\"$DRTI_PATH\"" \
			-DDRTI_AARCH64_PATH="\"${DRTI_PATH%drti.o}drti-aarch64.o\"" \
			-c "$top_srcdir/$s" -o "$o" &
		pids="$pids $!"
	done
	ok=yes
	for p in $pids; do wait "$p" || ok=no; done
	[ $ok = yes ] || { say "compiling the library failed"; return 1; }
	${AR:-ar} rcs $f/obj/libfuzz.a $f/obj/*.o || return 1
	for h in dof prov elf stapsdt; do
		# shellcheck disable=SC2086
		$FUZZ_CC $cflags -fsanitize=fuzzer \
			-DFUZZ_PROVIDER_D="\"$top_srcdir/fuzz/src/probes.d\"" \
			"$top_srcdir/fuzz/fuzz-$h.c" $f/obj/libfuzz.a \
			$LIBELF_LIBS -ldl -o $f/bin/fuzz-$h || return 1
	done
	touch "$stamp"
}

# -------------------------------------------------------------------
# Run one harness for FUZZ_TIME seconds; report what it did.

run() {
	h=$1
	log=$f/$h.log
	mkdir -p $f/corpus/$h $f/artifacts/$h
	extra=
	case $h in
	prov) extra="-dict=$top_srcdir/fuzz/prov.dict -max_len=4096" ;;
	stapsdt) extra="-dict=$top_srcdir/fuzz/stapsdt.dict -max_len=4096" ;;
	elf) extra="-max_len=16384" ;;
	dof) extra="-max_len=8192" ;;
	esac
	# -close_fd_mask=2: the harnesses' own messages (dtrace -G's refusals)
	# go nowhere; libFuzzer's and the sanitizers' reports still show.
	# shellcheck disable=SC2086
	$f/bin/fuzz-$h -max_total_time="$FUZZ_TIME" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=2 \
		-artifact_prefix=$f/artifacts/$h/ $extra \
		$f/corpus/$h $f/seeds/$h "$top_srcdir/fuzz/seeds/$h" \
		"$top_srcdir/fuzz/regress/$h" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n \
		's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/\1 \2 \3/p')
	set -- $cov
	[ $# -eq 3 ] && cov="$1 edges, $2 features, $3 inputs in the corpus"
	if [ "$rc" -ne 0 ]; then
		say "$h: FAILED (exit $rc); the end of $log:"
		tail -n 40 "$log" | sed 's/^/    /'
		for a in $f/artifacts/$h/*; do
			[ -f "$a" ] && say "$h: input: $a"
		done
		say "$h: fix it, then copy the input into the source tree's fuzz/regress/$h/"
		return 1
	fi
	say "$h: ok: ${execs:-?} runs in ${FUZZ_TIME}s (${speed:-?}/s), coverage ${cov:-?}"
}

build || { say "build failed"; exit 1; }

say "making seeds from real objects"
rm -rf $f/seeds
sh "$top_srcdir/fuzz/gen-corpus.sh" $f/seeds >$f/seeds.log 2>&1 || {
	cat $f/seeds.log
	say "seed corpus failed"
	exit 1
}
# -G outputs carry drti.o: big, and not what -G reads
rm -f $f/seeds/elf/*-probes.o

failed=0
n=0
pids=
for h in $harnesses; do
	run "$h" >$f/$h.result 2>&1 &
	pids="$pids $!"
	n=$((n + 1))
	if [ "$n" -ge "$FUZZ_JOBS" ]; then
		for p in $pids; do wait "$p" || failed=1; done
		pids=
		n=0
	fi
done
for p in $pids; do wait "$p" || failed=1; done
for h in $harnesses; do
	cat $f/$h.result
done
exit $failed
