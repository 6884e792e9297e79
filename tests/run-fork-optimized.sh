#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-fork-optimized.sh: a traced process that forks after its probes
# fired keeps children that live, whatever built its sites, and every
# hit of parent and children is counted exactly.
#
# Linux 6.18 optimises a uprobe on any single 5-byte NOP: at the first
# hit it rewrites the NOP into a call to a trampoline page it maps into
# the process.  A child forked after that inherits the rewritten text but
# not the trampoline, and dies of SIGSEGV at its first hit.  `dtrace -G`
# and the header stubs used to write such a NOP (0f 1f 44 00 00), so
# every program built with them lost its children when traced, by any
# tracer; they now write a 4-byte NOP and a 1-byte one, which the kernel
# emulates after a trap (doc/DESIGN.md §4).  tests/data/forkopt/fo.c
# fires a call-site probe (fo:::hit) and a tail-call one (fo:::tail)
# HITS times, forks a child that fires both CHILD_HITS times, twice, and
# exits 1 if a child did not exit 0.  Built:
#  - -O0 and -O2 objects through -G (call sites; at -O2 fo:::tail is a
#    tail-call site), -O2 -fno-plt (GOT call sites);
#  - -O2 without -G: the calls reach the header's probe stubs, whose
#    entry is the site;
#  - a child forked while traced that reaches its sites after the
#    tracer has gone (-O0 -G sites and stubs; it died the same way);
#  - an -O0 object of an older release, whose -G sites and header stubs
#    begin with the 5-byte NOP (made here by writing those bytes back):
#    -G rewrites them with today's, once.
# Traced by our dtrace (fo*: parent and children, each count exact) and
# by bpftrace where it is installed (its -c counts the target's hits
# only: the children must live and the parent's counts be exact).  On a
# kernel that does not optimise 5-byte NOPs this test passes either way.
# Under DTRACE_ACTIVATION=user (make check-activation-user) the call
# sites are armed in-process and the tail-call and stub sites go to the
# kernel path, armed for the traced process alone with events its
# children inherit (checked: -v says which), the counts exact as ever.
# Needs root and uprobe events.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/forkopt

[ "$(id -u)" -eq 0 ] || skip "not root: uprobes need root"
require_G
require_uprobe_events

"$DTRACE" -h -s "$data/fo.d" -o fo.h || {
	fail "dtrace -h"
	finish
}

# build NAME CFLAGS G: fo.c compiled with CFLAGS, through -G if G is 1
build() {
	$CC $2 -I. -c "$data/fo.c" -o "$1.o" || return 1
	if [ "$3" = 1 ]; then
		"$DTRACE" -G -s "$data/fo.d" -o "$1-probes.o" "$1.o" &&
			$CC -o "$1" "$1.o" "$1-probes.o"
	else
		$CC -o "$1" "$1.o"
	fi
}

# counts NAME: what fo printed of its processes, as "pid probe count"
counts() {
	sed -n 's/^pid \([0-9]*\) \([0-9]*\)$/\1 hit \2\n\1 tail \2/p' "$1" |
		sort
}

# check NAME TRACER OUT EXPECTED: the children lived, the counts match
check() {
	if grep '^child' "$3" >"$3.dead"; then
		fail "$1, traced by $2: children died: $(tr '\n' ';' <"$3.dead")"
	else
		pass
	fi
	expect_eq "$1, traced by $2: the counts" "$4" "$(grep -v '^pid\|^child' "$3" |
		sed '/^$/d' | sort)"
}

# user_mixed NAME: on the user path (DTRACE_ACTIVATION=user), NAME's
# tail-call or stub sites went to the kernel path (-v said so in
# NAME.dt-err), and its -G call sites stayed in-process
user_mixed() {
	[ "$act_path" = user ] || return 0
	case $1 in
	*-O2 | *-noplt) hit=no ;;
	*-stubs) hit=yes ;;
	*) return 0 ;;
	esac
	expect_grep "$1, user path: fo*:::tail on the kernel path" \
		'probe fo[0-9]*:[^:]*:[^:]*:tail: the kernel path' "$1.dt-err"
	if grep -q 'probe fo[0-9]*:[^:]*:[^:]*:hit: the kernel path' \
		"$1.dt-err"; then
		expect_eq "$1, user path: fo*:::hit on the kernel path" $hit yes
	else
		expect_eq "$1, user path: fo*:::hit on the kernel path" $hit no
	fi
}

# traced NAME: run NAME under dtrace, and bpftrace where there is one
traced() {
	"$DTRACE" -v -q -n 'fo*:::hit, fo*:::tail { @[pid, probename] = count(); }
	    END { printa("%d %s %@d\n", @); }' -c "./$1" >"$1.dt" 2>"$1.dt-err" ||
		fail "$1: dtrace failed: $(cat "$1.dt-err")"
	check "$1" dtrace "$1.dt" "$(counts "$1.dt")"
	user_mixed "$1"
	command -v bpftrace >/dev/null 2>&1 || return 0
	timeout 120 bpftrace -B none -e "
	    usdt:./$1:fo:hit, usdt:./$1:fo:tail { @[pid, probe] = count(); }" \
		-c "./$1" >"$1.bt" 2>"$1.bt-err"
	sed -n 's/^@\[\([0-9]*\), usdt:[^:]*:fo:\([a-z]*\)\]: \([0-9]*\)$/\1 \2 \3/p' \
		"$1.bt" | sort >"$1.bt-counts"
	{ grep "^child" "$1.bt"; cat "$1.bt-counts"; } >"$1.bt-out"
	# the target's hits only: bpftrace's -c filters on its pid
	top=$(sed -n 's/^pid \([0-9]*\) 10$/\1/p' "$1.bt" | tail -n 1)
	check "$1" bpftrace "$1.bt-out" "$(counts "$1.bt" | grep "^$top ")"
}

for v in O0:-O0:1 O2:-O2:1 noplt:"-O2 -fno-plt":1 stubs:-O2:0; do
	name=${v%%:*}
	rest=${v#*:}
	if ! build "fo-$name" "${rest%:*}" "${rest##*:}"; then
		fail "fo-$name: building"
		continue
	fi
	traced "fo-$name"
done

# A child forked while traced that hits its sites after the tracer has
# gone: on 6.18 the kernel restores the parent's optimised sites but not
# the child's copy, which died the same way.
for name in O0 stubs; do
	[ -x "fo-$name" ] || continue
	rm -f armed go
	"./fo-$name" after >"after-$name.out" 2>&1 &
	fo=$!
	timeout 120 "$DTRACE" -q -p "$fo" -n 'BEGIN { printf("ready\n"); }' \
		-n 'fo*:::tail { n++; } fo*:::tail /n == 5/ { exit(0); }' \
		>"after-$name.dt" 2>&1 &
	dt=$!
	wait_until 300 grep -q ready "after-$name.dt" ||
		fail "fo-$name after: dtrace did not start: $(cat "after-$name.dt")"
	: >armed
	wait "$dt" || fail "fo-$name after: dtrace failed: $(cat "after-$name.dt")"
	: >go
	if wait "$fo"; then
		pass
	else
		fail "fo-$name: a child forked while traced, hitting its sites after the trace: $(cat "after-$name.out")"
	fi
done

# An object of an older release: its -G sites and its header's stubs
# changed back to the 5-byte NOP they began with (at -O0 both sites are
# calls).  -G rewrites all four with today's bytes, once: a second run
# leaves the object as it is.  The compiler's own 5-byte NOPs (clang pads
# between functions with them) are counted first and stay.
nop5s() {
	od -An -tx1 -v "$1" | tr -d ' \n' | grep -o 0f1f440000 | wc -l
}
pad5=
if build fo-old -O0 1 && pad5=$(nop5s fo-old.o) &&
	perl -0777 -pi -e 's/\x0f\x1f\x40\x00\x90/\x0f\x1f\x44\x00\x00/g' \
		fo-old.o && [ "$(nop5s fo-old.o)" -eq $((pad5 + 4)) ]; then
	"$DTRACE" -G -v -s "$data/fo.d" -o fo-old-probes.o fo-old.o 2>G.log ||
		fail "fo-old.o: dtrace -G over an older release's object: $(cat G.log)"
	expect_eq "fo-old.o: both old sites rewritten again" 2 \
		"$(grep -c ': 0f 1f 44 00 00 (.*) -> 0f 1f 40 00 90 (' G.log)"
	expect_eq "fo-old.o: both old stubs rewritten" 2 \
		"$(grep -c "an older header's probe stub, rewritten" G.log)"
	expect_eq "fo-old.o: no 5-byte NOP left but the compiler's padding" \
		"$pad5" "$(nop5s fo-old.o)"
	cp -p fo-old.o fo-old.o.1
	"$DTRACE" -G -v -s "$data/fo.d" -o fo-old-probes.o fo-old.o 2>G2.log ||
		fail "fo-old.o: dtrace -G again: $(cat G2.log)"
	expect_eq "fo-old.o: the second run finds both sites rewritten" 2 \
		"$(grep -c 'already rewritten' G2.log)"
	if cmp -s fo-old.o fo-old.o.1 && [ ! fo-old.o -nt fo-old.o.1 ] &&
		[ ! fo-old.o -ot fo-old.o.1 ]; then
		pass
	else
		fail "fo-old.o: the second run changed the object"
	fi
	$CC -o fo-old fo-old.o fo-old-probes.o || fail "fo-old: linking"
	[ -x fo-old ] && traced fo-old
else
	fail "fo-old.o: making an older release's object (${pad5:-?} padding NOPs, $(nop5s fo-old.o) after)"
fi

finish
