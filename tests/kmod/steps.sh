# SPDX-License-Identifier: MIT
#
# steps.sh - the checks the check-kmod guest runs, sourced by /init
# (tests/kmod/init, which defines ok, check, expect_eq, wait_until...).
# More steps go in further tests/kmod/steps-*.sh files: /init sources
# every /kmod/steps*.sh in name order, and tests/kmod/run.sh copies them
# (list new ones in Makefile.am's EXTRA_DIST too).
#
# In the guest: /kt holds dtrace and the test programs built on the host
# with dtrace -h/-G and drti.o (tests/data/helperd: ctl with provider hdt,
# linked with libhdl.so, provider hdlib; plug.so, provider hdplug, to
# dlopen) with the shared libraries they need; /kmod holds the modules.
# The helper module serves /dev/dtrace/helper (drti.o's default device)
# and keeps its registry in /proc/dtrace/registry/<pid>, which
# `dtrace -l` reads with DTRACE_STATEDIR=/proc/dtrace.

# ---------------------------------------------------------------------
# The harness itself: a trivial module loads and unloads.

# shellcheck disable=SC2086 # KMOD_SELFTEST_ARGS: none, or warn=1
check "insmod kmod_selftest.ko (harness self-test)" \
	insmod "$KMOD_SELFTEST" $KMOD_SELFTEST_ARGS
expect_eq "/proc/kmod_selftest reads ok" ok "$(cat /proc/kmod_selftest 2>&1)"
check "rmmod kmod_selftest" rmmod kmod_selftest

# ---------------------------------------------------------------------
# The helper module (helper-driver/kmod).

if [ -z "$KMOD_HELPER" ]; then
	skip_test "helper module steps" "$KMOD_HELPER_WHY"
	return 0
fi

export DTRACE_STATEDIR=/proc/dtrace
reg=/proc/dtrace/registry
kmod_name=$(basename "$KMOD_HELPER" .ko)

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

answered() {
	grep -q -e "$2" "$1" 2>/dev/null
}

dead() {
	! kill -0 "$1" 2>/dev/null
}

# listing ARGS: `dtrace -l ARGS` without the header, the dtrace provider,
# the kernel providers (syscall, profile, proc) and the probe IDs, sorted
listing() {
	dtrace -l "$@" 2>&1 | awk 'NR > 1 && $2 != "dtrace" &&
		$2 != "syscall" && $2 != "profile" && $2 != "proc" {
		$1 = ""; print }' | sort
}

# ctl_start NAME: ctl reading commands from FIFO NAME.in (held open on
# descriptor 3 by the caller), answers in NAME.out; $ctl_pid
ctl_start() {
	rm -f "$1.in" "$1.out"
	mkfifo "$1.in"
	/kt/ctl <"$1.in" >"$1.out" 2>&1 &
	ctl_pid=$!
}

if ! check "insmod $kmod_name.ko" insmod "$KMOD_HELPER"; then
	diag "$(dmesg | tail -n 20)"
	return 0
fi
wait_until 20 test -c /dev/dtrace/helper
check "/dev/dtrace/helper is a character device" test -c /dev/dtrace/helper
check "/proc/dtrace/registry is a directory" test -d "$reg"
if [ ! -c /dev/dtrace/helper ] || [ ! -d "$reg" ]; then
	# every check below would fail the same way, slowly
	diag "no device or no registry: the program steps cannot run"
	check "rmmod $kmod_name" rmmod "$kmod_name"
	return 0
fi
expect_eq "the registry starts empty" "" "$(ls "$reg" 2>&1)"

# A program with probes in itself and in a library: two registrations,
# and dtrace -l lists exactly its probes.
ctl_start a
exec 3<>a.in # read-write: never blocks, so no EINTR
wait_until 200 answered a.out '^ready' || diag "ctl a: $(cat a.out)"
a=$ctl_pid
wait_until 100 has_regs "$a" 2
expect_eq "ctl registers the program and its library" 2 "$(regs "$a")"
check "the registry names the program" \
	grep -q -a "^reg .* ctl /kt/ctl\$" "$reg/$a"
check "the registry names the library" \
	grep -q -a "^reg .* libhdl.so /kt/libhdl.so\$" "$reg/$a"
check "the registry records the pid" grep -q -a "^pid $a\$" "$reg/$a"
printf ' hdt%s ctl main %s\n' "$a" command "$a" start >want.txt
listing -n 'hdt*:::' >got.txt
expect_file "dtrace -l -n 'hdt*:::' lists ctl's probes" want.txt got.txt
printf ' hdlib%s libhdl.so hdl_call call\n' "$a" >want.txt
listing -n 'hdlib*:::' >got.txt
expect_file "dtrace -l -n 'hdlib*:::' lists the library's probe" \
	want.txt got.txt
(unset DTRACE_STATEDIR; listing -n 'hdlib*:::') >got.txt
expect_file "dtrace -l without DTRACE_STATEDIR reads /proc/dtrace" \
	want.txt got.txt

# Exit: drti's destructor removes the registrations, the file goes.
echo quit >&3
exec 3>&-
wait_until 100 dead "$a"
wait "$a"
expect_eq "ctl exits with 0" 0 $?
wait_until 100 no_file "$a"
check "exit: the registry file is gone" no_file "$a"
expect_eq "dtrace -l lists nothing after the exit" "" "$(listing)"

# dlopen/dlclose of a plugin with probes: 2 -> 3 -> 2.
ctl_start b
exec 3<>b.in # read-write: never blocks, so no EINTR
wait_until 200 answered b.out '^ready' || diag "ctl b: $(cat b.out)"
b=$ctl_pid
wait_until 100 has_regs "$b" 2
expect_eq "second ctl: 2 registrations" 2 "$(regs "$b")"
echo "open /kt/plug.so" >&3
wait_until 100 answered b.out '^opened' || diag "dlopen: $(cat b.out)"
wait_until 100 has_regs "$b" 3
expect_eq "dlopen of plug.so: 3 registrations" 3 "$(regs "$b")"
check "the registry names the plugin" \
	grep -q -a "^reg .* plug.so /kt/plug.so\$" "$reg/$b"
expect_eq "dtrace -l -n 'hdplug*:::' lists the plugin's probe" \
	" hdplug$b plug.so plug_hello hello" "$(listing -n 'hdplug*:::')"
echo close >&3
wait_until 100 answered b.out '^closed' || diag "dlclose: $(cat b.out)"
wait_until 100 has_regs "$b" 2
expect_eq "dlclose: 2 registrations" 2 "$(regs "$b")"
expect_eq "dtrace -l: the plugin's probe is gone" "" \
	"$(listing | grep hdplug)"

# fork: the child registers under its own pid; SIGKILL (no destructor)
# still removes its file.
echo fork >&3
wait_until 100 answered b.out '^forked' || diag "fork: $(cat b.out)"
c=$(sed -n 's/^forked //p' b.out)
if [ -n "$c" ]; then
	wait_until 100 has_regs "$c" 2
	expect_eq "fork: the child has 2 registrations" 2 "$(regs "$c")"
	kill -KILL "$c"
	wait_until 100 no_file "$c"
	check "SIGKILL: the child's registry file is gone" no_file "$c"
else
	not_ok "fork: ctl forked no child"
fi
expect_eq "the parent still has 2 registrations" 2 "$(regs "$b")"
echo quit >&3
exec 3>&-
wait_until 100 dead "$b"
wait "$b"
wait_until 100 no_file "$b"
check "second ctl exits: its registry file is gone" no_file "$b"
expect_eq "the registry ends empty" "" "$(ls "$reg" 2>&1)"

check "rmmod $kmod_name" rmmod "$kmod_name"
check "rmmod: /dev/dtrace/helper is gone" test ! -e /dev/dtrace/helper
check "rmmod: /proc/dtrace is gone" test ! -e /proc/dtrace
