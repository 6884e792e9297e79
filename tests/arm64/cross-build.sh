#!/bin/sh
# SPDX-License-Identifier: MIT
#
# cross-build.sh DIR: dtrace itself and dtrace-helperd built for aarch64
# in DIR, from this source tree, for `make check-arm64` to run under
# qemu-aarch64 and `make check-arm64-guest` in its guest.
#
#  1. The arm64 libraries dtrace and dtrace-helperd link with (libelf,
#     libdw, their compression libraries, libbpf, libfuse3) are fetched
#     with `apt-get download` and unpacked into DIR/root: nothing is
#     installed, the build machine's own packages stay as they are.  (Installing the :arm64 -dev
#     packages with multiarch would replace binutils, gcc and clang on
#     bookworm: binutils-dev:arm64 conflicts with them, and the rest
#     upgrades the machine's libssl and friends.)  apt must know the
#     architecture: `dpkg --add-architecture arm64 && apt-get update`,
#     once.
#  2. The tree's files (tracked and new, not ignored) are copied to
#     DIR/src, configured --host=aarch64-linux-gnu without libopcodes,
#     and built: the BPF backend's program
#     compiled for arm64's registers (clang -target bpf
#     -D__TARGET_ARCH_arm64, which configure picks for the host).
#
# It prints what make check-arm64 takes:
#   A64_DTRACE=DIR/src/dtrace-G/dtrace A64_LIBPATH=...
#   A64_HELPERD=DIR/src/helper-driver/dtrace-helperd
set -e
dir=${1:?usage: cross-build.sh DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir/debs" "$dir/root" "$dir/src"
dir=$(cd "$dir" && pwd)
sr=$dir/root
cd "$dir/debs"
apt-get download libelf1:arm64 libelf-dev:arm64 libdw1:arm64 \
	libdw-dev:arm64 zlib1g:arm64 zlib1g-dev:arm64 liblzma5:arm64 \
	liblzma-dev:arm64 libzstd1:arm64 libzstd-dev:arm64 \
	libbz2-1.0:arm64 libbz2-dev:arm64 libbpf1:arm64 libbpf-dev:arm64 \
	libfuse3-3:arm64 libfuse3-dev:arm64 >/dev/null
for f in *.deb; do
	dpkg-deb -x "$f" "$sr"
done
cd "$top"
git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$dir/src"
cd "$dir/src"
autoreconf -fi >autoreconf.log 2>&1
libs="$sr/usr/lib/aarch64-linux-gnu $sr/lib/aarch64-linux-gnu"
ldflags=
for l in $libs; do
	ldflags="$ldflags -L$l -Wl,-rpath-link,$l"
done
./configure --host=aarch64-linux-gnu --enable-bpf --without-opcodes \
	--with-fuse --without-drti-aarch64 \
	PKG_CONFIG_LIBDIR="$sr/usr/lib/aarch64-linux-gnu/pkgconfig:$sr/usr/share/pkgconfig" \
	PKG_CONFIG_SYSROOT_DIR="$sr" \
	CPPFLAGS="-I$sr/usr/include -I$sr/usr/include/aarch64-linux-gnu" \
	LDFLAGS="$ldflags" >configure.log 2>&1
make -j2 >make.log 2>&1
echo "A64_DTRACE=$dir/src/dtrace-G/dtrace A64_LIBPATH=$(echo $libs | tr ' ' :)" \
	"A64_HELPERD=$dir/src/helper-driver/dtrace-helperd"
