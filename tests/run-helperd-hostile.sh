#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-helperd-hostile.sh: dtrace-helperd against hostile clients.
#
# A real daemon serves $tmp/dev/helper (FUSE) with its registry in
# $tmp/state.  A well-behaved client (tests/tools/dofclient valid)
# registers first and stays; then dofclient sends malformed requests,
# each from a process of its own:
#  - every malformed DOF (header, section table, sections, strings,
#    probes, probe sites outside executable mappings, sizes that overflow
#    or ask for gigabytes), bad dof_helper_t records and DOF addresses,
#    ioctl numbers of the wrong size or direction, REMOVE of generations
#    not the caller's (also by value and through NULL): each is refused
#    with the errno of the table below (for an ADDDOF, the verdict of the
#    daemon's check, which dofclient asks for with SYNC: the daemon
#    answers first and checks after), no registry file appears for the
#    attacker, the daemon keeps answering, and for an ADDDOF that reached
#    the daemon its log names the attacker's pid and the reason;
#  - a blob rewritten by a second thread during the ioctl; 50 processes
#    that exit while their ADDDOF is in flight (no file left, each exit
#    heard through its pidfd, not the periodic check); the per-process quotas
#    (1,024 registrations, 16 MiB of DOF); 1,000 refusals in a tight
#    loop, which the log rate-limits ("N more refusal(s) not logged");
#    200 refusals of new processes, which must not cost the daemon a
#    /proc read each (strace counts its opens); 256 processes of nobody
#    looping on refused 8 MiB blobs, whose reads and answers the daemon
#    must hold to what the user's debt allows (its SIGUSR1 counts) while
#    another user registers;
#  - a DOF in a page of a FUSE file the attacker serves itself, slowly
#    (also with the mount detached, and eight such at once): other
#    processes must still be served meanwhile.
# Throughout, the well-behaved client's registry file stays
# byte-identical, and the daemon's RSS grows by less than 16 MiB.
# SIGTERM then unmounts the device and leaves that file on disk.
#
# Known daemon bugs are listed in known_issues: their checks report
# XFAIL while they fail and make the test fail (XPASS) once they pass,
# so the list is emptied as the daemon is fixed.
#
# HELPERD_WRAPPER, if set, is prepended to the daemon's command line
# (e.g. "valgrind --error-exitcode=9"); the RSS check is then skipped.
# Needs root (allow_other, reading client memory) and /dev/fuse.

# pass never fails, so "check && pass || fail" is if-then-else here;
# functions run through wait_until look unreachable to shellcheck:
# shellcheck disable=SC2015,SC2317

. "$top_srcdir/tests/lib.sh"

: "${DOFCLIENT:=${top_builddir:-}/tests/tools/dofclient}"
: "${HELPERD_WRAPPER:=}"

helperd_setup timeout mountpoint umount
if [ ! -x "$DOFCLIENT" ]; then
	fail "DOFCLIENT ($DOFCLIENT) is not built"
	finish
fi

# Checks of once-known daemon bugs, all fixed; a name listed here turns
# its check into an expected failure (and an unexpected pass into a
# failure, so the list never outlives a fix):
#  comm-log	the caller's process name went into the log unescaped, so
#		a name with a newline forged log lines
#  fuse-detached  a DOF page in a file of a FUSE mount detached with
#		umount -l after mapping was read, not refused
#  site-reason	a probe site whose address wraps around (dofpr_addr +
#		offset > 2^64) was refused as "too many probe sites"
known_issues=""

xfail_count=0
# check_known NAME WHAT: $? of the check just made decides
check_known() {
	ck_ok=$?
	case " $known_issues " in
	*" $1 "*)
		if [ "$ck_ok" -eq 0 ]; then
			fail "XPASS: $2 (known issue '$1' seems fixed: drop it from known_issues)"
		else
			echo "XFAIL: $2 (known issue '$1')" >&2
			xfail_count=$((xfail_count + 1))
		fi
		;;
	*)
		if [ "$ck_ok" -eq 0 ]; then pass; else fail "$2"; fi
		;;
	esac
}

hostile_cleanup() {
	# The daemon first: if it is stuck reading an attacker's FUSE page
	# while that attacker waits in its ioctl, killing the attacker first
	# would leave both in D state for good.
	helperd_kill_daemon
	for m in "$tmp"/stall*; do
		if mountpoint -q "$m" 2>/dev/null; then
			umount -f "$m" 2>/dev/null
			umount -l "$m" 2>/dev/null
		fi
	done
	helperd_cleanup
}
trap hostile_cleanup EXIT

# ---------------------------------------------------------------------
# Helpers

# alive: the daemon runs and answers a request
alive() {
	kill -0 "$hd_pid" 2>/dev/null &&
		timeout 20 "$DOFCLIENT" ping >/dev/null 2>&1
}

rss_kb() {
	sed -n 's/^VmRSS:[^0-9]*\([0-9]*\) kB/\1/p' "/proc/$hd_pid/status"
}

# field NAME LINE: the value of NAME=VALUE in LINE
field() {
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

# attack NAME [ARG...]: run dofclient attack, its last line in $line and
# the attacker's pid in $apid
attack() {
	timeout 120 "$DOFCLIENT" attack "$@" >a.out 2>a.err
	at_status=$?
	line=$(grep "^$1: pid=" a.out | tail -n 1)
	apid=$(field pid "$line")
	if [ "$at_status" -ne 0 ] || [ -z "$apid" ]; then
		fail "dofclient attack $1: status $at_status: $(cat a.out a.err)"
		apid=none
		return 1
	fi
	return 0
}

# logged PID PATTERN: the daemon's log has a refusal of PID whose reason
# matches PATTERN (an extended regular expression)
logged() {
	grep -F "pid $1 (" "$log" | grep "DOF refused: " | grep -q -E -e "$2"
}

# The log's rate limit: at most 10 refusals a window, a whole second of
# CLOCK_MONOTONIC (helper-driver/hd_log.c, take()), which dofclient sec
# names.  rl_pace before a request that may be refused and logged,
# rl_count after it: a request's line is in a window from the one it
# began in to the one it ended in, so counting each in the window it
# ended in, and starting none in a window that has 8 already, leaves at
# most 8 there and the one that began there and ended later: 9.
# fresh_window: the next request's line is in a window no line before it
# is in (dofclient nextsec).  (In place of a 0.11 s sleep after each and
# 1.1 s for a fresh second: 12 s of this test's 44 on an idle machine.)
rl_win=none
rl_n=0
rl_pace() {
	if [ "$("$DOFCLIENT" sec)" = "$rl_win" ] && [ "$rl_n" -ge 8 ]; then
		"$DOFCLIENT" nextsec
	fi
}
rl_count() {
	rl_now=$("$DOFCLIENT" sec)
	if [ "$rl_now" = "$rl_win" ]; then
		rl_n=$((rl_n + 1))
	else
		rl_win=$rl_now rl_n=1
	fi
}
fresh_window() {
	"$DOFCLIENT" nextsec
}

# ---------------------------------------------------------------------
# The daemon and the well-behaved client

helperd_start -v || finish
alive
expect_eq "the daemon answers" 0 "$?"

mkfifo valid.in
"$DOFCLIENT" valid <valid.in >valid.out 2>&1 &
v_pid=$!
bg_pids="$bg_pids $v_pid"
exec 3>valid.in
wait_until 200 grep -q "gen=" valid.out
v_line=$(grep "^valid: pid=" valid.out)
v_gen=$(field gen "$v_line")
expect_eq "valid client's pid" "$v_pid" "$(field pid "$v_line")"
case $v_gen in
[1-9]*) pass ;;
*) fail "valid client not registered: $(cat valid.out)" ;;
esac
if [ -f "$reg/$v_pid" ]; then
	pass
	cp "$reg/$v_pid" valid.reg
	expect_grep "registry file has the registration" "^reg $v_gen " \
		valid.reg
else
	fail "no registry file $reg/$v_pid for the valid client"
	: >valid.reg
fi
rss_before=$(rss_kb)

# ---------------------------------------------------------------------
# One malformed request per process: NAME ERRNO LOG-PATTERN ("-": the
# kernel or the ioctl decoder refuses it before it becomes an ADDDOF,
# nothing is logged; comm-control's line is checked below; "!KNOWN
# PATTERN": the log check of a known issue)

cat >cases.txt <<'EOF'
bad-magic EINVAL bad DOF magic
bad-model EINVAL data model 1 is not LP64
bad-encoding EINVAL encoding 2 is not little-endian
bad-version EINVAL DOF version 3 unsupported
bad-difvers EINVAL DIF version 1 is not 2
ident-pad EINVAL ident byte 13 is not zero
flags EINVAL header flags 0x1 are not zero
pad EINVAL header pad is not zero
hdrsize EINVAL bad header size 56
sechdr-overlap EINVAL bad section header size 16
sectab-over-hdr EINVAL bad section table offset 0x20
huge-secnum EINVAL 4294967295 section headers end beyond the load size
overflow-secnum EINVAL 4294967295 section headers end beyond the load size
overflow-secoff EINVAL bad section table offset 0xfffffffffffffff8
huge-filesz E2BIG DOF size 4294967296 exceeds the limit
huge-max E2BIG DOF size 18446744073709551615 exceeds the limit
huge-loadsz EINVAL load size 1099511627776 outside
limit-loadsz EFAULT is not mapped|Bad address
truncated EFAULT Bad address|is not mapped
hdr-straddle EFAULT Bad address|is not mapped
sec-over-hdr EINVAL section 0 overlaps the DOF header
sec-over-sectab EINVAL section 5 overlaps the section table
sec-overlap EINVAL provider strings: section index 9 of 6
sec-offset-range EINVAL section 5: offset 0x1d0 beyond the load size
sec-size-range EINVAL section 5: size 0x190 runs beyond the load size
overflow-offset EINVAL section 0: offset 0xfffffffffffffff8 beyond
overflow-size EINVAL section 0: size 0xffffffffffffff30 runs beyond
no-load-flag EINVAL needs the LOAD flag
bad-align EINVAL alignment 3 is not a power of 2
strtab-unterminated EINVAL string table does not end in NUL
stridx-range EINVAL probe name: string index 0x8a outside the table
prov-stridx-huge EINVAL provider name: string index 0xffffffff outside
probe-name-long EINVAL longer than 63
prov-name-long EINVAL longer than 53
func-name-long EINVAL longer than 127
func-control EINVAL control character
prov-bad-char EINVAL bad character
argidx EINVAL argument map entry 2 is not below nargc
argmap-overrun EINVAL overruns PRARGS
nargc-huge EINVAL argument type: string index
zero-offsets EINVAL has no offsets
offidx-range EINVAL overrun PROFFS
probe-pad EINVAL reserved fields are not zero
prov-attr EINVAL bad attribute
site-heap EINVAL is not in an executable mapping
site-data EINVAL is not in an executable mapping
site-stack EINVAL is not in an executable mapping
site-null EINVAL site 0x0 is not in an executable mapping
site-kernel EINVAL site 0xffffffff81000000 is not in an executable mapping
site-wrap EINVAL !site-reason 0xef|wraps
enoff-outside EINVAL is not in an executable mapping
dof-null EFAULT 0x0 is not mapped|0x0: Bad address
dof-kernel EFAULT 0xffffffff81000000( is not mapped|: Bad address)
dof-unmapped EFAULT is not mapped
dof-guard EFAULT Bad address
dof-wrap EFAULT wraps|0xffffffffffffffe0: Bad address
mod-unterminated EINVAL module name is not NUL-terminated
mod-control EINVAL module name has control characters
mod-del EINVAL module name has control characters
comm-control EINVAL -
comm-c1 EINVAL bad DOF magic
arg-null EFAULT -
arg-kernel EFAULT -
arg-short EFAULT -
cmd-size-small ENOTTY -
cmd-size-big ENOTTY -
cmd-size-max ENOTTY -
cmd-noarg ENOTTY -
cmd-read ENOTTY -
cmd-rw ENOTTY -
cmd-remove-long ENOTTY -
cmd-other-type ENOTTY -
dir-ioctl ENOTTY -
EOF

# every attack dofclient knows has an expectation here
"$DOFCLIENT" list >names.txt
while read -r name; do
	grep -q "^$name " cases.txt || fail "attack $name has no expected result"
done <names.txt
expect_eq "attacks in the table" "$(wc -l <names.txt)" "$(wc -l <cases.txt)"

comm_pid=none
while read -r name errno keyword; do
	rl_pace
	attack "$name"
	at_ok=$?
	rl_count
	[ "$at_ok" -eq 0 ] || continue
	[ "$name" = comm-control ] && comm_pid=$apid
	expect_eq "$name" "$name: pid=$apid rc=-1 errno=$errno registry=absent" \
		"$line"
	[ ! -e "$reg/$apid" ] && pass ||
		fail "$name: a registry file for attacker $apid"
	case $keyword in
	-) ;;
	!*)
		kname=${keyword%% *}
		kpat=${keyword#* }
		logged "$apid" "$kpat"
		check_known "${kname#!}" "$name: refusal of pid $apid logged with '$kpat'"
		;;
	*)
		if logged "$apid" "$keyword"; then
			pass
		else
			fail "$name: no refusal of pid $apid with '$keyword' in the log"
			grep -F "pid $apid (" "$log" | sed 's/^/    | /' >&2
		fi
		;;
	esac
	alive || fail "$name: the daemon no longer answers"
done <cases.txt

# The process name came into the log as it was: no forged line, and
# the refusal is one line naming the pid and the reason.
! grep -q "^FORGED" "$log" && logged "$comm_pid" "bad DOF magic"
check_known comm-log "a newline in the caller's process name forges a log line"
# and C1 controls (raw and UTF-8) and bytes of no UTF-8 character in a
# name come out as \xNN, not as bytes a terminal obeys
if LC_ALL=C grep -q "$(printf '\233')\\|$(printf '\377')" "$log"; then
	fail "a C1 control or ill-formed UTF-8 from a process name in the log"
	LC_ALL=C grep -n "$(printf '\233')\\|$(printf '\377')" "$log" | od -c | head >&2
elif grep -qF '(\xc2\x9b2J\x9b1m\xff)' "$log"; then
	pass
else
	fail "comm-c1's name not in the log as \\xNN"
	grep -F "DOF refused" "$log" | tail -3 | sed 's/^/    | /' >&2
fi

# ---------------------------------------------------------------------
# REMOVE of what is not the caller's

for c in "remove-other EINVAL $v_gen" "remove-never EINVAL" \
	"remove-zero EINVAL" "remove-negative EINVAL" \
	"remove-byvalue EFAULT $v_gen" "remove-null EFAULT"; do
	# shellcheck disable=SC2086 # the case is a word list
	set -- $c
	attack "$1" ${3:+"$3"} || continue
	expect_eq "$1" "$1: pid=$apid rc=-1 errno=$2 registry=absent" "$line"
	cmp -s valid.reg "$reg/$v_pid" && pass ||
		fail "$1: the valid client's registry file changed"
done
alive || fail "the daemon no longer answers after the REMOVEs"

# ---------------------------------------------------------------------
# A blob changing under the daemon: each ADDDOF is accepted (the copy
# was consistent) or refused with EINVAL or EFAULT, never anything else

fresh_window # of the log rate limit (ENOTTY, REMOVE above)
attack race
expect_eq "race: only acceptance, EINVAL or EFAULT" 0 "$(field other "$line")"
r_ok=$(field ok "$line") r_einval=$(field einval "$line")
r_efault=$(field efault "$line")
expect_eq "race: every request answered" "$(field n "$line")" \
	$((${r_ok:-0} + ${r_einval:-0} + ${r_efault:-0}))
expect_eq "race: nothing left registered" absent "$(field registry "$line")"
grep -F "pid $apid (" "$log" | grep -q "DOF refused: " && pass ||
	fail "race: no refusal of pid $apid logged"
echo "# $line" >&2
alive || fail "the daemon no longer answers after the race"

# ---------------------------------------------------------------------
# Processes that exit while their ADDDOF is in flight leave nothing

attack exit-race
expect_eq "exit-race: registry files left" 0 "$(field leftover "$line")"
# each exit reached the daemon through its pidfd: the periodic check's
# poll of every pidfd (which drops a process whose wake-up never came,
# and says so) had nothing to do
grep -q "its pidfd never woke the loop" "$log" &&
	fail "exit-race: exits the daemon heard only from its periodic check: $(grep "its pidfd never woke the loop" "$log")" ||
	pass
alive || fail "the daemon no longer answers after the exit race"

# ---------------------------------------------------------------------
# Quotas: 1,024 registrations, then ENOSPC; 16 MiB of DOF, then ENOSPC.
# The registrations go when the process exits.

fresh_window # of the log rate limit
attack quota
expect_eq "quota" "quota: pid=$apid ok=1024 rc=-1 errno=ENOSPC registry=present" \
	"$line"
logged "$apid" "1024 registrations" && pass ||
	fail "quota: refusal of pid $apid not logged"
q_pid=$apid
wait_until 100 test ! -e "$reg/$q_pid" && pass ||
	fail "quota: $reg/$q_pid outlived its process"

fresh_window
attack quota-bytes
expect_eq "quota-bytes" \
	"quota-bytes: pid=$apid ok=2 rc=-1 errno=ENOSPC registry=present" "$line"
logged "$apid" "memory limit|bytes more" && pass ||
	fail "quota-bytes: refusal of pid $apid not logged"
echo "# $(grep '^quota-bytes: churn' a.out) (the daemon rewrites the 16 MiB registry file per ADDDOF)" >&2
qb_pid=$apid
wait_until 100 test ! -e "$reg/$qb_pid" && pass ||
	fail "quota-bytes: $reg/$qb_pid outlived its process"
alive || fail "the daemon no longer answers after the quotas"

# ---------------------------------------------------------------------
# A DOF page the attacker serves itself through FUSE, late.  A page of
# a mounted FUSE file that is not resident is refused without being
# read; one whose mount was detached is read on a worker the daemon
# abandons after 2 s.  Either way other processes are served.

if [ -n "$HELPERD_WRAPPER" ]; then
	# valgrind runs one thread at a time and holds its lock through
	# process_vm_readv: a stalled read would freeze the whole daemon
	echo "# FUSE stalls not tried under $HELPERD_WRAPPER" >&2
else
attack fuse-stall "$tmp/stall" 30
expect_eq "fuse-stall" "fuse-stall: pid=$apid rc=-1 errno=EFAULT registry=absent" \
	"$line"
grep -q "read requested" a.out && fail "fuse-stall: the daemon read the page" ||
	pass
logged "$apid" "FUSE" && pass ||
	fail "fuse-stall: refusal of pid $apid not logged"
mountpoint -q "$tmp/stall" && fail "fuse-stall: $tmp/stall still mounted" ||
	pass
alive || fail "the daemon no longer answers after fuse-stall"

# The attackers below end their stalls themselves; they are never
# killed while the daemon may be reading their page.
"$DOFCLIENT" attack fuse-hidden "$tmp/stall-h" 6 >hidden.out 2>&1 &
fh_pid=$!
bg_pids="$bg_pids $fh_pid"
if wait_until 100 grep -q "fuse-hidden: pid=" hidden.out; then
	pass
	# answered while the page is still being waited for
	timeout 5 "$DOFCLIENT" ping >/dev/null 2>&1 && pass ||
		fail "the daemon does not answer during fuse-hidden"
else
	fail "fuse-hidden: no answer within 10 s: $(cat hidden.out)"
fi
wait "$fh_pid"
expect_eq "fuse-hidden client's status" 0 "$?"
forget_pid "$fh_pid"
line=$(grep "^fuse-hidden: pid=" hidden.out)
expect_eq "fuse-hidden: refused" "rc=-1 registry=absent" \
	"rc=$(field rc "$line") registry=$(field registry "$line")"
! grep -q "read requested" hidden.out
check_known fuse-detached "a non-resident page of a detached FUSE mount is not read"
alive || fail "the daemon no longer answers after fuse-hidden"

# Eight attackers of one unprivileged user (nobody) holding such reads
# for 2 minutes, one after the other (the daemon waits 2 s for each).
# That user may be refused meanwhile; another user and root must not.
# Once the attackers are killed (their ioctls have been answered), the
# daemon's readers come back and registrations work again.
sr_pids=
sr_ok=true
for i in 1 2 3 4 5 6 7 8; do
	DOFCLIENT_UID=65534 "$DOFCLIENT" attack fuse-hidden "$tmp/stall-$i" \
		120 >"stall-$i.out" 2>&1 &
	sr_pids="$sr_pids $!"
	bg_pids="$bg_pids $!"
	if ! wait_until 100 grep -q "fuse-hidden: pid=" "stall-$i.out"; then
		fail "stalling attacker $i: no answer within 10 s"
		sr_ok=false
		break
	fi
done
if $sr_ok; then
	echo "# stalling attackers: $(sed -n 's/^fuse-hidden: .* errno=\([A-Z0-9]*\) .*/\1/p' stall-*.out | sort | uniq -c | tr -s ' \n' ' ')" >&2
	for u in 65533 0; do
		DOFCLIENT_UID=$u attack legit
		echo "# uid $u with 8 reads of nobody's stuck: $line" >&2
		[ "$(field rc "$line")" -gt 0 ] 2>/dev/null
		check_known stuck-readers "uid $u registers while nobody's 8 attackers hold stalled reads"
	done
	DOFCLIENT_UID=65534 attack legit
	echo "# nobody itself meanwhile: $line" >&2
fi
for p in $sr_pids; do
	kill -TERM "$p" 2>/dev/null
done
for p in $sr_pids; do
	wait_until 1500 dead "$p" || fail "stalling attacker $p does not exit"
	wait "$p" 2>/dev/null
	forget_pid "$p"
done
legit_again() {
	timeout 20 "$DOFCLIENT" attack legit >a.out 2>&1 &&
		grep -q "^legit: pid=[0-9]* rc=[1-9]" a.out
}
wait_until 100 legit_again && pass ||
	fail "registrations still fail after the stalling attackers died: $(cat a.out)"
threads() {
	find "/proc/$hd_pid/task" -mindepth 1 -maxdepth 1 | wc -l
}
few_threads() {
	[ "$(threads)" -le 2 ]
}
wait_until 100 few_threads && pass ||
	fail "the daemon still has $(threads) threads after the stalls ended"
alive || fail "the daemon no longer answers after the stalled reads"
fi

# ---------------------------------------------------------------------
# 1,000 refusals in a tight loop: at most 10 log lines a second, the
# rest counted in "N more refusal(s) not logged" lines, which appear at
# the first refusal of a later second.  A refusal a second before and
# after the flood keep other processes' refusals out of its seconds.

fresh_window
attack bad-magic
fresh_window
log_mark=$(wc -l <"$log")
attack flood
f_pid=$apid
expect_eq "flood" "flood: pid=$f_pid n=1000 einval=1000 other=0 registry=absent" \
	"$line"
fresh_window
attack bad-magic
logged "$apid" "bad DOF magic" && pass ||
	fail "the refusal after the flood was not logged"
tail -n +$((log_mark + 1)) "$log" >flood.log
f_lines=$(grep -c -F "pid $f_pid (" flood.log)
f_notes=$(grep -c "more refusal(s) not logged" flood.log)
f_suppressed=$(sed -n 's/.*: \([0-9]*\) more refusal(s) not logged$/\1/p' \
	flood.log | awk '{ s += $1 } END { print s + 0 }')
expect_eq "flood: logged + not logged refusals" 1000 \
	$((f_lines + f_suppressed))
[ "$f_notes" -ge 1 ] && pass || fail "flood: no 'more refusal(s) not logged' line"
[ "$f_lines" -le $((10 * (f_notes + 1))) ] && pass ||
	fail "flood: $f_lines lines logged in $((f_notes + 1)) second(s)"
echo "# flood: $f_lines refusals logged, $f_suppressed counted in $f_notes line(s)" >&2
alive || fail "the daemon no longer answers after the flood"

# ---------------------------------------------------------------------
# 10,000 malformed requests from an unprivileged user (header, checker
# and site-check refusals in turn) while 100 legitimate processes
# register: the daemon stays up, the attacker's refusals beyond its
# debt's limit are turned away unchecked, and every legitimate
# registration is recorded and listed.

fresh_window
DOFCLIENT_UID=65534 DOFCLIENT_FLOOD_N=10000 DOFCLIENT_FLOOD_MIXED=1 \
	"$DOFCLIENT" attack flood >flood10k.out 2>&1 3>&- &
fl_pid=$!
bg_pids="$bg_pids $fl_pid"
rm -f legit.in
mkfifo legit.in
exec 4<>legit.in # read-write: the clients' opens do not wait for it
legit_pids=
i=0
while [ $i -lt 100 ]; do
	"$DOFCLIENT" valid <legit.in >"legit-$i.out" 2>&1 3>&- 4>&- &
	legit_pids="$legit_pids $!"
	i=$((i + 1))
done
bg_pids="$bg_pids $legit_pids"
wait "$fl_pid"
forget_pid "$fl_pid"
# Each refusal costs the user 64 KiB of debt, paid back at 32 MiB/s, so
# at least the first 256 are checked and refused with EINVAL; past the
# 32 MiB the user owes, ADDDOFs are turned away at once (EBUSY, counted
# as "other" by dofclient) -- nothing is registered either way.
fl_line=$(sed -n 's/^flood: pid=[0-9]* //p' flood10k.out)
fl_einval=$(field einval "$fl_line")
fl_other=$(field other "$fl_line")
expect_eq "10,000 malformed requests as uid 65534: n and registry" \
	"n=10000 registry=absent" \
	"$(echo "$fl_line" | tr ' ' '\n' | grep -E '^(n|registry)=' | tr '\n' ' ' | sed 's/ $//')"
[ "${fl_einval:-0}" -ge 256 ] &&
	[ $((${fl_einval:-0} + ${fl_other:-0})) -eq 10000 ] && pass ||
	fail "10,000 malformed requests as uid 65534: $fl_line (at least 256 EINVAL, the rest EBUSY)"
echo "# 10,000 malformed requests: $fl_einval refused after a check, $fl_other turned away (debt)" >&2
# 10,000 x 64 KiB is 625 MiB owed, 20 s of paying back: some must have
# been turned away (at 1 KiB a refusal, all were checked, and the flood
# kept the daemon busy for ten times the CPU it cost the attacker).
# Under a wrapper (valgrind) the flood may take long enough to pay.
[ -n "$HELPERD_WRAPPER" ] || [ "${fl_other:-0}" -gt 0 ] && pass ||
	fail "10,000 malformed requests as uid 65534: none turned away for the debt ($fl_line)"
all_registered() {
	for p in $legit_pids; do
		[ -f "$reg/$p" ] || return 1
	done
}
wait_until 300 all_registered && pass ||
	fail "not every one of 100 legitimate processes is registered"
n_listed=0
for p in $legit_pids; do
	"$DTRACE" -l -p "$p" >/dev/null 2>&1 && n_listed=$((n_listed + 1))
done
expect_eq "dtrace -l lists each of the 100 legitimate processes" 100 "$n_listed"
alive || fail "the daemon no longer answers after the flood of 10,000"
exec 4>&-
for p in $legit_pids; do
	wait_until 100 dead "$p" || fail "legitimate client $p did not exit"
	forget_pid "$p"
done
none_left() {
	for p in $legit_pids; do
		[ ! -e "$reg/$p" ] || return 1
	done
}
wait_until 100 none_left && pass ||
	fail "registrations of exited legitimate clients are left"

# ---------------------------------------------------------------------
# What a refusal costs the daemon: 200 processes of nobody, one after
# the other, each sending one ADDDOF with a control byte in its module
# name.  The daemon used to read two /proc files per refusal (the
# caller's status and stat, for the log line), even when the log's limit
# of ten lines a second then left the line out: a flood of new processes
# made it read /proc for each.  Now only a printed line costs that: at
# most two opens per line the log printed for them (strace on the daemon
# counts the opens, the log the lines).  How many lines the limit lets
# through depends on how fast the loop runs (all 200 when it takes over
# 20 s, as under ASan at -j2), so the opens are held to the lines, not
# to a fixed number; where the limit left none out the old daemon could
# not be told apart, and that is said.

if [ -z "$HELPERD_WRAPPER" ] && command -v strace >/dev/null 2>&1; then
	strace -f -e trace=openat -o opens.txt -p "$hd_pid" 2>strace.err &
	st_pid=$!
	bg_pids="$bg_pids $st_pid"
	wait_until 100 grep -q "attached" strace.err ||
		fail "strace did not attach to the daemon: $(cat strace.err)"
	mc_mark=$(wc -l <"$log")
	i=0
	n_einval=0
	while [ $i -lt 200 ]; do
		DOFCLIENT_UID=65534 "$DOFCLIENT" attack mod-control >mc.out 2>&1
		grep -q "^mod-control: pid=[0-9]* rc=-1 errno=EINVAL" mc.out &&
			n_einval=$((n_einval + 1))
		i=$((i + 1))
	done
	kill -INT "$st_pid" 2>/dev/null
	wait "$st_pid" 2>/dev/null
	forget_pid "$st_pid"
	expect_eq "200 module names with a control byte: all EINVAL" 200 \
		"$n_einval"
	n_open=$(grep -c '"/proc/' opens.txt)
	n_said=$(tail -n +$((mc_mark + 1)) "$log" |
		grep -c "DOF refused: module name has control characters")
	echo "# 200 refusals of new processes: $n_said logged, $n_open /proc opens in the daemon" >&2
	[ "$n_said" -lt 200 ] ||
		echo "# the log's limit left no refusal out (the loop was slow): the old daemon's cost would look the same" >&2
	[ "$n_open" -le $((2 * n_said)) ] && pass ||
		fail "200 refusals of new processes, $n_said of them logged, cost the daemon $n_open /proc opens (two a refusal: looked up for a log line that is not printed)"
	alive || fail "the daemon no longer answers after the 200 refusals"
else
	echo "# refusals' /proc reads not counted: no strace, or a wrapper" >&2
fi

# ---------------------------------------------------------------------
# The well-behaved client was never disturbed; memory is bounded

cmp -s valid.reg "$reg/$v_pid" && pass ||
	fail "the valid client's registry file changed"
rss_after=$(rss_kb)
echo "# daemon RSS: ${rss_before} kB before the attacks, ${rss_after} kB after" >&2
if [ -n "$HELPERD_WRAPPER" ]; then
	echo "# RSS not checked under $HELPERD_WRAPPER" >&2
elif grep -q __asan_init "$HELPERD"; then
	echo "# RSS not checked: the daemon is built with AddressSanitizer" >&2
elif [ -n "$rss_before" ] && [ -n "$rss_after" ] &&
     [ $((rss_after - rss_before)) -lt 16384 ]; then
	pass
else
	fail "daemon RSS grew from ${rss_before} kB to ${rss_after} kB"
fi

# ---------------------------------------------------------------------
# 256 processes of nobody, each sending 8 MiB blobs that fail the last
# check in a loop without waiting for the verdict: over 3 s of the flood
# the daemon reads and checks no more than the debts let through (the
# pay-back rate's 32 MiB a second, the 32 MiB forgiven, and the blobs in
# hand: at most 24 of 8 MiB where it read 12 measured), and answers the
# refusals for debt no faster than their holds allow (a few thousand in
# 3 s, where answering 192 of the 256 at once, again and again, when a
# user could have only 64 held, gave hundreds of thousands); another
# user's registration is still recorded meanwhile.  The counts are the
# daemon's own (SIGUSR1's line), not its CPU time, which a loaded or
# memory-starved machine inflates: its ticks are printed only (7-14 of
# 300 on the 2-vCPU VM; 0.75 of a CPU with the 64-held cap, 0.34 with
# every held caller's next blob read once the debt was paid down, which
# the bytes checked catch).
# After the RSS check: the blobs copied and checked are 8 MiB each, and
# the allocator keeps what they took.

if [ -n "$HELPERD_WRAPPER" ]; then
	echo "# 256-process flood not run under $HELPERD_WRAPPER" >&2
else
	# daemon_ticks: clock ticks of CPU of the daemon's threads, its
	# reaped children and its live checker
	daemon_ticks() {
		{
			cut -d')' -f2 "/proc/$hd_pid/stat" |
				awk '{ print $12 + $13 + $14 + $15 }'
			for c in $(pgrep -P "$hd_pid"); do
				cut -d')' -f2 "/proc/$c/stat" 2>/dev/null |
					awk '{ print $12 + $13 }'
			done
		} | awk '{ s += $1 } END { print s + 0 }'
	}
	# daemon_counts: "MS OWED CHECKED BYTES": the time in ms, then the
	# refusals for debt, the blobs checked and their bytes, from the
	# counts line a SIGUSR1 has the daemon log
	daemon_counts() {
		dc_n=$(grep -c " checked (" "$log")
		dc_ms=$(($(date +%s%N) / 1000000))
		kill -USR1 "$hd_pid"
		wait_until 100 sh -c '[ "$(grep -c " checked (" "$1")" -gt "$2" ]' \
			_ "$log" "$dc_n" || return 1
		grep " checked (" "$log" | tail -n 1 |
			sed -n "s/.*(\([0-9]*\) for a user's debt).* \([0-9]*\) checked (\([0-9]*\) bytes).*/$dc_ms \1 \2 \3/p"
	}
	hz=$(getconf CLK_TCK)
	fl_pids=
	i=0
	while [ $i -lt 256 ]; do
		DOFCLIENT_UID=65534 DOFCLIENT_NOSYNC=1 \
			DOFCLIENT_FLOOD_N=100000000 \
			"$DOFCLIENT" attack bigbad >/dev/null 2>&1 3>&- &
		fl_pids="$fl_pids $!"
		i=$((i + 1))
	done
	bg_pids="$bg_pids $fl_pids"
	sleep 2 # the first blobs checked and refused: the user owes
	c0=$(daemon_counts)
	t0=$(daemon_ticks)
	sleep 3
	c1=$(daemon_counts)
	t1=$(daemon_ticks)
	DOFCLIENT_UID=65533 timeout 20 "$DOFCLIENT" attack legit >fl256.out 2>&1
	for p in $fl_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in $fl_pids; do
		wait "$p" 2>/dev/null
		forget_pid "$p"
	done
	echo "# 256-process flood: the daemon used $((t1 - t0)) ticks of $hz a second in 3 s" >&2
	# shellcheck disable=SC2086 # four numbers each
	set -- $c0 $c1
	if [ $# -ne 8 ]; then
		fail "the daemon's counts at SIGUSR1 not read: '$c0', '$c1' (log: $(grep " checked (" "$log" | tail -n 1))"
	else
		fl_ms=$(($5 - $1))
		fl_owed=$(($6 - $2))
		fl_nchk=$(($7 - $3))
		fl_mib=$((($8 - $4) >> 20))
		# what the debts let through in that time, and two blobs
		fl_max=$((32 * fl_ms / 1000 + 32 + 16))
		echo "# 256-process flood over $fl_ms ms: $fl_nchk blobs ($fl_mib MiB) checked, $fl_owed refusals for debt" >&2
		# and some: the debt lets 4 a second through, and the counts
		# must count them
		[ "$fl_nchk" -ge 1 ] && pass ||
			fail "256 processes of nobody flooding 8 MiB refusals: no blob checked in $fl_ms ms, where the debt lets 4 a second through (the counts: '$c0', '$c1')"
		[ "$fl_mib" -le "$fl_max" ] && pass ||
			fail "256 processes of nobody flooding 8 MiB refusals had the daemon check $fl_nchk blobs, $fl_mib MiB, in $fl_ms ms (at most $fl_max MiB: what the debt lets through)"
		# a held refusal waits at least 1 ms: 256 callers could come back
		# 256,000 times a second at worst; answered at once, far more
		fl_omax=$((256 * fl_ms / 10))
		[ "$fl_owed" -le "$fl_omax" ] && pass ||
			fail "256 processes of nobody flooding 8 MiB refusals were answered $fl_owed times for debt in $fl_ms ms (at most $fl_omax: each held 10 ms or more)"
	fi
	grep -q "^legit: pid=[0-9]* rc=[1-9][0-9]* errno=0 registry=present" \
		fl256.out && pass ||
		fail "uid 65533 not registered during the 256-process flood: $(cat fl256.out)"
	alive || fail "the daemon no longer answers after the 256-process flood"
fi

# ---------------------------------------------------------------------
# SIGTERM: unmounted, the live client's registry kept

stop_pid "$hd_pid" TERM
expect_eq "daemon exit status" 0 "$stop_status"
mountpoint -q "$tmp/dev" && fail "$tmp/dev still mounted after SIGTERM" ||
	pass
[ -f "$reg/$v_pid" ] && pass ||
	fail "the live client's registry file is gone after SIGTERM"
cmp -s valid.reg "$reg/$v_pid" && pass ||
	fail "the live client's registry file changed at SIGTERM"
grep -q "refused" "$log" && pass || fail "no refusal count in the exit line"

exec 3>&-
if wait_until 100 dead "$v_pid"; then
	wait "$v_pid"
	expect_eq "valid client's status" 0 "$?"
else
	fail "the valid client did not exit"
fi
forget_pid "$v_pid"

[ "$xfail_count" -eq 0 ] ||
	echo "# $xfail_count check(s) of known daemon bugs failed as expected" >&2
finish
