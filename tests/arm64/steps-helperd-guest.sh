# SPDX-License-Identifier: MIT
#
# steps-helperd-guest.sh - dtrace-helperd built for aarch64 recording
# the probes of -G programs in the qemu-system-aarch64 guest of
# tests/arm64/guest.sh, and dtrace tracing them registry-wide (no -p,
# no -c), as on x86-64 (doc/DESIGN.md §6).  Copied into the guest as
# /kmod/steps-helperd.sh, so tests/kmod/init sources it after
# steps-guest.sh.  FUSE is a module in Debian's arm64 kernel: fuse.ko
# comes from the kernel's package (guest.sh) and is loaded first.
#
# /kt/gprog (tests/arm64/gprog.c, -G with drti.c compiled for aarch64)
# waits for a byte on its standard input before it fires ("gprog N -"),
# so it is registered, listed and traced before its first hit.  Checked:
#  - gprog A, started before the daemon, is found by the daemon's
#    start-up scan (origin "scan" in the registry);
#  - gprog B, started after, registers through drti.o's datagram (the
#    daemon's socket; drti.o's ADD, read from its memory and checked):
#    one registration, module gprog, path /kt/gprog;
#  - `dtrace -l -n 'gp*:::'` lists exactly each one's three DOF probes,
#    gpPID gprog main many, name and sdt (the <sys/sdt.h> site, which
#    -G records too, gp.d declaring the probe);
#  - `dtrace -n 'gp*:::many ...'` with neither -p nor -c counts every
#    hit of both, exactly (25 of B, then 40 of A), per provider, each
#    with B's or A's own arguments (arg1 = arg0 + 1, arg8 = -9 - arg0);
#  - each registration is gone from the registry once its process
#    exits, and the daemon stops on SIGTERM with status 0.

# A registry's files, the daemon's here and the module's in
# steps-kmod.sh (which /kmod/init sources after this file):
# reg_line DIR PID: "COUNT ORIGIN MOD PATH" of PID's file in DIR
reg_line() {
	grep -a '^reg ' "$1/$2" 2>/dev/null |
		awk '{ n++; o = $8 " " $9 " " $10 } END { print n + 0, o }'
}

reg_has() {
	grep -a -q '^reg ' "$1/$2" 2>/dev/null
}

reg_gone() {
	[ ! -e "$1/$2" ]
}

hd_reg=/run/dtrace/registry
hd_regline() { reg_line "$hd_reg" "$1"; }
hd_has_reg() { reg_has "$hd_reg" "$1"; }
hd_gone() { reg_gone "$hd_reg" "$1"; }

# the daemon is up: its socket bound and then its device file written
hd_up() {
	[ -S /run/dtrace/helper.sock ] && [ -e /run/dtrace/device ]
}

if [ ! -x /kt/dtrace-helperd ]; then
	skip_test "dtrace-helperd on arm64" "no A64_HELPERD given"
elif check "insmod fuse.ko (the helper's device is served through FUSE)" \
	insmod /kt/fuse.ko; then
	rm -f /tmp/hgo-a /tmp/hgo-b
	mkfifo /tmp/hgo-a /tmp/hgo-b
	exec 7<>/tmp/hgo-a 8<>/tmp/hgo-b

	# A: running before the daemon, left to its start-up scan
	/kt/gprog 40 - <&7 >/dev/null 2>&1 7<&- 8<&- &
	ga=$!
	dtrace-helperd -f -v >/tmp/helperd.log 2>&1 7<&- 8<&- &
	hd_pid=$!
	wait_until 300 hd_up
	check "dtrace-helperd serves its socket and device" hd_up ||
		diag "$(cat /tmp/helperd.log)"
	wait_until 300 hd_has_reg "$ga"
	expect_eq "gprog started before the daemon: found by its scan" \
		"1 scan gprog /kt/gprog" "$(hd_regline "$ga")" ||
		diag "$(cat /tmp/helperd.log)"

	# B: drti.o's datagram
	/kt/gprog 25 - <&8 >/dev/null 2>&1 7<&- 8<&- &
	gb=$!
	wait_until 300 hd_has_reg "$gb"
	expect_eq "gprog started after the daemon: registered by drti.o" \
		"1 ioctl gprog /kt/gprog" "$(hd_regline "$gb")" ||
		diag "$(cat /tmp/helperd.log)"

	dtrace -l -n 'gp*:::' >/tmp/hl.txt 2>/tmp/hl.err
	expect_eq "dtrace -l -n 'gp*:::' exits 0" 0 "$?" ||
		diag "$(cat /tmp/hl.err)"
	printf '%s\n' "PROVIDER MODULE FUNCTION NAME" \
		"gp$ga gprog main many" "gp$ga gprog main name" \
		"gp$ga gprog main sdt" "gp$ga gprog stk_b deep" \
		"gp$gb gprog main many" "gp$gb gprog main name" \
		"gp$gb gprog main sdt" "gp$gb gprog stk_b deep" |
		sort >/tmp/hl-expect.txt
	awk '{ $1 = ""; sub(/^ /, ""); print }' /tmp/hl.txt | sort \
		>/tmp/hl.out
	expect_file "dtrace -l: each process's probes, from the registry" \
		/tmp/hl-expect.txt /tmp/hl.out

	dtrace -q -n 'BEGIN { printf("ready\n"); }
	gp*:::many { @n[probeprov, probemod, probefunc] = count(); }
	gp*:::many /arg1 == arg0 + 1 && arg8 == -9 - arg0/ { @ok = count(); }
	gp*:::name /arg0 == 39/ { exit(0); }
	END { printa("%s %s %s %@d\n", @n); printa("%@d\n", @ok); }' \
		>/tmp/hr.txt 2>/tmp/hr.err 7<&- 8<&- &
	dpid=$!
	if wait_until 600 grep -q '^ready$' /tmp/hr.txt; then
		echo >&8
		wait "$gb"
		expect_eq "gprog B exits 0" 0 "$?"
		echo >&7
	else
		diag "no ready from dtrace: $(cat /tmp/hr.err)"
		kill "$dpid"
	fi
	wait "$dpid"
	expect_eq "registry-wide gp*:::many: dtrace exits 0" 0 "$?" ||
		diag "$(cat /tmp/hr.err)"
	grep -v '^$' /tmp/hr.txt >/tmp/hr.out
	printf '%s\n' ready "gp$gb gprog main 25" "gp$ga gprog main 40" 65 \
		>/tmp/hr-expect.txt
	expect_file "registry-wide gp*:::many: every hit of both, exactly" \
		/tmp/hr-expect.txt /tmp/hr.out
	expect_eq "registry-wide: nothing on stderr" "" "$(cat /tmp/hr.err)"
	wait "$ga"
	expect_eq "gprog A exits 0" 0 "$?"
	exec 7<&- 8<&-

	wait_until 300 hd_gone "$ga"
	check "A's registration withdrawn when it exits" hd_gone "$ga"
	wait_until 300 hd_gone "$gb"
	check "B's registration withdrawn when it exits" hd_gone "$gb"

	kill "$hd_pid"
	wait "$hd_pid"
	expect_eq "dtrace-helperd stops on SIGTERM with status 0" 0 "$?" ||
		diag "$(cat /tmp/helperd.log)"
fi
