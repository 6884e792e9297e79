#!/bin/sh
# SPDX-License-Identifier: MIT
#
# setup.sh - install what is missing (Debian 12), build usdt-sdk, and show
# the toolchain at work on provider-examples/.
#
#   ./setup.sh            install, build, demonstrate
#   ./setup.sh --no-demo  install and build only
#
# Packages come from scripts/debian-packages.txt; apt-get runs through
# sudo when not already root.  The build happens in the source tree, so
# `make check` works right after.

set -eu
cd "$(dirname "$0")"

demo=yes
[ "${1:-}" = "--no-demo" ] && demo=no

say() { printf '\n==> %s\n' "$*"; }

missing=
for p in $(grep -v '^#' scripts/debian-packages.txt); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing:$missing"
	sudo=
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -q
	# shellcheck disable=SC2086
	$sudo apt-get install -y -q --no-install-recommends $missing
fi

say "configuring"
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --enable-werror

say "building"
make -j"$(nproc)"

[ "$demo" = yes ] || exit 0

say "dtrace -h: provider-examples/myapp.d -> myapp.h"
ex=provider-examples
./dtrace-G/dtrace -V
./dtrace-G/dtrace -h -s $ex/myapp.d -o $ex/myapp.h
sed -n '/provider myapp/,/^#else/p' $ex/myapp.h | head -n 24
echo "    ..."

say "compiling provider-examples/myapp.c against the header"
${CC:-cc} -Wall -Wextra -O2 -I$ex -c $ex/myapp.c -o $ex/myapp.o
echo "probe call sites in myapp.o (what dtrace -G turns into NOPs):"
nm $ex/myapp.o | grep -E '__dtrace_|__usdt_sema_' | sed 's/^/    /'

say "probes compiled out with -DUSDT_DISABLE_PROBES"
${CC:-cc} -Wall -Wextra -O2 -I$ex -DUSDT_DISABLE_PROBES -o $ex/myapp-noprobes $ex/myapp.c
$ex/myapp-noprobes 3
if nm $ex/myapp-noprobes | grep -q __dtrace_; then
	echo "unexpected: probe references remain" >&2
	exit 1
fi
echo "    no probe references remain"

say "done: run 'make check' for the test suite"
