# SPDX-License-Identifier: MIT
#
# steps-kmod-guest.sh - the kernel helper module, dtrace_helper.ko
# (helper-driver/kmod) built for Debian's arm64 kernel by
# tests/arm64/guest.sh, in the qemu-system-aarch64 guest: what
# tests/kmod/steps.sh checks on x86-64, on aarch64's -G programs.
# Copied into the guest as /kmod/steps-kmod.sh, so tests/kmod/init
# sources it after steps-helperd.sh (whose daemon has stopped by then)
# and before steps-pid.sh; it unloads the module at its end.
#
# /kt/gprog (tests/arm64/gprog.c, -G with drti.c compiled for aarch64)
# waits for a byte on its standard input before it fires ("gprog N -").
# Checked:
#  - insmod: /dev/dtrace/helper is a character device, /proc/dtrace/registry
#    a directory, empty;
#  - gprog A and B register through the module's device (drti.o's
#    ADDDOF ioctl; no daemon runs): one registration each, origin ioctl,
#    module gprog, path /kt/gprog, in /proc/dtrace/registry/PID;
#  - `dtrace -l -n 'gp*:::'` lists exactly each one's four probes;
#  - DTRACE_BACKEND=fasttrap is refused, with the reason: there is no
#    dtrace_fasttrap.ko for arm64 (helper-driver/kmod/Kbuild);
#  - `dtrace -n 'gp*:::many ...'` with neither -p nor -c counts every
#    hit of both, exactly (25 of B, then 40 of A), per provider, each with
#    its own arguments (arg1 = arg0 + 1, arg8 = -9 - arg0);
#  - each registry file is gone once its process exits, and that of a
#    third, gprog C, killed with SIGKILL (no destructor ran);
#  - rmmod: /dev/dtrace/helper and /proc/dtrace are gone.

# the module's registry, read as steps-helperd.sh reads the daemon's
# (reg_line, reg_has, reg_gone: defined there, sourced before this)
km_reg=/proc/dtrace/registry
km_regline() { reg_line "$km_reg" "$1"; }
km_has_reg() { reg_has "$km_reg" "$1"; }
km_gone() { reg_gone "$km_reg" "$1"; }

if [ -z "${KMOD_HELPER:-}" ]; then
	skip_test "dtrace_helper.ko on arm64" "${KMOD_HELPER_WHY:-not built}"
elif ! check "insmod dtrace_helper.ko (built for arm64)" \
	insmod "$KMOD_HELPER"; then
	diag "$(dmesg | tail -n 20)"
else
	wait_until 20 test -c /dev/dtrace/helper
	check "/dev/dtrace/helper is a character device" \
		test -c /dev/dtrace/helper
	check "/proc/dtrace/registry is a directory" test -d "$km_reg"
	expect_eq "the registry starts empty" "" "$(ls "$km_reg" 2>&1)"

	rm -f /tmp/kgo-a /tmp/kgo-b /tmp/kgo-c
	mkfifo /tmp/kgo-a /tmp/kgo-b /tmp/kgo-c
	exec 7<>/tmp/kgo-a 8<>/tmp/kgo-b 9<>/tmp/kgo-c
	/kt/gprog 40 - <&7 >/dev/null 2>&1 7<&- 8<&- 9<&- &
	ga=$!
	/kt/gprog 25 - <&8 >/dev/null 2>&1 7<&- 8<&- 9<&- &
	gb=$!
	/kt/gprog 5 - <&9 >/dev/null 2>&1 7<&- 8<&- 9<&- &
	gc=$!
	wait_until 300 km_has_reg "$ga"
	expect_eq "gprog A registers through the module's device" \
		"1 ioctl gprog /kt/gprog" "$(km_regline "$ga")"
	wait_until 300 km_has_reg "$gb"
	expect_eq "gprog B registers through the module's device" \
		"1 ioctl gprog /kt/gprog" "$(km_regline "$gb")"
	wait_until 300 km_has_reg "$gc"
	check "the registry records C's pid" \
		grep -q -a "^pid $gc\$" "$km_reg/$gc"

	kill -KILL "$gc"
	wait "$gc"
	wait_until 300 km_gone "$gc"
	check "SIGKILL: C's registry file is gone" km_gone "$gc"

	DTRACE_STATEDIR=/proc/dtrace dtrace -l -n 'gp*:::' \
		>/tmp/kl.txt 2>/tmp/kl.err
	expect_eq "dtrace -l -n 'gp*:::' from /proc/dtrace exits 0" 0 "$?" ||
		diag "$(cat /tmp/kl.err)"
	printf '%s\n' "PROVIDER MODULE FUNCTION NAME" \
		"gp$ga gprog main many" "gp$ga gprog main name" \
		"gp$ga gprog main sdt" "gp$ga gprog stk_b deep" \
		"gp$gb gprog main many" "gp$gb gprog main name" \
		"gp$gb gprog main sdt" "gp$gb gprog stk_b deep" |
		sort >/tmp/kl-expect.txt
	awk '{ $1 = ""; sub(/^ /, ""); print }' /tmp/kl.txt | sort \
		>/tmp/kl.out
	expect_file "dtrace -l: each process's probes, from the module" \
		/tmp/kl-expect.txt /tmp/kl.out

	DTRACE_STATEDIR=/proc/dtrace DTRACE_BACKEND=fasttrap \
		dtrace -n 'gp*:::many' >/tmp/kf.txt 2>/tmp/kf.err 7<&- 8<&- 9<&-
	expect_eq "DTRACE_BACKEND=fasttrap: dtrace exits 1" 1 "$?"
	check "DTRACE_BACKEND=fasttrap: no dtrace_fasttrap.ko for arm64, said" \
		grep -q "dtrace_fasttrap.ko is not built for arm64" /tmp/kf.err ||
		diag "$(cat /tmp/kf.err)"

	DTRACE_STATEDIR=/proc/dtrace dtrace -q -n 'BEGIN { printf("ready\n"); }
	gp*:::many { @n[probeprov, probemod, probefunc] = count(); }
	gp*:::many /arg1 == arg0 + 1 && arg8 == -9 - arg0/ { @ok = count(); }
	gp*:::name /arg0 == 39/ { exit(0); }
	END { printa("%s %s %s %@d\n", @n); printa("%@d\n", @ok); }' \
		>/tmp/kr.txt 2>/tmp/kr.err 7<&- 8<&- 9<&- &
	dpid=$!
	if wait_until 600 grep -q '^ready$' /tmp/kr.txt; then
		echo >&8
		wait "$gb"
		expect_eq "gprog B exits 0" 0 "$?"
		echo >&7
	else
		diag "no ready from dtrace: $(cat /tmp/kr.err)"
		kill "$dpid"
		echo >&8
		echo >&7
	fi
	wait "$dpid"
	expect_eq "registry-wide gp*:::many on the module: dtrace exits 0" \
		0 "$?" || diag "$(cat /tmp/kr.err)"
	grep -v '^$' /tmp/kr.txt >/tmp/kr.out
	printf '%s\n' ready "gp$gb gprog main 25" "gp$ga gprog main 40" 65 \
		>/tmp/kr-expect.txt
	expect_file "registry-wide gp*:::many on the module: every hit, exactly" \
		/tmp/kr-expect.txt /tmp/kr.out
	expect_eq "registry-wide on the module: nothing on stderr" "" \
		"$(cat /tmp/kr.err)"
	wait "$ga"
	expect_eq "gprog A exits 0" 0 "$?"
	exec 7<&- 8<&- 9<&-

	wait_until 300 km_gone "$ga"
	check "exit: A's registry file is gone" km_gone "$ga"
	wait_until 300 km_gone "$gb"
	check "exit: B's registry file is gone" km_gone "$gb"
	expect_eq "the registry ends empty" "" "$(ls "$km_reg" 2>&1)"

	check "rmmod dtrace_helper" rmmod dtrace_helper
	check "rmmod: /dev/dtrace/helper is gone" test ! -e /dev/dtrace/helper
	check "rmmod: /proc/dtrace is gone" test ! -e /proc/dtrace
fi
