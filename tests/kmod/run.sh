#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run.sh - `make check-kmod`: the kernel helper module (helper-driver/kmod)
# tested in a qemu guest, because the machines this project is built on
# may not load modules at all (CONFIG_MODULES off, no KVM for a stock
# kernel).  A Debian kernel boots under qemu's TCG emulation in seconds.
#
#  1. Tools: qemu-system-x86_64, a static busybox, cpio, the kernel
#     headers.  As root with apt-get, what is missing is installed
#     (qemu-system-x86, cpio, linux-headers-amd64); a static busybox is
#     unpacked from busybox-static into the cache when the system's is not
#     static, so the machine's own busybox package is left alone.
#  2. Kernel: the version of the installed headers (linux-headers-amd64's
#     dependency, else the newest /usr/src/linux-headers-*-amd64); its
#     image is fetched with `apt-get download linux-image-VER` (nothing
#     installed) and only boot/vmlinuz-VER is kept, in the cache
#     ($KMOD_CACHE, default ~/.cache/usdt-sdk/kmod).
#  3. Modules, built against those headers with their objects in the
#     work directory (the source tree stays clean and may be read only):
#     tests/kmod/selftest (the harness's own trivial module, from a copy)
#     and helper-driver/kmod (its Makefile's BUILD=: dtrace_helper.ko and
#     dtrace_fasttrap.ko), if it exists.
#  4. Test programs: tests/data/helperd's ctl, libhdl.so and plug.so,
#     tests/data/trace's trprog, libtrl.so and trplug.so, and
#     tests/kmod/legacy, tests/data/fork's fsrv (a forking server) and
#     fsrv2 (the probed program its children exec), tests/data/kargs's
#     ka (typed arguments), tests/data/spec's sp (transactions on
#     threads), tests/data/cgre's preempt (threads on one CPU),
#     built with the build tree's dtrace -h/-G and
#     drti.o, and tests/kmod/ftcheck, plus the dtrace binary; each with
#     the shared libraries ldd names and the dynamic loader.
#  5. An initramfs (cpio newc, gzip): busybox, /init (tests/kmod/init),
#     the steps (tests/kmod/steps*.sh), /kmod/env saying what was built,
#     and tests/run-trace.sh, run-kagg.sh, run-kagg-fn.sh,
#     run-kagg-tick.sh, run-kagg-ival.sh, run-kagg-args.sh, run-cgen-spec.sh,
#     run-cgen-preempt.sh and lib.sh under /kt/src.
#  6. Boot: qemu -accel tcg, serial console to a file, under `timeout`.
#     qemu's exit status says nothing about the guest: the verdict is in
#     the serial log.  It fails without a "KMOD-VERDICT pass" line, with
#     any "KMOD-TEST not ok", or with a kernel oops, BUG, WARNING, call
#     trace or general protection fault anywhere in the log (the guest
#     also prints its dmesg there).
#
# Environment: top_srcdir, top_builddir, DTRACE, DTRACE_DRTI, CC,
# HAVE_BPF (as in make check); optional KMOD_CACHE, KMOD_WORK (default
# $top_builddir/tests/kmod/work, kept for inspection: serial.log is the
# guest's console), KMOD_KVER (kernel version), KMOD_TIMEOUT (seconds for
# the guest, default 1200: the BPF steps alone took about 270 s on an
# idle 2-vCPU host under TCG before run-kagg-fn.sh, run-kagg-tick.sh and
# the kernel-probe exit() steps came, and a loaded host doubles it;
# run-cgen-spec.sh alone took 87 s at a load of 8),
# KMOD_QEMU_ACCEL (default tcg),
# KMOD_SELFTEST_WARN=1 (the self-test module WARNs: the run must fail).
# To iterate on some steps alone: KMOD_STEPS (the steps files
# the guest runs, default every tests/kmod/steps*.sh: e.g.
# KMOD_STEPS=steps-trace.sh), KMOD_BPF_ONLY (in steps-bpf.sh:
# "preempt", run-cgen-preempt.sh under preempt=full alone; "spec",
# run-cgen-spec.sh alone),
# KMOD_FT_ONLY (in steps-trace.sh: "fork",
# the forking server's checks only, or "exec", fork then exec only),
# KMOD_FT_ROUNDS (rounds of each fork check, default 3) and KMOD_SMP
# (the guest's CPUs, default 1; 2 makes races likelier).  A run so
# narrowed is no verdict on the whole: `make check-kmod` runs them all.
#
# Exit status: 0 pass, 1 fail, 77 skip (a facility this machine lacks:
# no network for the kernel, no qemu package).  The last line says which:
# "check-kmod: PASS", "check-kmod: FAIL: why", "check-kmod: SKIP: why".

set -u
export LC_ALL=C
: "${top_srcdir:?top_srcdir must be set}"
: "${top_builddir:?top_builddir must be set}"
: "${DTRACE:?DTRACE must name the dtrace binary}"
: "${DTRACE_DRTI:?DTRACE_DRTI must name drti.o}"
: "${CC:=cc}"
export DTRACE DTRACE_DRTI CC
unset CFLAGS CPPFLAGS CPP

kt_src=$top_srcdir/tests/kmod
work=${KMOD_WORK:-$top_builddir/tests/kmod/work}
guest_timeout=${KMOD_TIMEOUT:-1200}
accel=${KMOD_QEMU_ACCEL:-tcg}
steps=${KMOD_STEPS:-}
smp=${KMOD_SMP:-1}

say() { echo "check-kmod: $*"; }
skip() {
	say "SKIP: $*"
	exit 77
}
die() {
	say "FAIL: $*"
	exit 1
}
# elapsed SINCE: seconds since SINCE (date +%s)
elapsed() { echo $(($(date +%s) - $1)); }

t_start=$(date +%s)
case $(uname -m) in
x86_64) ;;
*) skip "the guest is x86-64; this is $(uname -m)" ;;
esac

root=no
[ "$(id -u)" -eq 0 ] && root=yes

if [ -z "${KMOD_CACHE:-}" ]; then
	KMOD_CACHE=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/usdt-sdk/kmod
	mkdir -p "$KMOD_CACHE" 2>/dev/null ||
		KMOD_CACHE=$top_builddir/tests/kmod/cache
fi
mkdir -p "$KMOD_CACHE" || die "cannot create the cache $KMOD_CACHE"


# apt_install, apt_fetch, is_static, guest_verdict
. "$kt_src/guest-lib.sh"

rm -rf "$work" "$work.apt.log"
mkdir -p "$work" || die "cannot create $work"

# ---------------------------------------------------------------------
# 1. Tools

t0=$(date +%s)
missing=
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing="$missing qemu-system-x86"
command -v cpio >/dev/null 2>&1 || missing="$missing cpio"
if [ -n "${KMOD_KVER:-}" ]; then
	[ -d "/usr/src/linux-headers-$KMOD_KVER" ] ||
		missing="$missing linux-headers-$KMOD_KVER"
elif ! ls -d /usr/src/linux-headers-*-amd64 >/dev/null 2>&1; then
	missing="$missing linux-headers-amd64"
fi
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	if ! apt_install $missing; then
		[ -f "$work.apt.log" ] && tail -n 5 "$work.apt.log"
		if [ "$root" = yes ]; then
			skip "missing and not installable with apt-get:$missing"
		fi
		skip "missing:$missing (install them, or run as root)"
	fi
fi
for t in qemu-system-x86_64 cpio gzip make dpkg-deb; do
	command -v "$t" >/dev/null 2>&1 || skip "no $t"
done
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"

# A static busybox: the system's if static, else unpacked from the
# busybox-static package into the cache.
busybox=
for b in "$(command -v busybox 2>/dev/null)" /bin/busybox \
	"$KMOD_CACHE/busybox"; do
	if [ -n "$b" ] && is_static "$b"; then
		busybox=$b
		break
	fi
done
if [ -z "$busybox" ]; then
	mkdir -p "$work/bb"
	apt_fetch busybox-static "$work/bb" ||
		skip "no static busybox and apt-get download busybox-static failed"
	dpkg-deb -x "$work"/bb/busybox-static_*.deb "$work/bb/x" &&
		cp "$work/bb/x/bin/busybox" "$KMOD_CACHE/busybox" ||
		die "cannot unpack busybox-static"
	busybox=$KMOD_CACHE/busybox
fi

# ---------------------------------------------------------------------
# 2. The kernel matching the headers

kver=${KMOD_KVER:-}
if [ -z "$kver" ]; then
	kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
	[ -d "/usr/src/linux-headers-$kver" ] ||
		kver=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null |
			sed 's|^/usr/src/linux-headers-||' | sort -V | tail -n 1)
fi
kdir=/usr/src/linux-headers-$kver
[ -n "$kver" ] && [ -f "$kdir/Makefile" ] ||
	skip "no kernel headers under /usr/src (linux-headers-amd64)"
say "kernel $kver (headers $kdir)"

# cached by version and package revision: a rebuilt package of the same
# version has other symbol CRCs, which a module built against it needs
hver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null)
vmlinuz=$KMOD_CACHE/$kver${hver:+_$hver}/vmlinuz
if [ ! -s "$vmlinuz" ]; then
	mkdir -p "$work/deb" "$(dirname "$vmlinuz")"
	if ! { [ -n "$hver" ] &&
		apt_fetch "linux-image-$kver=$hver" "$work/deb"; } &&
		! apt_fetch "linux-image-$kver" "$work/deb" &&
		! apt_fetch "linux-image-$kver-unsigned" "$work/deb"; then
		tail -n 5 "$work.apt.log"
		skip "cannot download linux-image-$kver (no network or no such package?)"
	fi
	deb=$(ls "$work"/deb/linux-image-*.deb | head -n 1)
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$work/deb" "./boot/vmlinuz-$kver" ||
		die "no boot/vmlinuz-$kver in $deb"
	mv "$work/deb/boot/vmlinuz-$kver" "$vmlinuz.tmp" &&
		mv "$vmlinuz.tmp" "$vmlinuz" || die "cannot write $vmlinuz"
	rm -rf "$work/deb"
	say "downloaded $(basename "$deb") ($(elapsed "$t0") s)"
fi
t_tools=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 3. Modules

t0=$(date +%s)
# built MAKE_LOG KO: $module is KO if it was built, else the log shows
built() {
	module=$2
	[ -f "$module" ] && return 0
	sed 's/^/    | /' "$1" | tail -n 40
	return 1
}

# The self-test module: kbuild with M= a copy of its directory.
rm -rf "$work/selftest"
cp -R "$kt_src/selftest" "$work/selftest" &&
	make -C "$kdir" M="$work/selftest" modules >"$work/selftest.log" 2>&1
built "$work/selftest.log" "$work/selftest/kmod_selftest.ko" ||
	die "the harness's self-test module does not build against $kdir"
selftest=$module

# The helper module: its own Makefile, objects in BUILD= (outside the
# source tree).
helper_why=
helper=
fasttrap=
hsrc=$top_srcdir/helper-driver/kmod
if [ -f "$hsrc/Makefile" ]; then
	make -C "$hsrc" KDIR="$kdir" BUILD="$work/kmod" \
		>"$work/kmod.log" 2>&1
	built "$work/kmod.log" "$work/kmod/dtrace_helper.ko" ||
		die "helper-driver/kmod does not build against $kdir"
	helper=$module
	built "$work/kmod.log" "$work/kmod/dtrace_fasttrap.ko" ||
		die "helper-driver/kmod: no dtrace_fasttrap.ko for $kdir"
	fasttrap=$module
else
	helper_why="helper-driver/kmod is not in this tree yet"
fi
t_modules=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 4. Test programs, with what they need to run

t0=$(date +%s)
mkdir -p "$work/progs"
(
	cd "$work/progs" || exit 1
	fail() { echo "$*" >&2; }
	finish() { exit 1; }
	# shellcheck disable=SC1091
	. "$top_srcdir/tests/helperd-lib.sh"
	build_helperd_progs
	# the tracing programs of tests/run-trace.sh and the others
	# (trprog, libtrl.so, trplug.so; sp), as make check builds them
	sh "$top_srcdir/tests/build-progs.sh" . trprog sp || exit 1
	# legacy (lg)
	$CC -O2 -c "$kt_src/legacy.c" -o legacy.o &&
		"$DTRACE" -G -s "$kt_src/legacy.d" legacy.o -o legacy-probes.o &&
		$CC -o legacy legacy.o legacy-probes.o &&
		$CC -O2 -I"$top_srcdir/sdk/include" -o ftcheck "$kt_src/ftcheck.c" &&
		"$DTRACE" -h -s "$top_srcdir/tests/data/fork/srv.d" -o srv.h &&
		$CC -O2 -I. -I"$top_srcdir/sdk/include" \
			-c "$top_srcdir/tests/data/fork/fsrv.c" -o fsrv.o &&
		"$DTRACE" -G -s "$top_srcdir/tests/data/fork/srv.d" fsrv.o \
			-o fsrv-probes.o &&
		$CC -o fsrv fsrv.o fsrv-probes.o -lpthread &&
		$CC -O2 -I. -DFSRV_EXECD \
			-c "$top_srcdir/tests/data/fork/fsrv.c" -o fsrv2.o &&
		"$DTRACE" -G -s "$top_srcdir/tests/data/fork/srv.d" fsrv2.o \
			-o fsrv2-probes.o &&
		$CC -o fsrv2 fsrv2.o fsrv2-probes.o -lpthread &&
		$CC -O2 -fomit-frame-pointer -o kstk \
			"$top_srcdir/tests/data/kstack/kstk.c" &&
		"$DTRACE" -h -s "$top_srcdir/tests/data/copyout/cpout.d" \
			-o cpout.h &&
		$CC -O2 -I. -c "$top_srcdir/tests/data/copyout/cpout.c" \
			-o cpout.o &&
		"$DTRACE" -G -s "$top_srcdir/tests/data/copyout/cpout.d" \
			cpout.o -o cpout-probes.o &&
		$CC -o cpout cpout.o cpout-probes.o &&
		"$DTRACE" -h -s "$top_srcdir/tests/data/kargs/ka.d" -o ka.h &&
		$CC -O2 -I. -c "$top_srcdir/tests/data/kargs/ka.c" -o ka.o &&
		"$DTRACE" -G -s "$top_srcdir/tests/data/kargs/ka.d" ka.o \
			-o ka-probes.o &&
		$CC -o ka ka.o ka-probes.o &&
		$CC -O2 -o preempt "$top_srcdir/tests/data/cgre/preempt.c" \
			-lpthread ||
		exit 1
) >"$work/progs.log" 2>&1 || {
	sed 's/^/    | /' "$work/progs.log"
	die "building the test programs with $DTRACE"
}
t_progs=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 5. The initramfs

t0=$(date +%s)
rd=$work/root
mkdir -p "$rd/bin" "$rd/kt" "$rd/kmod" "$rd/lib64" || die "mkdir $rd"
cp "$busybox" "$rd/bin/busybox" &&
	cp "$kt_src/init" "$rd/init" &&
	chmod 755 "$rd/init" "$rd/bin/busybox" &&
	if [ -n "$steps" ]; then
		for s in $steps; do cp "$kt_src/$s" "$rd/kmod/" || exit 1; done
	else
		cp "$kt_src"/steps*.sh "$rd/kmod/"
	fi &&
	cp "$selftest" "$rd/kmod/" || die "populating $rd"
{
	echo "KMOD_SELFTEST=/kmod/$(basename "$selftest")"
	echo "KMOD_SELFTEST_ARGS=${KMOD_SELFTEST_WARN:+warn=1}"
	if [ -n "$helper" ]; then
		cp "$helper" "$rd/kmod/" || die "copying $helper"
		echo "KMOD_HELPER=/kmod/$(basename "$helper")"
		echo "KMOD_HELPER_WHY="
		cp "$fasttrap" "$rd/kmod/" || die "copying $fasttrap"
		echo "KMOD_FASTTRAP=/kmod/$(basename "$fasttrap")"
	else
		echo "KMOD_HELPER="
		echo "KMOD_HELPER_WHY='$helper_why'"
		echo "KMOD_FASTTRAP="
	fi
} >"$rd/kmod/env"

cp "$DTRACE" "$rd/kt/dtrace" &&
	cp "$work/progs/ctl" "$work/progs/libhdl.so" "$work/progs/plug.so" \
		"$work/progs/trprog" "$work/progs/libtrl.so" \
		"$work/progs/trplug.so" "$work/progs/legacy" \
		"$work/progs/ftcheck" "$work/progs/fsrv" "$work/progs/kstk" \
		"$work/progs/fsrv2" "$work/progs/cpout" "$work/progs/ka" \
		"$work/progs/sp" "$work/progs/preempt" "$rd/kt/" ||
	die "copying the test programs"
# every library ldd names (by its path on this machine) and the loader
for f in "$rd/kt/dtrace" "$rd/kt/ctl" "$rd/kt/plug.so" "$rd/kt/trprog" \
	"$rd/kt/trplug.so" "$rd/kt/legacy" "$rd/kt/ftcheck" "$rd/kt/fsrv" \
	"$rd/kt/fsrv2" "$rd/kt/ka" "$rd/kt/sp" "$rd/kt/preempt"; do
	LD_LIBRARY_PATH=$rd/kt ldd "$f" || die "ldd $f"
done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
	$1 ~ /^\// { print $1 }' | sort -u | while read -r lib; do
	case $lib in
	"$work"/*) continue ;; # the test's own, in /kt
	esac
	mkdir -p "$rd$(dirname "$lib")" && cp -L "$lib" "$rd$lib" || exit 1
done || die "copying the shared libraries"

# the tracing tests run again in the guest on the BPF backend
# (steps-bpf.sh), on the programs just built (TRACE_PROGS=/kt)
mkdir -p "$rd/kt/src/tests" &&
	cp "$top_srcdir/tests/lib.sh" "$top_srcdir/tests/run-trace.sh" \
		"$top_srcdir/tests/run-kagg.sh" \
		"$top_srcdir/tests/run-kagg-fn.sh" \
		"$top_srcdir/tests/run-kagg-tick.sh" \
		"$top_srcdir/tests/run-kagg-ival.sh" \
		"$top_srcdir/tests/run-kagg-args.sh" \
		"$top_srcdir/tests/run-cgen-spec.sh" \
		"$top_srcdir/tests/run-cgen-preempt.sh" "$rd/kt/src/tests/" ||
	die "copying the tracing tests"
{
	echo "KMOD_HAVE_BPF=${HAVE_BPF:-no}"
	echo "KMOD_FT_ONLY=${KMOD_FT_ONLY:-}"
	echo "KMOD_BPF_ONLY=${KMOD_BPF_ONLY:-}"
	echo "KMOD_FT_ROUNDS=${KMOD_FT_ROUNDS:-3}"
} >>"$rd/kmod/env"

(cd "$rd" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/initrd.gz" ||
	die "making the initramfs"
t_initrd=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 6. Boot

# no_timer_check: under TCG on a loaded host the kernel's check that
# the 8254 timer reaches the IO-APIC can time out, and the guest panics
# at boot ("IO-APIC + timer doesn't work!") before any test runs; the
# check is about real boards' wiring, which qemu's is not.
t0=$(date +%s)
serial=$work/serial.log
say "booting the guest (qemu -accel $accel, up to $guest_timeout s)"
timeout -k 10 "$guest_timeout" qemu-system-x86_64 -accel "$accel" \
	-m 512 -smp "$smp" -display none -monitor none -no-reboot \
	-kernel "$vmlinuz" -initrd "$work/initrd.gz" \
	-append 'console=ttyS0 panic=-1 quiet no_timer_check' \
	-serial "file:$serial" </dev/null >"$work/qemu.log" 2>&1
qemu_rc=$?
t_boot=$(elapsed "$t0")

guest_verdict "tools and kernel ${t_tools}s, modules ${t_modules}s," \
	"programs ${t_progs}s, initramfs ${t_initrd}s, guest ${t_boot}s," \
	"total $(elapsed "$t_start")s"
[ -n "$helper" ] || say "note: $helper_why; only the harness self-test ran"
say "PASS"
exit 0
