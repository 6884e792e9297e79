# SPDX-License-Identifier: MIT
#
# Shared by the tests that drive dtrace-helperd with the programs in
# tests/data/helperd/ (run-helperd.sh, run-faults.sh).  Source it after
# tests/lib.sh, with $reg naming the registry directory.

helperd_data=$top_srcdir/tests/data/helperd

# build_helperd_progs: ctl (provider hdt) linked with libhdl.so (hdlib),
# and plug.so (hdplug) to dlopen, built with dtrace -h/-G in the current
# directory; a failure ends the test
build_helperd_progs() {
	bh_ok=true
	for p in hdt hdlib hdplug; do
		"$DTRACE" -h -s "$helperd_data/$p.d" -o "$p.h" || bh_ok=false
	done
	$CC -O2 -fPIC -I. -c "$helperd_data/lib.c" -o lib.o &&
		"$DTRACE" -G -s "$helperd_data/hdlib.d" lib.o -o lib-probes.o &&
		$CC -shared -o libhdl.so lib.o lib-probes.o &&
		$CC -O2 -fPIC -I. -c "$helperd_data/plug.c" -o plug.o &&
		"$DTRACE" -G -s "$helperd_data/hdplug.d" plug.o \
			-o plug-probes.o &&
		$CC -shared -o plug.so plug.o plug-probes.o &&
		$CC -O2 -I. -c "$helperd_data/ctl.c" -o ctl.o &&
		"$DTRACE" -G -s "$helperd_data/hdt.d" ctl.o -o ctl-probes.o &&
		$CC -o ctl ctl.o ctl-probes.o -L. -lhdl -Wl,-rpath,"$PWD" \
			-ldl || bh_ok=false
	if ! $bh_ok; then
		fail "building the test programs"
		finish
	fi
	chmod 755 ctl libhdl.so plug.so
}

# answered FILE PATTERN: a line of FILE matches
answered() {
	grep -q -e "$2" "$1" 2>/dev/null
}

# regs PID: registrations recorded for PID (0 if no file)
regs() {
	if [ -f "$reg/$1" ]; then
		grep -c -a '^reg ' "$reg/$1"
	else
		echo 0
	fi
}

has_regs() {
	[ "$(regs "$1")" = "$2" ]
}

no_file() {
	[ ! -e "$reg/$1" ]
}

# listing: `dtrace -l` without the header, the dtrace provider and the
# kernel providers (syscall, profile, proc), IDs cut
listing() {
	"$DTRACE" -l "$@" 2>&1 | awk 'NR > 1 && $2 != "dtrace" &&
		$2 != "syscall" && $2 != "profile" && $2 != "proc" {
		$1 = ""; print }'
}
