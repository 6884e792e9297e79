#!/bin/sh
# SPDX-License-Identifier: MIT
#
# guest.sh - `make check-arm64-guest`: dtrace built for aarch64 traces
# for real, in a qemu-system-aarch64 guest (TCG) running Debian 12's
# arm64 kernel, as `make check-kmod` runs the x86-64 one: its init and
# its verdict (tests/kmod/init, tests/kmod/guest-lib.sh), another
# kernel, busybox and steps file.
#
#  1. Tools: qemu-system-aarch64 (as root, apt-get installs
#     qemu-system-arm when missing), the cross compiler and its C
#     library, cpio.  apt must know the arm64 architecture (`dpkg
#     --add-architecture arm64 && apt-get update`, once; as root, done
#     here when it does not).
#  2. The kernel: linux-image-VER-unsigned:arm64, VER what Debian's
#     linux-image-arm64 names, fetched with `apt-get download` (nothing
#     installed) and only its boot/vmlinuz-VER and fuse.ko kept (FUSE is
#     a module there; dtrace-helperd serves its device through it), in
#     the cache ($KMOD_CACHE/arm64, as check-kmod's);
#     busybox-static:arm64 too.  The kernel's headers for the helper
#     module: linux-headers-VER:arm64, linux-headers-VER-common and this
#     machine's linux-kbuild-6.x (the host tools the headers link to),
#     fetched the same way and unpacked into the cache (about 85 MB),
#     the headers' Makefile pointed at the unpacked common tree.
#  2b. The helper module, dtrace_helper.ko, built against them
#     (helper-driver/kmod's Makefile, ARCH=arm64, CROSS_COMPILE=
#     A64_CROSS; objects in the work directory; a few seconds).
#     dtrace_fasttrap.ko is x86-64's alone (its Kbuild).
#  3. dtrace and dtrace-helperd for aarch64: A64_DTRACE (and A64_LIBPATH,
#     A64_HELPERD) when given, else built by tests/arm64/cross-build.sh
#     in the work directory (about 90 s here), with its BPF backend.
#     Without A64_HELPERD the helper's steps are skipped.
#  4. The probed program, tests/arm64/gprog.c: this build's dtrace -h,
#     the cross compiler, this build's dtrace -G with drti.c compiled
#     for aarch64 (gprog); and linked without -G (gstub: its probes
#     reach the header's stubs).  The size of gprog's sum10() (nm -S),
#     for the pid provider's steps, in sum10.size.
#  5. An initramfs: busybox, /init, /kmod/steps-guest.sh
#     (tests/arm64/steps-guest.sh says what it checks),
#     /kmod/steps-helperd.sh (tests/arm64/steps-helperd-guest.sh, run
#     after it), /kmod/steps-kmod.sh (tests/arm64/steps-kmod-guest.sh,
#     the helper module, after the daemon's) and /kmod/steps-pid.sh
#     (tests/arm64/steps-pid-guest.sh, last), /kmod/env naming the
#     module (KMOD_HELPER), dtrace, dtrace-helperd, fuse.ko, gprog,
#     sum10.size and every
#     shared library they name (readelf's NEEDED, found in A64_LIBPATH
#     and the cross C library), and the dynamic loader.
#  6. Boot: qemu-system-aarch64 -M virt, one CPU, serial console to a
#     file, under `timeout`; the verdict is in the serial log alone.
#
# Environment: top_srcdir, top_builddir, DTRACE (this build's, for -h
# and -G); optional A64_DTRACE, A64_LIBPATH, A64_HELPERD, A64_CROSS (default
# aarch64-linux-gnu-), A64_SYSROOT (default /usr/aarch64-linux-gnu),
# KMOD_CACHE, A64_GUEST_WORK (default $top_builddir/tests/arm64/work,
# kept: serial.log is the guest's console), A64_GUEST_TIMEOUT (seconds
# for the guest, default 600).
#
# Exit status: 0 pass, 1 fail, 77 skip (no qemu, cross compiler or
# network for the kernel).  The last line says which:
# "check-arm64-guest: PASS", "... FAIL: why", "... SKIP: why".

set -u
export LC_ALL=C
: "${top_srcdir:?top_srcdir must be set}"
: "${top_builddir:?top_builddir must be set}"
: "${DTRACE:?DTRACE must name dtrace-G/dtrace of this build}"
: "${A64_CROSS:=aarch64-linux-gnu-}"
: "${A64_SYSROOT:=/usr/aarch64-linux-gnu}"
unset CFLAGS CPPFLAGS CPP DTRACE_DRTI

kt_src=$top_srcdir/tests/kmod
a64_src=$top_srcdir/tests/arm64
work=${A64_GUEST_WORK:-$top_builddir/tests/arm64/work}
guest_timeout=${A64_GUEST_TIMEOUT:-600}
a64cc=${A64_CROSS}gcc

say() { echo "check-arm64-guest: $*"; }
skip() {
	say "SKIP: $*"
	exit 77
}
die() {
	say "FAIL: $*"
	exit 1
}
elapsed() { echo $(($(date +%s) - $1)); }

t_start=$(date +%s)
root=no
[ "$(id -u)" -eq 0 ] && root=yes
if [ -z "${KMOD_CACHE:-}" ]; then
	KMOD_CACHE=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/usdt-sdk/kmod
	mkdir -p "$KMOD_CACHE" 2>/dev/null ||
		KMOD_CACHE=$top_builddir/tests/kmod/cache
fi
cache=$KMOD_CACHE/arm64
mkdir -p "$cache" || die "cannot create the cache $cache"

# apt_install, apt_fetch, guest_verdict
. "$kt_src/guest-lib.sh"

rm -rf "$work" "$work.apt.log"
mkdir -p "$work" || die "cannot create $work"
work=$(cd "$work" && pwd)

# ---------------------------------------------------------------------
# 1. Tools

t0=$(date +%s)
if ! command -v qemu-system-aarch64 >/dev/null 2>&1; then
	apt_install qemu-system-arm ||
		skip "no qemu-system-aarch64 (Debian: qemu-system-arm)"
fi
for t in qemu-system-aarch64 "$a64cc" "${A64_CROSS}readelf" "${A64_CROSS}nm" \
	cpio gzip dpkg-deb make; do
	command -v "$t" >/dev/null 2>&1 || skip "no $t"
done
[ -e "$A64_SYSROOT/lib/ld-linux-aarch64.so.1" ] ||
	skip "no aarch64 C library in $A64_SYSROOT (Debian: libc6-dev-arm64-cross)"

# ---------------------------------------------------------------------
# 2. The kernel and busybox

a64_kver() {
	apt-cache show linux-image-arm64:arm64 2>/dev/null |
		sed -n 's/^Depends: linux-image-\([^ ,]*-arm64\).*/\1/p' |
		sort -V | tail -n 1
}
kver=$(a64_kver)
# a fresh machine's apt knows no arm64 packages: as root, tell it of
# the architecture (its package lists only; nothing is installed)
if [ -z "$kver" ] && [ "$(id -u)" -eq 0 ] && command -v dpkg >/dev/null &&
	! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "check-arm64-guest: dpkg --add-architecture arm64; apt-get update" >&2
	dpkg --add-architecture arm64 &&
		apt-get update -q >>"$work.apt.log" 2>&1
	kver=$(a64_kver)
fi
[ -n "$kver" ] ||
	skip "apt knows no linux-image-arm64:arm64 (dpkg --add-architecture arm64 && apt-get update)"
vmlinuz=$cache/$kver/vmlinuz
fuseko=$cache/$kver/fuse.ko
if [ ! -s "$vmlinuz" ] || [ ! -s "$fuseko" ]; then
	mkdir -p "$work/deb" "$(dirname "$vmlinuz")"
	apt_fetch "linux-image-$kver-unsigned:arm64" "$work/deb" ||
		skip "cannot download linux-image-$kver-unsigned:arm64 (no network?)"
	fko=./lib/modules/$kver/kernel/fs/fuse/fuse.ko
	dpkg-deb --fsys-tarfile "$work"/deb/linux-image-*.deb |
		tar -x -C "$work/deb" "./boot/vmlinuz-$kver" "$fko" ||
		die "no boot/vmlinuz-$kver or $fko in the package"
	mv "$work/deb/$fko" "$fuseko.tmp" && mv "$fuseko.tmp" "$fuseko" &&
		mv "$work/deb/boot/vmlinuz-$kver" "$vmlinuz.tmp" &&
		mv "$vmlinuz.tmp" "$vmlinuz" || die "cannot write $vmlinuz"
	rm -rf "$work/deb"
fi
busybox=$cache/busybox
if [ ! -s "$busybox" ]; then
	mkdir -p "$work/bb"
	apt_fetch busybox-static:arm64 "$work/bb" ||
		skip "cannot download busybox-static:arm64 (no network?)"
	dpkg-deb -x "$work"/bb/busybox-static_*.deb "$work/bb/x" &&
		cp "$work/bb/x/bin/busybox" "$busybox.tmp" &&
		mv "$busybox.tmp" "$busybox" || die "cannot unpack busybox-static"
	rm -rf "$work/bb"
fi
say "kernel $kver"

# The headers, unpacked under $cache/$kver/hdr as the packages lay them
# out (usr/src/linux-headers-VER's scripts and tools are links to
# ../../lib/linux-kbuild-6.x, which the kbuild package fills)
hdr=$cache/$kver/hdr
kdir=$hdr/usr/src/linux-headers-$kver
if [ ! -f "$kdir/.usdt-ready" ]; then
	kbuild=linux-kbuild-$(echo "$kver" | cut -d. -f1-2)
	rm -rf "$hdr" "$work/hdeb"
	mkdir -p "$work/hdeb" "$hdr"
	for p in "linux-headers-$kver:arm64" "linux-headers-${kver%-arm64}-common" \
		"$kbuild"; do
		apt_fetch "$p" "$work/hdeb" ||
			skip "cannot download $p (no network?)"
	done
	for d in "$work"/hdeb/*.deb; do
		dpkg-deb -x "$d" "$hdr" || die "cannot unpack $d"
	done
	# its Makefile includes the common tree by its installed path
	sed -i "s|/usr/src/linux-headers-|$hdr/usr/src/linux-headers-|" \
		"$kdir/Makefile" && [ -f "$kdir/scripts/Makefile.build" ] ||
		die "unexpected layout of the headers in $hdr"
	: >"$kdir/.usdt-ready"
	rm -rf "$work/hdeb"
fi
t_tools=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 2b. The helper module

t0=$(date +%s)
make -C "$top_srcdir/helper-driver/kmod" KDIR="$kdir" BUILD="$work/kmod" \
	ARCH=arm64 CROSS_COMPILE="$A64_CROSS" >"$work/kmod.log" 2>&1
if [ ! -f "$work/kmod/dtrace_helper.ko" ]; then
	sed 's/^/    | /' "$work/kmod.log" | tail -n 40
	die "helper-driver/kmod does not build against $kdir"
fi
[ ! -e "$work/kmod/dtrace_fasttrap.ko" ] ||
	die "helper-driver/kmod built dtrace_fasttrap.ko for arm64"
t_modules=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 3. dtrace and dtrace-helperd for aarch64

t0=$(date +%s)
if [ -z "${A64_DTRACE:-}" ]; then
	say "cross-building dtrace (tests/arm64/cross-build.sh)"
	out=$(sh "$a64_src/cross-build.sh" "$work/cross" 2>"$work/cross.log") || {
		tail -n 20 "$work/cross.log"
		for l in "$work"/cross/src/*.log; do
			[ -f "$l" ] && tail -n 20 "$l"
		done
		die "tests/arm64/cross-build.sh failed"
	}
	eval "$out"
fi
[ -x "$A64_DTRACE" ] || die "A64_DTRACE=$A64_DTRACE is not an executable"
: "${A64_HELPERD:=}"
[ -z "$A64_HELPERD" ] || [ -x "$A64_HELPERD" ] ||
	die "A64_HELPERD=$A64_HELPERD is not an executable"
t_cross=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 4. The probed program

t0=$(date +%s)
mkdir -p "$work/progs"
(
	cd "$work/progs" &&
		$a64cc -O2 -fPIC -I"$top_srcdir/sdk/include" \
			-c "$top_srcdir/drti/drti.c" -o drti-aarch64.o &&
		"$DTRACE" -h -s "$a64_src/gp.d" -o gp.h &&
		$a64cc -O2 -Wall -Werror -I. -I"$top_srcdir/sdk/include" \
			-c "$a64_src/gprog.c" -o gprog.o &&
		$a64cc -o gstub gprog.o &&
		DTRACE_DRTI=$PWD/drti-aarch64.o "$DTRACE" -G \
			-s "$a64_src/gp.d" -o gp-probes.o gprog.o &&
		$a64cc -o gprog gprog.o gp-probes.o &&
		"${A64_CROSS}nm" -S gprog |
		awk '$4 == "sum10" { print $2 }' >sum10.size &&
		[ -s sum10.size ]
) >"$work/progs.log" 2>&1 || {
	sed 's/^/    | /' "$work/progs.log"
	die "building tests/arm64/gprog.c with $DTRACE"
}
t_progs=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 5. The initramfs

t0=$(date +%s)
rd=$work/root
mkdir -p "$rd/bin" "$rd/kt" "$rd/kmod" "$rd/lib" || die "mkdir $rd"
cp "$busybox" "$rd/bin/busybox" &&
	cp "$kt_src/init" "$rd/init" &&
	chmod 755 "$rd/init" "$rd/bin/busybox" &&
	cp "$a64_src/steps-guest.sh" "$rd/kmod/" &&
	cp "$a64_src/steps-helperd-guest.sh" "$rd/kmod/steps-helperd.sh" &&
	cp "$a64_src/steps-kmod-guest.sh" "$rd/kmod/steps-kmod.sh" &&
	cp "$a64_src/steps-pid-guest.sh" "$rd/kmod/steps-pid.sh" &&
	cp "$work/progs/sum10.size" "$rd/kt/" &&
	cp "$work/kmod/dtrace_helper.ko" "$rd/kmod/" &&
	echo "KMOD_HELPER=/kmod/dtrace_helper.ko" >"$rd/kmod/env" &&
	cp "$A64_DTRACE" "$work/progs/gprog" "$work/progs/gstub" "$rd/kt/" ||
	die "populating $rd"
todo="$rd/kt/dtrace $rd/kt/gprog $rd/kt/gstub"
if [ -n "$A64_HELPERD" ]; then
	cp "$A64_HELPERD" "$fuseko" "$rd/kt/" || die "populating $rd"
	todo="$todo $rd/kt/dtrace-helperd"
fi
# every library named, from the arm64 packages or the cross C library
libdirs="$(echo "${A64_LIBPATH:-}" | tr : ' ') $A64_SYSROOT/lib"
while [ -n "$todo" ]; do
	# shellcheck disable=SC2086
	set -- $todo
	f=$1
	shift
	todo=$*
	for n in $("${A64_CROSS}readelf" -dW "$f" |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		[ -e "$rd/lib/$n" ] && continue
		for d in $libdirs; do
			if [ -e "$d/$n" ]; then
				cp -L "$d/$n" "$rd/lib/" || die "copying $d/$n"
				todo="$todo $rd/lib/$n"
				break
			fi
		done
		[ -e "$rd/lib/$n" ] || die "$f needs $n, found in none of $libdirs"
	done
done
cp -L "$A64_SYSROOT/lib/ld-linux-aarch64.so.1" "$rd/lib/" ||
	die "copying the dynamic loader"
(cd "$rd" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/initrd.gz" ||
	die "making the initramfs"
t_initrd=$(elapsed "$t0")

# ---------------------------------------------------------------------
# 6. Boot

t0=$(date +%s)
serial=$work/serial.log
say "booting the guest (qemu-system-aarch64, TCG, up to $guest_timeout s)"
timeout -k 10 "$guest_timeout" qemu-system-aarch64 -M virt -cpu cortex-a57 \
	-accel tcg -m 512 -smp 1 -display none -monitor none -no-reboot \
	-kernel "$vmlinuz" -initrd "$work/initrd.gz" \
	-append 'console=ttyAMA0 panic=-1 quiet' \
	-serial "file:$serial" </dev/null >"$work/qemu.log" 2>&1
qemu_rc=$?
t_boot=$(elapsed "$t0")

guest_verdict "tools and kernel ${t_tools}s, module ${t_modules}s," \
	"cross build ${t_cross}s," \
	"programs ${t_progs}s, initramfs ${t_initrd}s, guest ${t_boot}s," \
	"total $(elapsed "$t_start")s"
say "PASS"
exit 0
