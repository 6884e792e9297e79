#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kagg-nomem.sh: an aggregation entry the kernel cannot allocate is
# a drop, counted and reported with its cause, never a silent loss.
# The kernel's aggregation maps are BPF_F_NO_PREALLOC (bpf_agg_cgen.c:
# 65536 entries preallocated cost 70 ms a map at start-up), so Linux
# allocates each entry at the hit, without waiting (GFP_NOWAIT), and
# charges it to the memory cgroup of the dtrace that made the map: at
# that cgroup's limit the insert fails with -ENOMEM with the map nowhere
# near full (as a memory-pressed machine makes it fail: an entry was
# missing from run-cgen-svkey.sh's output once in CI).  So, on a
# process (built here) that waits, then fires hit(i) for i in 0..19999,
# then waits again:
#  - dtrace -n 'pid$target::hit:entry { @[arg0] = count(); }' started in
#    a memory cgroup of its own (v1's memory controller or v2's); once
#    the program is attached and dtrace's use has settled, dtrace and
#    the process are moved back to the test's own group and the limit
#    of the first set 64 KiB above what is charged there: the maps'
#    entries are charged to the group their maker was in when it made
#    them (the map's memcg, taken at its creation), so the hits' inserts
#    meet the limit and nothing of dtrace's own does (at the limit, its
#    own allocations failed: "dtrace: out of memory" under ASan, a
#    status 1 under -j2's load); the limit lifted before the process
#    exits;
#  - the generated program and the generic one (DTRACE_CGEN=0), each:
#    "N aggregation drops on CPU C (entries the kernel could not
#    allocate)" said (cgen_agg.c's agg_find(), kagg.bpf.h's
#    kagg_update(): counter UBPF_KDROP_NOMEM, bpf_agg_read.c), the
#    entries printed, each 1, and the drops adding up to the 20000
#    hits, some of each;
#  - self->a[arg0] = 1 at each hit, a thread-local array the generated
#    program keeps (cgtlsa), summed by the next clause: "N dynamic
#    variable drops on CPU C (variables the kernel could not
#    allocate)" (cgen_plan.c's cgen_tls_drop()), the sum and the drops
#    adding up to the hits, some of each.
# Needs root, uprobes, a dtrace with the BPF backend and a memory cgroup
# controller (v1 or v2) it may make a group in.

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe

# the memory controller: v1's hierarchy or v2's unified one
if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] ||
	[ -f /sys/fs/cgroup/memory/cgroup.procs ]; then
	cg_root=/sys/fs/cgroup/memory cg_lim=memory.limit_in_bytes
	cg_use=memory.usage_in_bytes cg_nolim=9223372036854771712 cg_v=1
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	cg_root=/sys/fs/cgroup cg_lim=memory.max cg_use=memory.current
	cg_nolim=max cg_v=2
else
	skip "no memory cgroup controller to limit dtrace's kernel memory"
fi
cg=$cg_root/usdt-kagg-nomem.$$
mkdir "$cg" 2>/dev/null ||
	skip "cannot make a memory cgroup under $cg_root"
# the test's own group, where dtrace and ./nm go back
cg_home=$cg_root$(awk -F: -v v="$cg_v" '(v == 1 && $2 ~ /(^|,)memory(,|$)/) ||
	(v == 2 && $1 == 0) { print $3; exit }' /proc/self/cgroup)
[ -f "$cg_home/cgroup.procs" ] ||
	skip "cannot find this shell's memory cgroup ($cg_home)"
nm_cleanup() {
	[ -d "$cg" ] || return 0
	echo "$cg_nolim" >"$cg/$cg_lim" 2>/dev/null
	: >go
	: >done
	for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	sleep 0.2
	rmdir "$cg" 2>/dev/null
}
trap 'nm_cleanup; cleanup' EXIT

cat >nm.c <<'EOF'
#include <fcntl.h>
#include <unistd.h>

__attribute__((noinline)) int hit(long n)
{
	__asm__ volatile("" : : : "memory");
	return (int)n;
}

int main(void)
{
	close(creat("waiting", 0644));
	while (access("go", F_OK))
		usleep(10000);
	for (long i = 0; i < 20000; i++)
		hit(i);
	while (access("done", F_OK))
		usleep(10000);
	return 0;
}
EOF
$CC -O1 -o nm nm.c || {
	fail "building the test program"
	finish
}

# nm_go G OUT PROG: dtrace -n PROG (DTRACE_CGEN=G) in the cgroup, as
# above, its output in OUT and its messages in OUT.err; the drops it
# said with CAUSE (its what and cause) summed in nr_d
nm_go() {
	rm -f go done waiting "$2"
	echo "$cg_nolim" >"$cg/$cg_lim"
	DTRACE_CGEN=$1 sh -c 'echo $$ >"$1/cgroup.procs" && shift &&
		exec timeout -s KILL 120 "$@"' sh "$cg" "$DTRACE" -q \
		-n "$3" -o "$2" -c ./nm >/dev/null 2>"$2.err" &
	nr_pid=$!
	# ./nm runs main() once dtrace has attached (-c starts it stopped)
	nr_i=0
	while [ ! -f waiting ] && [ "$nr_i" -lt 600 ]; do
		sleep 0.1
		nr_i=$((nr_i + 1))
	done
	# ... and has settled: its use the same twice, 0.3 s apart (a
	# dtrace slowed by load or the sanitizers still allocates after
	# the attach), 10 s at most
	nr_u=$(cat "$cg/$cg_use") nr_i=0
	while [ "$nr_i" -lt 33 ]; do
		sleep 0.3
		nr_v=$(cat "$cg/$cg_use")
		[ "$nr_v" != "$nr_u" ] || break
		nr_u=$nr_v nr_i=$((nr_i + 1))
	done
	for p in $(cat "$cg/cgroup.procs"); do
		echo "$p" >"$cg_home/cgroup.procs"
	done
	nr_u=$(cat "$cg/$cg_use")
	echo $((nr_u + 65536)) >"$cg/$cg_lim"
	: >go
	sleep 1
	echo "$cg_nolim" >"$cg/$cg_lim"
	: >done
	wait "$nr_pid"
	expect_eq "$2: status" 0 "$?"
	[ -f "$2" ] || : >"$2"
}

# nm_drops OUT WHAT CAUSE: the drops OUT.err said as "N WHAT drops on CPU
# C (CAUSE)", summed
nm_drops() {
	sed -n "s/^dtrace: \([0-9]*\) $2 drops\{0,1\} on CPU [0-9]* ($3)\$/\1/p" \
		"$1.err" | awk '{ n += $1 } END { print n + 0 }'
}

# nm_some OUT WHAT N D: both N and D above 0, else a failure naming WHAT
# and showing OUT.err
nm_some() {
	if [ "$3" -gt 0 ] && [ "$4" -gt 0 ]; then
		pass
	else
		fail "$1: $2: $3 and $4: both expected above 0; its messages:"
		sed 's/^/    | /' "$1.err" >&2
	fi
}

# aggregation entries: those printed and the drops, the hits
for g in 1 0; do
	o=agg.$g
	nm_go "$g" "$o" 'pid$target::hit:entry { @[arg0] = count(); }
		END { printa("%d %@d\n", @); }'
	nr_d=$(nm_drops "$o" aggregation 'entries the kernel could not allocate')
	nr_e=$(awk 'NF == 2 && $2 == 1' "$o" | wc -l)
	nr_x=$(awk 'NF && !(NF == 2 && $2 == 1)' "$o" | wc -l)
	echo "# $o: $nr_e entries, $nr_d drops (the cgroup at $nr_u bytes)" >&2
	nm_some "$o" "entries, drops (entries the kernel could not allocate)" \
		"$nr_e" "$nr_d"
	expect_eq "$o: entries and drops" 20000 $((nr_e + nr_d))
	expect_eq "$o: every entry 1" 0 "$nr_x"
done

# self-> array elements the kernel keeps (cgtlsa, the generated program
# alone): each store a 1 the next clause sums, so the sum and the
# dynamic variable drops are the hits
o=tls.1
nm_go 1 "$o" 'pid$target::hit:entry { self->a[arg0] = 1; }
	pid$target::hit:entry { @n = sum(self->a[arg0]); }
	END { printa("%@d\n", @n); }'
nr_d=$(nm_drops "$o" 'dynamic variable' \
	'variables the kernel could not allocate')
nr_e=$(awk 'NF == 1 { print $1 }' "$o")
echo "# $o: $nr_e stored, $nr_d drops (the cgroup at $nr_u bytes)" >&2
nm_some "$o" "stores, drops (variables the kernel could not allocate)" \
	"${nr_e:-0}" "$nr_d"
expect_eq "$o: stores and drops" 20000 $((${nr_e:-0} + nr_d))

finish
