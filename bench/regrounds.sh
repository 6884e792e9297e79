#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/regrounds.sh - a probed plugin's dlopen+dlclose, registered
# through dtrace-helperd's datagram socket, through its device, and with
# no helper, in interleaved rounds: on a machine shared with other work
# one best-of-three says little, the spread of many rounds says more.
#
#	DTRACE=... DTRACE_DRTI=... HELPERD=... top_srcdir=... \
#		sh bench/regrounds.sh [ROUNDS [CYCLES]]
#
# Each round runs bench/regbench.c CYCLES times (default 1,000) in four
# ways, one after the other: "sock" (drti.o told of the daemon's socket
# and device), "dev" (told of the device only: another helper's way),
# "none" (socket and device both absent: a machine without the daemon)
# and "nonedev" (device absent, no socket: drti.o before the socket).
# Prints, per round, the mean ns per cycle of each, the daemon's CPU
# (its threads and checker, from schedstat) per cycle of sock and of
# dev, and the load average; then the medians of sock-none and
# dev-nonedev (us) and of the daemon's CPU.  Needs root and /dev/fuse.
# Benchmarks, not tests: nothing here passes or fails.

: "${DTRACE:?}" "${DTRACE_DRTI:?}" "${HELPERD:?}" "${top_srcdir:?}"
: "${CC:=cc}"
export DTRACE_DRTI
rounds=${1:-12}
n=${2:-1000}
here=$top_srcdir/bench
d=$top_srcdir/tests/data/helperd
tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp"
hp=
trap '[ -n "$hp" ] && kill "$hp" 2>/dev/null; wait 2>/dev/null;
	umount "$tmp/state" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$DTRACE" -h -s "$d/hdplug.d" -o hdplug.h &&
$CC -O2 -fPIC -I. -c "$d/plug.c" -o plug.o &&
"$DTRACE" -G -s "$d/hdplug.d" plug.o -o plug-probes.o &&
$CC -shared -o plug.so plug.o plug-probes.o &&
$CC -O2 -I"$top_srcdir/sdk/include" -o regbench "$here/regbench.c" -ldl ||
	exit 1
mkdir -p state run
mount -t tmpfs -o size=16m,mode=0755 tmpfs state 2>/dev/null
"$HELPERD" -f --no-scan --device "$tmp/dev/helper" --state-dir "$tmp/state" \
	--socket "$tmp/run/helper.sock" 2>helperd.log &
hp=$!
i=0
while [ $i -lt 100 ] && ! [ -S "$tmp/run/helper.sock" ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -S "$tmp/run/helper.sock" ] || { cat helperd.log >&2; exit 1; }
cpu() {
	cat /proc/"$hp"/task/*/schedstat 2>/dev/null |
		awk '{ s += $1 } END { print s }'
}
: >rounds.txt
r=1
while [ $r -le "$rounds" ]; do
	c0=$(cpu)
	s=$(DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper \
		DTRACE_DOF_INIT_SOCKNAME=$tmp/run/helper.sock ./regbench ./plug.so "$n")
	c1=$(cpu)
	v=$(DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper ./regbench ./plug.so "$n")
	c2=$(cpu)
	o=$(DTRACE_DOF_INIT_DEVNAME=$tmp/no/helper \
		DTRACE_DOF_INIT_SOCKNAME=$tmp/no/helper.sock ./regbench ./plug.so "$n")
	od=$(DTRACE_DOF_INIT_DEVNAME=$tmp/no/helper ./regbench ./plug.so "$n")
	echo "$r sock=$s dev=$v none=$o nonedev=$od sockcpu=$(((c1 - c0) / n))" \
		"devcpu=$(((c2 - c1) / n)) load=$(cut -d' ' -f1 /proc/loadavg)" |
		tee -a rounds.txt
	r=$((r + 1))
done
# medians, in us
med() {
	sort -n | awk '{ v[NR] = $1 }
		END { if (NR % 2) m = v[(NR + 1) / 2]
		      else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf "%.1f", m / 1000 }'
}
f() { # the value of NAME= in each line
	sed -n "s/.* $1=\([0-9]*\).*/\1/p" rounds.txt
}
sd=$(awk '{ for (i = 2; i <= 5; i++) { split($i, kv, "="); x[kv[1]] = kv[2] }
	print x["sock"] - x["none"] }' rounds.txt | med)
dd=$(awk '{ for (i = 2; i <= 5; i++) { split($i, kv, "="); x[kv[1]] = kv[2] }
	print x["dev"] - x["nonedev"] }' rounds.txt | med)
echo "median us above no helper: socket $sd, device $dd;" \
	"daemon CPU per cycle: socket $(f sockcpu | med), device $(f devcpu | med);" \
	"no helper: $(f none | med) (before the socket: $(f nonedev | med))"
