#!/bin/sh
# SPDX-License-Identifier: MIT
#
# dtrace -l over the helper's registry: real programs built with the
# dtrace under test run here (each waits on its own FIFO), and
# tests/tools/regwrite records each one's DOF in a private
# $DTRACE_STATEDIR the way dtrace-helperd does (read from the process's
# memory at its __SUNW_dof), so this runs without the daemon.
#
#  - a PIE with a shared library (two registrations, generation order)
#    and a non-PIE program: the exact listing, the provider named with
#    the pid (myapp<pid>), module and function, processes in pid order;
#  - -p: only that process's probes, IDs as in the full listing; a pid
#    that does not exist, and one without probes, are errors; one that
#    registered nothing: the probes of the files it maps, each file
#    opened once (strace, as root: by its /proc/PID/map_files entry);
#  - -v: each site's run-time address is the link-time site (the
#    program's stapsdt note location, inside the function nm names)
#    plus the load bias /proc/PID/maps shows, with the FILE:LINE addr2line
#    gives; a program replaced on disk after it started gets no lines;
#  - a registry file of a process that exited, or whose pid now belongs
#    to another process (start time differs), is ignored silently; a
#    damaged file is reported and skipped, the others still listed;
#    a missing registry is an empty one, one that cannot be read (not
#    a directory) is said once, the rest listed;
#  - a registry that grows does not grow dtrace -l or dtrace -n
#    (issue 17, amplification): 4 and then 16 processes of 2,000 probes,
#    every row listed with its ID, the peak RSS (GNU time) the same
#    within 1 MiB, where a table of every record grew by 11 MB;
#  - `dtrace -n 'BEGIN { ... }'` opens no registry file (strace), and a
#    description naming big<pid>'s provider opens that file alone
#    (issue 28, part 5: every registry-wide run read every file);
#    `dtrace -l -n BEGIN` opens none either, and `dtrace -l -n
#    big<pid>:::p7` and `dtrace -l -p <pid> -n 'big$target:::p7'`
#    only the files up to that pid's (those below to count the IDs, which stay the full listing's:
#    the rows checked against it), `dtrace -l -n syscall::read:entry`
#    all of them (its ID counts every registered probe).

. "$top_srcdir/tests/lib.sh"

: "${REGWRITE:?REGWRITE must name tests/tools/regwrite}"
require_G nm readelf addr2line mkfifo
[ -r /proc/self/maps ] || skip "no /proc"

# source lines come from libdw (elfutils), which dtrace always links
have_lines=yes
ldd "$DTRACE" 2>/dev/null | grep -q libdw || have_lines=no

registry_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap registry_cleanup EXIT
trap 'exit 1' INT TERM HUP

# row ID PROVIDER MODULE FUNCTION NAME: one line of dtrace -l
row() {
	printf '%5s %10s %17s %33s %s\n' "$1" "$2" "$3" "$4" "$5"
}

cat >p.d <<'D'
#pragma D attributes Evolving/Evolving/Common provider myapp provider
provider myapp {
	probe query__start(const char *q, int n);
	probe query__done(int status, long rows);
	probe tick();
};
D
cat >kv.d <<'D'
provider kv {
	probe put(const char *key, unsigned long len);
};
D
cat >app.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "p.h"
int lib_run(int n);
static __attribute__((noinline)) int helper(const char *q)
{
	MYAPP_QUERY_START(q, 1);
	return 1;
}
/* app FIFO READY: say so in READY, then wait for a byte on FIFO */
int main(int argc, char **argv)
{
	FILE *fp;
	char c;
	int fd;

	(void)argc;
	helper("x");
	MYAPP_QUERY_DONE(lib_run(2), 1L);
	fp = fopen(argv[2], "w");
	if (fp)
		fclose(fp);
	fd = open(argv[1], O_RDONLY);
	MYAPP_TICK();
	return fd < 0 || read(fd, &c, 1) < 0;
}
C
cat >lib.c <<'C'
#include "kv.h"
int lib_run(int n)
{
	KV_PUT("k", (unsigned long)n);
	return n + 1;
}
C

run_dtrace -h -s p.d
expect_eq "-h p.d" 0 "$status"
run_dtrace -h -s kv.d
expect_eq "-h kv.d" 0 "$status"
$CC -g -O2 -fPIC -c lib.c -o lib.o &&
	$CC -g -O2 -fPIE -c app.c -o app-pie.o &&
	$CC -g -O2 -fno-PIE -c app.c -o app-nopie.o ||
	fail "cannot compile"
"$DTRACE" -G -s kv.d -o kv-probes.o lib.o &&
	"$DTRACE" -G -s p.d -o pie-probes.o app-pie.o &&
	"$DTRACE" -G -s p.d -o nopie-probes.o app-nopie.o ||
	fail "dtrace -G failed"
$CC -g -shared lib.o kv-probes.o -o libq.so &&
	$CC -g -fPIE -pie app-pie.o pie-probes.o -L. -lq -Wl,-rpath,"$tmp" \
		-o app &&
	$CC -g -no-pie app-nopie.o nopie-probes.o -L. -lq \
		-Wl,-rpath,"$tmp" -o nopie &&
	cp app app5 || fail "cannot link"

mkdir state
DTRACE_STATEDIR=$tmp/state
export DTRACE_STATEDIR
# drti.o stays quiet: this test plays the helper
DTRACE_DOF_INIT_DISABLE=1
export DTRACE_DOF_INIT_DISABLE

# start N PROGRAM: run PROGRAM waiting on fifoN, its pid in pidN
start() {
	mkfifo "fifo$1"
	"./$2" "fifo$1" "ready$1" &
	eval "pid$1=\$!"
	bg_pids="$bg_pids $!"
	wait_until 100 test -e "ready$1" || fail "program $1 did not start"
}
# release N: let program N finish, and reap it
release() {
	eval "rl_pid=\$pid$1"
	echo x >"fifo$1"
	wait "$rl_pid"
	forget_pid "$rl_pid"
}
# register N PROGRAM: record program N's DOF, and its library's
register() {
	eval "rg_pid=\$pid$1"
	"$REGWRITE" state "$rg_pid" "$2" - - - libq.so - - - ||
		fail "regwrite for program $1 ($2) failed"
}

start 1 app
start 2 nopie
start 3 app
start 4 app
start 5 app5
for n in 1 2 3 4 5; do
	eval "prog$n=\$(basename \"\$(readlink /proc/\$pid$n/exe)\")"
	eval "register $n \"\$prog$n\""
done
# process 4 exits: its file stays behind, stale
release 4

expect_eq "regwrite wrote the files" 5 "$(ls state/registry | wc -l)"
expect_grep "two registrations, generation order" \
	"^reg 2 0x[0-9a-f]* 0x[0-9a-f]* 0x[0-9a-f]* [0-9]* [0-9]* ioctl libq.so $tmp/libq.so\$" \
	state/registry/"$pid1"

# rows_of N ID: the rows of process N from ID on; next ID in $next_id
rows_of() {
	eval "ro_pid=\$pid$1 ro_exe=\$prog$1"
	row "$2" "myapp$ro_pid" "$ro_exe" helper query-start
	row $(($2 + 1)) "myapp$ro_pid" "$ro_exe" main query-done
	row $(($2 + 2)) "myapp$ro_pid" "$ro_exe" main tick
	row $(($2 + 3)) "kv$ro_pid" libq.so lib_run put
}
# The kernel providers' rows (syscall, profile, proc) come after the
# others, with IDs that follow (tests/run-kprov.sh checks them): this test
# is about the registry's, so its listings leave them out.
kernel_rows_out() {	# FILE
	awk '$2 != "syscall" && $2 != "profile" && $2 != "proc"' "$1" >"$1.u" &&
		mv "$1.u" "$1"
}
run_dtrace() {
	"$DTRACE" "$@" >out.txt 2>err.txt
	status=$?
	kernel_rows_out out.txt
}

# expected N...: the full listing of the live processes N..., pid order
expected() {
	row ID PROVIDER MODULE FUNCTION NAME
	row 1 dtrace "" "" BEGIN
	row 2 dtrace "" "" END
	row 3 dtrace "" "" ERROR
	ex_id=4
	for ex_n in $(for n in "$@"; do eval "echo \$pid$n $n"; done |
		      sort -n | cut -d' ' -f2); do
		rows_of "$ex_n" $ex_id
		ex_id=$((ex_id + 4))
	done
}

# ---------------------------------------------------------------------
# The listing

expected 1 2 3 5 >expected.txt
run_dtrace -l
expect_eq "dtrace -l: status" 0 "$status"
expect_eq "dtrace -l: no warnings (the stale file is ignored)" "" "$(cat err.txt)"
expect_file_eq "dtrace -l" expected.txt out.txt
cp out.txt full.txt

# the functions are the programs'
for f in helper main lib_run; do
	expect_grep "nm knows $f" " [tT] $f\\(\\.[a-z0-9.]*\\)\\{0,1\\}\$" \
		"$(nm app libq.so >nm.txt; echo nm.txt)"
done

# -p: that process only, IDs unchanged; selections combine with it
run_dtrace -l -p "$pid2"
expect_eq "-p: status" 0 "$status"
{ head -n 4 full.txt; grep "[a-z]$pid2 " full.txt; } >expected.txt
expect_file_eq "-p $pid2" expected.txt out.txt
run_dtrace -l -p "$pid2" -p "$pid5" -n 'kv*:::'
{ head -n 1 full.txt; grep "kv\\($pid2\\|$pid5\\) " full.txt; } >expected.txt
expect_file_eq "-p twice with -n" expected.txt out.txt
run_dtrace -l -P "myapp$pid3" -n "kv$pid1:libq.so:lib_run:put"
{ head -n 1 full.txt; grep "myapp$pid3 \\|kv$pid1 " full.txt; } >expected.txt
expect_file_eq "-P with a pid, -n of another" expected.txt out.txt
expect_eq "pid-less provider names match nothing" 1 \
	"$("$DTRACE" -l -P myapp >/dev/null 2>&1; echo $?)"

run_dtrace -l -p "$pid4"
expect_eq "-p of a dead process: status" 1 "$status"
expect_eq "-p of a dead process: message" \
	"dtrace: failed to grab pid $pid4: No such process" "$(cat err.txt)"
expect_eq "-p of a dead process: nothing listed" "" "$(cat out.txt)"
run_dtrace -l -p $$
expect_eq "-p of a process without probes: status" 1 "$status"
expect_grep "-p of a process without probes: message" \
	"^dtrace: failed to grab pid $$: no USDT probes in the files it maps, none registered" err.txt

# a process that registered nothing: the probes of the files it maps,
# what tracing it with -p enables, numbered after the registry's
start 6 app
prog6=$(basename "$(readlink "/proc/$pid6/exe")")
{
	row ID PROVIDER MODULE FUNCTION NAME
	row 1 dtrace "" "" BEGIN
	row 2 dtrace "" "" END
	row 3 dtrace "" "" ERROR
	rows_of 6 20
} >expected.txt
run_dtrace -l -p "$pid6"
expect_eq "-p of an unregistered process: status" 0 "$status"
expect_file_eq "-p of an unregistered process: its files' probes" expected.txt out.txt
# each file it maps read through one open (its load bias and its probes
# share it: sdk/objfile.h); as root, through its mapping (map_files)
if command -v strace >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	strace -f -qq -e trace=open,openat -o l6.tr "$DTRACE" -l -p "$pid6" \
		>/dev/null 2>&1
	grep -v '= -1 ' l6.tr | grep -o "\"/proc/$pid6/map_files/[^\"]*\"" \
		>l6.files
	expect_eq "-p of an unregistered process: its files read by mapping" \
		yes "$([ -s l6.files ] && echo yes)"
	expect_eq "-p of an unregistered process: each file opened once" \
		"" "$(sort l6.files | uniq -d)"
else
	echo "# no strace, or not root: the opens of -p's files are not counted"
fi
release 6

# ---------------------------------------------------------------------
# -v: run-time sites

# bias N FILE: load bias of FILE in process N (mapping at offset 0 less
# the first PT_LOAD's page)
bias() {
	eval "bi_pid=\$pid$1"
	bi_start=$(awk -v f="$(readlink -f "$2")" \
		'$6 == f && $3 == "00000000" { print $1; exit }' \
		/proc/"$bi_pid"/maps | cut -d- -f1)
	bi_vaddr=$(readelf -lW "$2" | awk '$1 == "LOAD" { print $3; exit }')
	echo $((0x$bi_start - (bi_vaddr & ~4095)))
}

# check_sites N FILE PROVIDER: every site of PROVIDER<pid> in process N
# (in FILE) is a note location + bias, inside its function, with the
# line addr2line gives
check_sites() {
	eval "cs_pid=\$pid$1"
	cs_file=$2
	cs_prov=$3$cs_pid
	cs_bias=$(bias "$1" "$cs_file")
	readelf -nW "$cs_file" | sed -n 's/.*Location: \(0x[0-9a-f]*\),.*/\1/p' |
		while read -r a; do printf '%d\n' "$a"; done | sort >notes.txt
	nm -S "$cs_file" >nm.txt
	run_dtrace -lv -P "$cs_prov"
	expect_eq "-lv $cs_prov: status" 0 "$status"
	: >sites.txt
	cs_n=0
	cs_func=
	while IFS= read -r l; do
		case $l in
		"") continue ;;
		"		0x"*) ;;
		"	"*) continue ;;
		*) cs_func=$(echo "$l" | awk 'NF == 5 { print $4 }'); continue ;;
		esac
		# shellcheck disable=SC2086
		set -- $l
		cs_link=$(($1 - cs_bias))
		echo "$cs_link" >>sites.txt
		cs_n=$((cs_n + 1))
		# inside the function nm names (or one of its clones)
		cs_in=no
		while read -r lo sz ty name; do
			case $ty in t | T) ;; *) continue ;; esac
			case $name in "$cs_func" | "$cs_func".*) ;; *) continue ;; esac
			if [ "$cs_link" -ge $((0x$lo)) ] &&
			   [ "$cs_link" -lt $((0x$lo + 0x$sz)) ]; then
				cs_in=yes
			fi
		done <nm.txt
		expect_eq "$cs_prov: site $1 is in $cs_func" yes "$cs_in"
		cs_want=$(addr2line -e "$cs_file" "$(printf '0x%x' "$cs_link")" |
			sed 's/ (discriminator [0-9]*)//')
		[ "$have_lines" = yes ] || cs_want=
		expect_eq "$cs_prov: site $1: FILE:LINE" "$cs_want" "${2-}"
	done <out.txt
	expect_eq "-lv $cs_prov: sites found" yes "$([ "$cs_n" -gt 0 ] && echo yes)"
	sort sites.txt >sites.sorted
	if comm -23 sites.sorted notes.txt | grep -q .; then
		fail "-lv $cs_prov: sites that are no note location: $(comm -23 sites.sorted notes.txt | tr '\n' ' ')"
	else
		pass
	fi
}

check_sites 1 app myapp
check_sites 1 libq.so kv
check_sites 2 nopie myapp
expect_eq "non-PIE: bias 0" 0 "$(bias 2 nopie)"
expect_eq "PIE: a bias" yes "$([ "$(bias 1 app)" -ne 0 ] && echo yes)"
expect_grep "base recorded for the PIE" \
	"^reg 1 0x$(printf '%x' "$(bias 1 app)") " state/registry/"$pid1"

# process 5's program is replaced on disk: addresses, but no lines
cp app app5.new && mv app5.new app5
run_dtrace -lv -P "myapp$pid5"
expect_eq "replaced program: status" 0 "$status"
expect_eq "replaced program: sites without lines" \
	"$(grep -c '^		0x[0-9a-f]*$' out.txt)" "$(grep -c '^		0x' out.txt)"
expect_eq "replaced program: three sites" 3 "$(grep -c '^		0x' out.txt)"

# ---------------------------------------------------------------------
# Stale and damaged files

# process 3's file, recorded with another start time: a reused pid
f3=state/registry/$pid3
cp "$f3" f3.orig
{ head -n 2 f3.orig; echo "start 1"; tail -n +4 f3.orig; } >"$f3"
expected 1 2 5 >expected.txt
run_dtrace -l
expect_eq "reused pid: status" 0 "$status"
expect_eq "reused pid: silent" "" "$(cat err.txt)"
expect_file_eq "reused pid: not listed" expected.txt out.txt

# damaged: the other processes are still listed, with a warning
head -c 200 f3.orig >"$f3"
run_dtrace -l
expect_eq "damaged file: status" 0 "$status"
expect_file_eq "damaged file: others listed" expected.txt out.txt
expect_grep "damaged file: warning" \
	"^dtrace: warning: skipped a damaged registry file: $DTRACE_STATEDIR/registry/$pid3: line [0-9]*: " \
	err.txt
expect_eq "damaged file: one warning" 1 "$(wc -l <err.txt)"

# no registry at all
DTRACE_STATEDIR=$tmp/nosuch "$DTRACE" -l >out.txt 2>err.txt
expect_eq "no registry: status" 0 "$?"
kernel_rows_out out.txt
expect_eq "no registry: the dtrace provider only" 4 "$(wc -l <out.txt)"
expect_eq "no registry: quiet" "" "$(cat err.txt)"

# a registry that cannot be read is said once; what else there is stands
mkdir unreadable
: >unreadable/registry
DTRACE_STATEDIR=$tmp/unreadable "$DTRACE" -l >out.txt 2>err.txt
expect_eq "unreadable registry: status" 0 "$?"
kernel_rows_out out.txt
expect_eq "unreadable registry: the dtrace provider only" 4 "$(wc -l <out.txt)"
expect_eq "unreadable registry: one warning, naming it" \
	"dtrace: warning: cannot read the registry in $tmp/unreadable: Not a directory" \
	"$(cat err.txt)"

for n in 1 2 3 5; do
	release $n
done
run_dtrace -l
expect_eq "all gone: the dtrace provider only" 4 "$(wc -l <out.txt)"

# ---------------------------------------------------------------------
# A registry that grows does not grow dtrace -l: the listing streams
# (one process file at a time, rows printed as made), so its peak RSS
# with 16 processes of 2,000 probes is that with 4, while a table of
# every record (what it did before) grew by ~0.5 MB per process.
# (AddressSanitizer keeps freed memory in quarantine: RSS says nothing;
# and LeakSanitizer's check at exit fails a dtrace run under strace, as
# those below are.  USDT_SANITIZERS, not ldd: clang links ASan in)
if [ "${USDT_SANITIZERS:-no}" = yes ]; then
	echo "# a sanitizer build: the streaming listing's memory is not measured"
elif [ -x /usr/bin/time ]; then
	awk 'BEGIN { print "provider big {"
		for (i = 0; i < 2000; i++) printf "\tprobe p%d(int);\n", i
		print "};" }' >big.d
	awk 'BEGIN { print "#include <fcntl.h>\n#include <unistd.h>\n#include \"big.h\""
		print "int main(int argc, char **argv) {"
		print "\tchar c;\n\tint fd;"
		print "\tif (argc > 3) {"
		for (i = 0; i < 2000; i++) printf "\t\tBIG_P%d(argc);\n", i
		print "\t}"
		print "\tclose(open(argv[2], O_WRONLY | O_CREAT, 0644));"
		print "\tfd = open(argv[1], O_RDONLY);"
		print "\treturn read(fd, &c, 1) < 0;\n}" }' >big.c
	if "$DTRACE" -h -s big.d -o big.h && $CC -O1 -c big.c -o big.o &&
		"$DTRACE" -G -s big.d -o big-p.o big.o &&
		$CC -o big big.o big-p.o; then
		pass
	else
		fail "building the 2,000-probe program"
	fi
	big_rss() {
		DTRACE_STATEDIR=$tmp/bigstate /usr/bin/time -f %M -o rss.txt \
			"$DTRACE" -l >big-l.txt 2>big-l.err
		kernel_rows_out big-l.txt
		cat rss.txt
	}
	mkdir -p bigstate
	for n in 11 12 13 14; do
		start "$n" big
		eval "\"\$REGWRITE\" bigstate \"\$pid$n\" big - - -" ||
			fail "regwrite for big $n"
	done
	rss4=$(big_rss)
	begin_rss() {
		DTRACE_STATEDIR=$tmp/bigstate /usr/bin/time -f %M -o rss.txt \
			"$DTRACE" -q -n 'BEGIN { printf("begun\n"); exit(0); }' \
			>big-n.txt 2>big-n.err
		cat rss.txt
	}
	nrss4=$(begin_rss)
	expect_eq "4 processes: every row" $((1 + 3 + 4 * 2000)) \
		"$(wc -l <big-l.txt)"
	for n in 15 16 17 18 19 20 21 22 23 24 25 26; do
		start "$n" big
		eval "\"\$REGWRITE\" bigstate \"\$pid$n\" big - - -" ||
			fail "regwrite for big $n"
	done
	rss16=$(big_rss)
	nrss16=$(begin_rss)
	expect_eq "dtrace -n BEGIN over the big registry" "begun" \
		"$(cat big-n.txt big-n.err)"
	expect_eq "16 processes: every row" $((1 + 3 + 16 * 2000)) \
		"$(wc -l <big-l.txt)"
	expect_eq "16 processes: the IDs run 1 to 32003, in order" \
		"$(seq 1 32003 | paste -s -d,)" \
		"$(awk 'NR > 1 { print $1 }' big-l.txt | paste -s -d,)"
	expect_eq "16 processes: nothing on stderr" "" "$(cat big-l.err)"
	echo "# dtrace -l peak RSS: $rss4 KiB (8,000 probes), $rss16 KiB (32,000)"
	if [ "$rss16" -le $((rss4 + 1024)) ]; then
		pass
	else
		fail "dtrace -l's peak RSS grew with the registry: $rss4 KiB for 4 processes, $rss16 KiB for 16"
	fi
	echo "# dtrace -n BEGIN peak RSS: $nrss4 KiB, $nrss16 KiB"
	if [ "$nrss16" -le $((nrss4 + 1024)) ]; then
		pass
	else
		fail "dtrace -n's peak RSS grew with a registry it matches nothing of: $nrss4 KiB for 4 processes, $nrss16 KiB for 16"
	fi
	# (issue 28, part 5) a program whose descriptions can match no
	# registered probe reads no registry file; one that names a
	# process's provider reads that process's file alone (and looks
	# for the files of the pids its digits' tails could be: ENOENT)
	if command -v strace >/dev/null 2>&1; then
		DTRACE_STATEDIR=$tmp/bigstate strace -f -qq \
			-e trace=open,openat -o begin.tr \
			"$DTRACE" -q -n 'BEGIN { exit(0); }' >/dev/null 2>&1
		expect_eq "dtrace -n BEGIN opens nothing in the registry" "" \
			"$(grep -F "$tmp/bigstate/registry" begin.tr)"
		DTRACE_STATEDIR=$tmp/bigstate strace -f -qq \
			-e trace=open,openat -o one.tr "$DTRACE" -q -Z \
			-n "big$pid11:::nosuch { } BEGIN { exit(0); }" \
			>/dev/null 2>&1
		expect_eq "dtrace -n big$pid11:::nosuch reads its file alone" \
			"$tmp/bigstate/registry/$pid11" \
			"$(grep -v ENOENT one.tr |
				grep -o "$tmp/bigstate/registry/[0-9]*" |
				sort -u | paste -s -d,)"
		# dtrace -l -n reads the same way, but keeps the whole
		# listing's IDs: the files below the largest pid named are
		# read to count their probes, those above only when a row
		# after the registry's (syscall::read:entry) is listed
		DTRACE_STATEDIR=$tmp/bigstate "$DTRACE" -l >full.txt 2>&1
		bigfiles() {	# PID: the registry files of pids up to PID
			ls "$tmp/bigstate/registry" | grep -x '[0-9]*' |
				awk -v p="$1" '$1 <= p' | sort -n |
				sed "s|^|$tmp/bigstate/registry/|" |
				paste -s -d,
		}
		opened() {	# TRACE: the registry files it opened, pid order
			grep -v ENOENT "$1" |
				grep -o "$tmp/bigstate/registry/[0-9]*" |
				sort -u -t/ -k"$(echo "$tmp/bigstate/registry/" |
					tr -cd / | wc -c | awk '{ print $1 + 1 }')" -n |
				paste -s -d,
		}
		DTRACE_STATEDIR=$tmp/bigstate strace -f -qq \
			-e trace=open,openat -o lbegin.tr "$DTRACE" -l \
			-n BEGIN >lbegin.txt 2>&1
		expect_eq "dtrace -l -n BEGIN opens nothing in the registry" \
			"" "$(grep -F "$tmp/bigstate/registry" lbegin.tr)"
		expect_eq "dtrace -l -n BEGIN: its row" \
			"$(head -n 2 full.txt)" "$(cat lbegin.txt)"
		for n in 11 18; do
			eval "p=\$pid$n"
			DTRACE_STATEDIR=$tmp/bigstate strace -f -qq \
				-e trace=open,openat -o lone.tr "$DTRACE" -l \
				-n "big$p:::p7" >lone.txt 2>&1
			expect_eq "dtrace -l -n big$p:::p7 reads the files up to its own" \
				"$(bigfiles "$p")" "$(opened lone.tr)"
			expect_eq "dtrace -l -n big$p:::p7: its row, ID as in the full listing" \
				"$(head -n 1 full.txt; grep " big$p .* p7\$" full.txt)" \
				"$(cat lone.txt)"
			DTRACE_STATEDIR=$tmp/bigstate strace -f -qq \
				-e trace=open,openat -o lone.tr "$DTRACE" -l \
				-p "$p" -n 'big$target:::p7' >lone.txt 2>&1
			expect_eq "dtrace -l -p $p -n big\$target:::p7 reads the files up to its own" \
				"$(bigfiles "$p")" "$(opened lone.tr)"
			expect_eq "dtrace -l -p $p -n big\$target:::p7: its row, ID as in the full listing" \
				"$(head -n 1 full.txt; grep " big$p .* p7\$" full.txt)" \
				"$(cat lone.txt)"
		done
		# -p alone lists the dtrace and kernel providers' rows too:
		# every file is counted for their IDs
		DTRACE_STATEDIR=$tmp/bigstate strace -f -qq \
			-e trace=open,openat -o lone.tr "$DTRACE" -l \
			-p "$pid18" >lone.txt 2>&1
		expect_eq "dtrace -l -p $pid18: the full listing's rows of dtrace, it and the kernel" \
			"$(grep -e '^ *ID ' -e ' dtrace ' -e " big$pid18 " \
				-e ' syscall ' -e ' profile ' -e ' proc ' full.txt)" \
			"$(cat lone.txt)"
		if grep -q ' syscall .* read entry$' full.txt; then
			DTRACE_STATEDIR=$tmp/bigstate strace -f -qq \
				-e trace=open,openat -o lsys.tr "$DTRACE" -l \
				-n syscall::read:entry >lsys.txt 2>&1
			expect_eq "dtrace -l -n syscall::read:entry: its row, ID as in the full listing" \
				"$(head -n 1 full.txt; grep ' syscall .* read entry$' full.txt)" \
				"$(cat lsys.txt)"
			expect_eq "dtrace -l -n syscall::read:entry counts every file" \
				"$(bigfiles 2147483647)" "$(opened lsys.tr)"
		fi
	else
		echo "# no strace: the registry files read are not checked"
	fi
	for n in 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26; do
		release "$n"
	done
else
	echo "# no /usr/bin/time: the streaming listing's memory is not measured"
fi

finish
