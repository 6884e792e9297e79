#!/bin/sh
# SPDX-License-Identifier: MIT
#
# setup.sh - install what is missing (Debian 12), build usdt-sdk, and show
# the toolchain at work on provider-examples/: dtrace -h, cc, dtrace -G,
# the program running, its probes as readelf sees them, and (as root,
# with bpftrace) the probes traced live, the program traced with our
# `dtrace -c` (root), and dtrace-helperd with `dtrace -l` listing the
# probes of the running program and `dtrace -n` tracing it.
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

ex=provider-examples
D=./dtrace-G/dtrace
export DTRACE_DRTI="$PWD/drti/drti.o"	# the uninstalled drti.o
./dtrace-G/dtrace -V

say "dtrace -h: $ex/myapp.d -> myapp.h (macros the program calls)"
$D -h -s $ex/myapp.d -o $ex/myapp.h
sed -n '/provider myapp/,/^#else/p' $ex/myapp.h | head -n 12
echo "    ..."

say "cc -c $ex/myapp.c: each probe is a call to __dtrace_myapp___*"
${CC:-cc} -Wall -Wextra -O2 -I$ex -c $ex/myapp.c -o $ex/myapp.o
nm $ex/myapp.o | grep -E '__dtrace_' | sed 's/^/    /'

say "dtrace -G: the calls become NOPs in myapp.o; myapp-probes.o describes them"
$D -G -v -s $ex/myapp.d -o $ex/myapp-probes.o $ex/myapp.o 2>&1 | sed 's/^/    /'
${CC:-cc} $ex/myapp.o $ex/myapp-probes.o -o $ex/myapp

say "the program runs as before; readelf shows its probes (what bpftrace, perf and gdb read)"
$ex/myapp 3 | sed 's/^/    /'
readelf -n $ex/myapp | grep -A4 'stapsdt ' | grep -E 'Name:|Arguments:' |
	sed 's/^ */    /'

if [ "$(id -u)" -eq 0 ] && command -v bpftrace >/dev/null 2>&1; then
	say "bpftrace traces the probes of the running program"
	out=$(mktemp)
	timeout 30 bpftrace -q -o "$out" -e 'usdt:'"$ex"'/myapp:myapp:query__start {
		printf("    query %d: %s\n", arg0, str(arg1)); }' \
		-c "$ex/myapp 3" >/dev/null 2>&1 || true
	grep -v '^$' "$out" || echo "    (bpftrace could not attach here)"
	rm -f "$out"
fi

if [ "$(id -u)" -eq 0 ]; then
	say "dtrace -c traces the program with D: each query, then a latency histogram"
	out=$(mktemp)
	if timeout 60 $D -q -o "$out" -c "$ex/myapp 5" -n '
	    myapp$target:::query-start {
		self->ts = timestamp;
		printf("query %d: %s\n", args[0], args[1]);
	    }
	    myapp$target:::query-done /self->ts/ {
		@["latency (ns)"] = quantize(timestamp - self->ts);
		self->ts = 0;
	    }' >/dev/null; then
		sed 's/^/    /' "$out"
	else
		echo "    (dtrace could not trace here: no uprobes?)"
	fi
	rm -f "$out"
fi

if [ -x helper-driver/dtrace-helperd ] && [ -c /dev/fuse ]; then
	say "dtrace-helperd records the probes of running programs; dtrace -l lists them"
	hd=$(mktemp -d)
	# A private device and registry, so the demo touches nothing of the
	# system's (the real ones are /dev/dtrace/helper and /run/dtrace).
	if ./helper-driver/dtrace-helperd --no-scan --device "$hd/dev/helper" \
		--state-dir "$hd/state"; then
		DTRACE_DOF_INIT_DEVNAME=$hd/dev/helper $ex/myapp -f >/dev/null &
		app=$!
		i=0
		while [ $i -lt 50 ] && [ -z "$(ls "$hd/state/registry" 2>/dev/null)" ]; do
			sleep 0.1
			i=$((i + 1))
		done
		DTRACE_STATEDIR=$hd/state $D -l -n 'myapp*:::' | sed 's/^/    /'
		if [ "$(id -u)" -eq 0 ]; then
			say "dtrace traces every registered myapp for a second (then ^C)"
			DTRACE_STATEDIR=$hd/state timeout -s INT 1 $D \
				-n 'myapp*:::query-start { @[probeprov, copyinstr(arg1)] = count(); }' \
				2>&1 | sed 's/^/    /'
		fi
		kill "$app"
		kill "$(cat "$hd/state/helperd.pid")"
		i=0
		while [ $i -lt 50 ] && mountpoint -q "$hd/dev"; do
			sleep 0.1
			i=$((i + 1))
		done
	else
		echo "    (dtrace-helperd could not start here)"
	fi
	rm -rf "$hd"
fi

say "done: run 'make check' for the test suite"
