#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-hostile-files.sh: root's dtrace reads files another user controls
# (issue 17, parts 1 to 7).
#
# An unprivileged process (uid nobody) copies a probed program into a
# file of its own, maps it executable, and then keeps cutting the file
# to nothing and writing it back.  Root's `dtrace -l -p PID`,
# `dtrace -l --object=FILE`, `dtrace -n ... -p PID` and the start-up
# scan of dtrace-helperd read that file: a
# reader that maps it (libelf's ELF_C_READ_MMAP) dies with SIGBUS when a
# page it touches is past the file's new end, as they did in 3 to 5 of
# 20-40 runs before the fix.
# So do root's stacks (`ufunc()` of an address in that file, through
# libdwfl) and `dtrace -l -v --object`'s source lines.
# Each run must end with a status, 0 or an error, never a signal, and
# the same file left alone must still list its probes.  The in-process
# activation (-x activation=user) arms a process whose file is cut only
# now and then: its injected calls fault there, and must fail, not run
# again for ever (dtrace hung, and the process then died).  The traced runs
# (`dtrace -n -p`, `ufunc()`) take seconds each: 5 of each in make check,
# 20 under make check-long (tests/lib.sh's repeats).
#
# Then names that drive a terminal: a program compiled from a source
# file whose name holds ESC sequences (so DWARF carries it), under a file
# name with ESC, CR, a newline and a C1 CSI (0x9b, raw and in UTF-8).
# `dtrace -l -v --object`, `dtrace -l -v -p`, the error of a file that
# is no ELF, and the FUNCTION column `dtrace -n -p` prints for a function
# whose symbol holds ESC and CR must print no control byte but tab and
# newline, and exactly the rows there are.
#
# Last, dtrace-helperd's state directory: in a directory user nobody
# owns (with a `registry` link to a directory holding a file of root's,
# which a daemon before the fix deleted at start-up), in a group-writable
# one, below a symbolic link, and with `registry` itself a link, the
# daemon refuses to start and names the culprit; root's file is left
# alone; a directory of root's below sticky /tmp-like directories is
# taken.
#
# And its descriptors: a daemon limited to 300 (as systemd limits a
# service to 1,024) while 300 processes of user nobody register and stay:
# a pidfd each would take them all, and every later registration, root's
# included, failed with ESRCH.  Root and another user must still
# register, and the 300 be forgotten once they exit.
#
# And refused work (part 3): nobody sends 8 MiB blobs that only the last
# check refuses, 60 in a row, which cost the daemon a copy and a check
# each; after a few the daemon turns the rest away with EBUSY before
# copying anything, and root and another user register meanwhile (a
# daemon that refuses them slower than the 32 MiB/s it lets a user
# cost, a loaded ASan build, keeps the debt paid: no EBUSY is owed then,
# and the flood's time says so).
# Needs root (to run the attacker as another user) and setpriv.

. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: the attacker runs as another user"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
id nobody >/dev/null 2>&1 || skip "no user nobody"

hostile_cleanup() {
	[ -n "${atk_pid:-}" ] && kill -KILL "$atk_pid" 2>/dev/null
	[ -n "${hd_pid:-}" ] && kill -KILL "$hd_pid" 2>/dev/null
	mountpoint -q "$tmp/hdev" 2>/dev/null && umount -l "$tmp/hdev"
	cleanup
}
trap hostile_cleanup EXIT
trap 'exit 1' INT TERM HUP

cat >hf.d <<'D'
provider hf {
	probe p0(int);
};
D
cat >hf.c <<'C'
#include <stdlib.h>
#include <unistd.h>
#include "hf.h"
int main(int argc, char **argv)
{
	HF_P0(argc);
	if (argc > 1)
		sleep((unsigned)atoi(argv[1]));
	return 0;
}
C
cat >shrink.c <<'C'
/* shrink SRC DST [USEC]: map a copy of SRC at DST executable, then keep
 * cutting DST to nothing and writing it back (resting USEC between two
 * cuts), until SIGTERM (DST left whole) */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
static volatile sig_atomic_t stop;
static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}
int main(int argc, char **argv)
{
	struct stat st;
	char *buf;
	int src, fd;

	useconds_t rest = argc == 4 ? (useconds_t)atoi(argv[3]) : 0;

	if (argc < 3 || argc > 4 || (src = open(argv[1], O_RDONLY)) < 0 ||
	    fstat(src, &st) < 0 || !(buf = malloc(st.st_size)) ||
	    read(src, buf, st.st_size) != st.st_size)
		return 2;
	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || pwrite(fd, buf, st.st_size, 0) != st.st_size ||
	    mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
		 0) == MAP_FAILED)
		return 2;
	signal(SIGTERM, on_term);
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		if (ftruncate(fd, 0) < 0 ||
		    pwrite(fd, buf, st.st_size, 0) != st.st_size ||
		    (rest && usleep(rest) < 0 && !stop))
			return 3;
	return 0;
}
C
run_dtrace -h -s hf.d -o hf.h
expect_eq "dtrace -h" 0 "$status"
if ! $CC -O2 -c hf.c -o hf.o || ! "$DTRACE" -G -s hf.d -o hf-probes.o hf.o ||
   ! $CC -o hfprog hf.o hf-probes.o || ! $CC -O2 -o shrink shrink.c; then
	fail "cannot build the programs"
	finish
fi
chmod 755 "$tmp"
mkdir own && chown nobody own || exit 99

: >atk.out
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	./shrink ./hfprog own/victim >atk.out 2>atk.err &
atk_pid=$!
ready() { grep -q ready atk.out; }
if ! wait_until 100 ready; then
	fail "the attacker did not start: $(cat atk.err)"
	finish
fi

# runs WHAT N CMD...: N runs of CMD, none ended by a signal; a command
# (not a function) is given 120 s, and a run that takes longer is a hang
runs() {
	r_what=$1 r_n=$2
	shift 2
	r_to=
	[ -x "$1" ] && r_to="timeout -k 10 120"
	r_sig=0 r_ok=0 r_i=0 r_hung=0
	while [ $r_i -lt "$r_n" ]; do
		$r_to "$@" >/dev/null 2>r.err
		r_st=$?
		# 124: timeout's TERM; 137: its KILL 10 s later
		if [ -n "$r_to" ] && { [ $r_st -eq 124 ] || [ $r_st -eq 137 ]; }; then
			r_hung=$((r_hung + 1))
		elif [ $r_st -ge 128 ]; then
			r_sig=$((r_sig + 1)) r_last=$r_st
		fi
		[ $r_st -eq 0 ] && r_ok=$((r_ok + 1))
		r_i=$((r_i + 1))
	done
	expect_eq "$r_what: runs ended by a signal (last status ${r_last:-none})" \
		"0 of $r_n" "$r_sig of $r_n"
	expect_eq "$r_what: runs not done in 120 s" "0 of $r_n" "$r_hung of $r_n"
	echo "# $r_what: $r_ok of $r_n ended with status 0, the rest with an error"
}
runs "dtrace -l -p (attacker's pid)" 40 "$DTRACE" -l -p "$atk_pid"
runs "dtrace -l --object (attacker's file)" 40 "$DTRACE" -l --object=own/victim
# (each traced run is a dtrace start while the attacker keeps a CPU busy,
# seconds apiece: 5 runs in make check, 20 under make check-long)
ntraced=$(repeats 5 20)
if tracefs_at -e uprobe_events; then
	runs "dtrace -n -p (attacker's pid)" "$ntraced" "$DTRACE" -q -n \
		'hf$target:::p0 { } BEGIN { exit(0); }' -p "$atk_pid"
fi
# the stacks' names: libdwfl maps the file of an address a stack or
# ufunc() names (it died in 6 of 30 runs), and `-l -v` the file whose
# source lines it prints; both get a copy nobody can cut (elfsafe.c)
runs "dtrace -l -v --object (attacker's file)" 20 "$DTRACE" -l -v \
	--object=own/victim
if [ "${HAVE_BPF:-no}" = yes ]; then
	atk_base=$(awk '$6 ~ /own\/victim$/ { split($1, r, "-"); print r[1]; exit }' \
		"/proc/$atk_pid/maps")
	atk_main=$(nm hfprog | awk '$3 == "main" { print $1 }')
	atk_addr=$(printf '0x%x' $((0x$atk_base + 0x$atk_main)))
	runs "ufunc() of the attacker's address at profile-997" "$ntraced" \
		env DTRACE_BACKEND=bpf timeout -s KILL 60 "$DTRACE" -q -n \
		"profile-997 /pid == $atk_pid/ { trace(ufunc($atk_addr)); exit(0); }"
fi
# dtrace-helperd's start-up scan reads the files of running processes
# (it died in 3 of 65 starts): each start must come up and stop cleanly.
# timeout --foreground: the TERM below goes to the daemon and nothing
# else.  Without it timeout sends SIGCONT after the TERM, and a SIGCONT
# discards every pending stop signal; under the sanitizers one that came
# as the daemon's exit ran LeakSanitizer's check discarded the SIGSTOP
# of its stop-the-world tracer's PTRACE_ATTACH, and the tracer waited
# for ever in wait4() for the main thread to stop, the main thread
# spinning in sched_yield() for the tracer (the daemon's other thread,
# hd_guard.c's idle worker in pthread_cond_wait(), not attached yet):
# 1 in 10 to 60 stops here hung past timeout's 10 s.  Measured on the
# ASan daemon alone: stopped through timeout as here before, 3 of 75
# stops hung so; with --foreground 0 of 120, the TERM sent to the
# daemon itself 0 of 300, and that TERM and a SIGCONT each ms after it
# 3 of 17.  Not the daemon's doing: LeakSanitizer's check stays on.
scan_start() {
	# the old log must not answer for the new daemon; timeout bounds a
	# start that goes wrong (and passes the TERM below on)
	rm -f scan.log
	timeout --foreground -k 10 60 "$HELPERD" -f -v \
		--device "$tmp/sdev/helper" \
		--state-dir "$tmp/sstate" >scan.log 2>&1 &
	ss_pid=$!
	if ! wait_until 300 grep -q "serving $tmp/sdev/helper" scan.log; then
		kill -KILL "$ss_pid" 2>/dev/null
		wait "$ss_pid"
		return 1
	fi
	kill -TERM "$ss_pid"
	wait "$ss_pid"
}
if [ -x "${HELPERD:-}" ] && [ -c /dev/fuse ]; then
	runs "dtrace-helperd's start-up scan" 10 scan_start
	mountpoint -q "$tmp/sdev" 2>/dev/null && umount -l "$tmp/sdev"
fi

kill -TERM "$atk_pid"
wait "$atk_pid"
expect_eq "the attacker stopped with its file whole" 0 $?
atk_pid=

# The in-process activation (x86-64) arms a process by running system
# calls in it through the recorder's page of the file it maps: a file
# whole most of the time (cut for a moment every ms) gets its probes
# listed and armed, and then cut under the call.  The call faulted at
# its first instruction, and dtrace ran it again for ever, the process
# held (a run in three; CI's run-hostile-files.sh, 2026-12-04), and the
# process died of the SIGBUS once dtrace was killed.  Each run must end
# in its time, the process left running; some must have armed it.
if [ "$(uname -m)" = x86_64 ] && tracefs_at -e uprobe_events; then
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		./shrink ./hfprog own/victim2 1000 >atk.out 2>atk.err &
	atk_pid=$!
	if wait_until 100 ready; then
		runs "dtrace -x activation=user -n -p (a file cut now and then)" \
			"$ntraced" "$DTRACE" -x activation=user -q -n \
			'hf$target:::p0 { } BEGIN { exit(0); }' -p "$atk_pid"
		if [ "$r_ok" -gt 0 ]; then
			pass
		else
			fail "no run armed the process whose file is cut now and then: $(cat r.err)"
		fi
		kill -TERM "$atk_pid"
		wait "$atk_pid"
		expect_eq "that process, not killed by dtrace: its status" 0 $?
	else
		fail "the second attacker did not start: $(cat atk.err)"
	fi
	atk_pid=
fi

# the file at rest lists its probe, as before
run_dtrace -l --object=own/victim
expect_eq "the file at rest: status" 0 "$status"
expect_eq "the file at rest: its probe" \
	"hf main p0" \
	"$(awk '$2 == "hf" { print $2, $4, $5 }' out.txt | tr '\n' ' ' | sed 's/ $//')"

# names with control bytes: the module (file name), DWARF file names
esc=$(printf '\033')
nl=$(printf '\nx') nl=${nl%x}	# $(...) would drop a lone newline
src="src${esc}[2J${esc}]0;pwned$(printf '\007').c"
bad="own/lib${esc}[31m$(printf '\r')   99 forged${nl}row$(printf '\233')x$(printf '\302\233')y"
cp hf.c "$src" &&
$CC -g -O2 -I. -c "$src" -o hfg.o && "$DTRACE" -G -s hf.d -o hfg-probes.o hfg.o &&
$CC -g -o "$bad" hfg.o hfg-probes.o || { fail "cannot build the named program"; finish; }
ctl=$(printf '[\001-\010\013-\037\177\200-\237]')
# clean WHAT FILE: no control byte but tab and newline in FILE
clean() {
	if LC_ALL=C grep -q "$ctl" "$2"; then
		fail "$1: control bytes printed: $(LC_ALL=C grep "$ctl" "$2" | od -c | head -n 3)"
	else
		pass
	fi
}
run_dtrace -l -v --object="$bad"
expect_eq "-l -v --object of the named file: status" 0 "$status"
clean "-l -v --object: stdout" out.txt
clean "-l -v --object: stderr" err.txt
expect_eq "-l -v --object: the probe rows there are" 1 \
	"$(grep -c '^ *[0-9][0-9]* *hf ' out.txt)"
expect_grep "-l -v --object: the DWARF file name, escaped" \
	'src\\x1b\[2J\\x1b\]0;pwned\\x07\.c:' out.txt
expect_grep "-l -v --object: the module name, escaped" \
	'lib\\x1b\[31m\\r   99 forged\\nrow\\x9bx\\xc2\\x9by' out.txt

# the same program running: -p reads the file it maps
"./$bad" 60 &
bad_pid=$!
maps_bad() { grep -q forged "/proc/$bad_pid/maps"; }
wait_until 50 maps_bad
run_dtrace -l -v -p $bad_pid
expect_eq "-l -v -p of the named program: status" 0 "$status"
clean "-l -v -p: stdout" out.txt
clean "-l -v -p: stderr" err.txt
expect_eq "-l -v -p: the probe rows there are" 1 \
	"$(grep -c '^ *[0-9][0-9]* *hf[0-9]* ' out.txt)"
kill "$bad_pid"
wait "$bad_pid" 2>/dev/null

# the FUNCTION column of dtrace -n: an inline <sys/sdt.h> probe in a
# function whose symbol name holds ESC and CR (objcopy renames it)
if [ "$(id -u)" -eq 0 ] && tracefs_at -e uprobe_events &&
   command -v objcopy >/dev/null 2>&1; then
	cat >fn.c <<'C'
#include <unistd.h>
#include <sys/sdt.h>
__attribute__((noinline)) void work(int i) { DTRACE_PROBE1(hf, p0, i); }
int main(void)
{
	for (int i = 0; i < 600; i++) {
		work(i);
		usleep(100000);
	}
	return 0;
}
C
	if $CC -O2 -I"$top_srcdir/sdk/include" -c fn.c -o fn.o &&
	   objcopy --redefine-sym "work=w${esc}[2J$(printf '\r')k" fn.o &&
	   $CC -o fnprog fn.o; then
		./fnprog &
		fn_pid=$!
		timeout 60 "$DTRACE" -n 'hf$target:::p0 { exit(0); }' -p "$fn_pid" \
			>out.txt 2>err.txt
		expect_eq "dtrace -n -p, a hostile function name: status" 0 "$?"
		clean "dtrace -n -p: stdout" out.txt
		clean "dtrace -n -p: stderr" err.txt
		expect_grep "dtrace -n -p: FUNCTION escaped" \
			'w\\x1b\[2J\\rk:p0' out.txt
		kill "$fn_pid"
		wait "$fn_pid" 2>/dev/null
	else
		fail "cannot build the program with a hostile function name"
	fi
else
	echo "# not root, no tracefs or no objcopy: dtrace -n's FUNCTION column not checked"
fi

# a file that is no ELF, by a name with control bytes
printf 'not ELF' >"$bad.txt"
run_dtrace -l --object="$bad.txt"
expect_eq "-l --object of no ELF file: status" 1 "$status"
clean "-l --object of no ELF file: the error" err.txt

# dtrace-helperd's state directory
if [ -x "${HELPERD:-}" ] && [ -c /dev/fuse ]; then
	mkdir victim && echo precious >victim/123 || exit 99
	mkdir -p usr/state && chown -R nobody usr &&
	ln -s "$tmp/victim" usr/state/registry || exit 99
	mkdir grp && chmod 775 grp && chgrp "$(id -g nobody)" grp || exit 99
	mkdir real && ln -s "$tmp/real" via || exit 99
	mkdir -p rootsd && ln -s "$tmp/victim" rootsd/registry || exit 99
	# refused DIR WHAT PATTERN: the daemon does not start on state DIR
	refused() {
		timeout 30 "$HELPERD" -f --no-scan --device "$tmp/hdev/helper" \
			--state-dir "$1" >hd.log 2>&1
		expect_eq "state dir $2: the daemon's status" 1 $?
		expect_grep "state dir $2: the reason" "$3" hd.log
	}
	refused "$tmp/usr/state" "owned by nobody" \
		"unsafe state directory .*usr: is owned by uid $(id -u nobody), not by root"
	expect_eq "state dir owned by nobody: root's file left alone" precious \
		"$(cat victim/123 2>&1)"
	refused "$tmp/grp/state" "in a group-writable directory" \
		"grp: is writable by group or others (mode 0775)"
	refused "$tmp/via/state" "below a symbolic link" "via: is a symbolic link"
	refused "$tmp/rootsd" "whose registry is a symbolic link" \
		"rootsd/registry: is a symbolic link"
	expect_eq "state dirs refused: root's file left alone" precious \
		"$(cat victim/123 2>&1)"
	# a safe one, below a sticky world-writable directory, is taken
	mkdir sticky && chmod 1777 sticky || exit 99
	"$HELPERD" -f -v --no-scan --device "$tmp/hdev/helper" \
		--state-dir "$tmp/sticky/state" >hd.log 2>&1 &
	hd_pid=$!
	if wait_until 300 grep -q "serving $tmp/hdev/helper" hd.log; then
		pass
	else
		fail "a safe state dir below a sticky directory was refused: $(cat hd.log)"
	fi
	stop_pid "$hd_pid" TERM
	hd_pid=
	expect_eq "safe state dir: the daemon's status after SIGTERM" 0 "$stop_status"

	# descriptors
	: "${DOFCLIENT:=${top_builddir:-}/tests/tools/dofclient}"
	if [ -x "$DOFCLIENT" ] && command -v prlimit >/dev/null 2>&1; then
		prlimit --nofile=300:300 "$HELPERD" -f -v --no-scan \
			--check-interval=100 --device "$tmp/hdev/helper" \
			--state-dir "$tmp/fstate" >fd.log 2>&1 &
		hd_pid=$!
		if ! wait_until 300 grep -q "serving $tmp/hdev/helper" fd.log; then
			fail "the daemon limited to 300 descriptors did not start: $(cat fd.log)"
			finish
		fi
		mkfifo hold && exec 5<>hold || exit 99
		i=0
		while [ $i -lt 300 ]; do
			setpriv --reuid=nobody --regid="$(id -g nobody)" \
				--clear-groups "$DOFCLIENT" -d "$tmp/hdev/helper" \
				valid fd$i <hold >fd$i.out 2>&1 5>&- &
			i=$((i + 1))
		done
		all_in() { [ "$(cat fd*.out 2>/dev/null | grep -c '^valid: pid=')" -ge 300 ]; }
		wait_until 600 all_in
		expect_eq "300 processes of nobody registered" 300 \
			"$(cat fd*.out | grep -c '^valid: pid=[0-9]* gen=[1-9]')"
		echo | timeout 20 "$DOFCLIENT" -d "$tmp/hdev/helper" valid root \
			>root.out 2>&1
		expect_grep "root still registers" '^valid: pid=[0-9]* gen=[1-9]' root.out
		echo | timeout 20 setpriv --reuid=65533 --regid=65533 --clear-groups \
			"$DOFCLIENT" -d "$tmp/hdev/helper" valid other >other.out 2>&1
		expect_grep "another user still registers" '^valid: pid=[0-9]* gen=[1-9]' other.out
		expect_grep "the daemon says why some are polled" \
			"watched by the periodic check only" fd.log
		exec 5>&-
		none_left() { [ -z "$(ls "$tmp/fstate/registry")" ]; }
		if wait_until 300 none_left; then
			pass
		else
			fail "registrations of exited processes left: $(ls "$tmp/fstate/registry" | wc -l)"
		fi
		stop_pid "$hd_pid" TERM
		hd_pid=
		expect_eq "the daemon limited to 300 descriptors: status" 0 "$stop_status"

		# refused work: 8 MiB blobs that only the last check refuses,
		# in a loop, as nobody; root and another user register meanwhile
		"$HELPERD" -f -v --no-scan --device "$tmp/hdev/helper" \
			--state-dir "$tmp/bstate" >big.log 2>&1 &
		hd_pid=$!
		if wait_until 300 grep -q "serving $tmp/hdev/helper" big.log; then
			bb_t0=$(date +%s%N)
			DOFCLIENT_UID=65534 DOFCLIENT_FLOOD_N=60 timeout 300 \
				"$DOFCLIENT" -d "$tmp/hdev/helper" attack bigbad \
				>bigbad.out 2>&1 &
			bb_pid=$!
			sleep 0.5
			t0=$(date +%s%N)
			echo | timeout 20 "$DOFCLIENT" -d "$tmp/hdev/helper" valid \
				root >broot.out 2>&1
			t1=$(date +%s%N)
			echo | timeout 20 setpriv --reuid=65533 --regid=65533 \
				--clear-groups "$DOFCLIENT" -d "$tmp/hdev/helper" \
				valid other >bother.out 2>&1
			wait "$bb_pid"
			bb_ms=$(( ($(date +%s%N) - bb_t0) / 1000000 ))
			expect_grep "while nobody's refusals flood: root registers" \
				'^valid: pid=[0-9]* gen=[1-9]' broot.out
			expect_grep "while nobody's refusals flood: another user registers" \
				'^valid: pid=[0-9]* gen=[1-9]' bother.out
			echo "# root's registration took $(( (t1 - t0) / 1000000 )) ms, dofclient included; nobody's flood $bb_ms ms: $(cat bigbad.out)"
			expect_grep "refused work: some checked and refused (EINVAL)" \
				'einval=[1-9]' bigbad.out
			# EBUSY comes once nobody owes more than 32 MiB, paid back
			# at 32 MiB/s (hd_reg.c's "Fairness"): at the 60th request
			# 43 or more 8 MiB refusals (beyond the 16 answered before
			# their check) were charged, so a flood of under 9.8 s must
			# have met it; a daemon slower than that rate (2 CPUs
			# loaded, ASan: 60 checks past 10 s) keeps the debt paid,
			# and there is no EBUSY to see
			if grep -q 'ebusy=0 ' bigbad.out && [ "$bb_ms" -ge 10000 ]; then
				echo "# refused work: no EBUSY, the daemon refused 60 blobs in $bb_ms ms, slower than the 32 MiB/s it lets a user cost: its two checks not made"
			else
				expect_grep "refused work: the rest turned away at once (EBUSY)" \
					'ebusy=[1-9]' bigbad.out
				expect_grep "refused work: the daemon says why" \
					'owes [0-9]* KiB of refused work' big.log
			fi
		else
			fail "the daemon for the refused-work check did not start: $(cat big.log)"
		fi
		stop_pid "$hd_pid" TERM
		hd_pid=
	else
		echo "# no dofclient or no prlimit: the descriptor check is not run"
	fi
else
	echo "# no dtrace-helperd or no /dev/fuse: the daemon's checks are not run"
fi

finish
