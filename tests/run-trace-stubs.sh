#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Registry-wide tracing (no -p, no -c) reaches the probes of objects that
# carry no DOF: the header's stubs in a shared library -G never saw (a
# PostgreSQL extension built with PGXS), mapped by a process that
# registered DOF of its own (doc/DESIGN.md §8).  tests/tools/regwrite
# records the program's DOF as dtrace-helperd would.  The description
# names a probe only the library has, so no DOF probe brings the process
# in:
#  - a library linked with the program: every hit counted exactly;
#  - a library the program dlopen()s after it registered (no registry
#    change follows): found while traced, then every hit counted exactly.
# Before, neither process was traced ("does not match any probes").

. "$top_srcdir/tests/lib.sh"

require_G
[ "$(id -u)" -eq 0 ] || skip "tracing needs root"
[ -n "${REGWRITE:-}" ] && [ -x "$REGWRITE" ] || skip "no tests/tools/regwrite"
[ -e /sys/kernel/tracing/uprobe_events ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -e /sys/kernel/tracing/uprobe_events ] || skip "no tracefs"

ts_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap ts_cleanup EXIT

cat >ts.d <<'D'
provider ts {
	probe main(int);
	probe ext(int);
};
D
"$DTRACE" -h -s ts.d -o ts.h || exit 99

# the "extension": the header's stubs only, never -G
cat >ext.c <<'C'
#include "ts.h"
void ext_fire(int v) { TS_EXT(v); }
C
# the program: -G over its object, so it has DOF (and drti.o)
cat >prog.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "ts.h"
#ifdef LOADER
#define ext_fire 0
#else
void ext_fire(int);
#endif
int main(int argc, char **argv)
{
	void (*fire)(int) = ext_fire;
	char line[64];
	int n;

	TS_MAIN(0);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "load\n")) {
			void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : 0;

			fire = h ? (void (*)(int))dlsym(h, "ext_fire") : 0;
			printf("%s\n", fire ? "loaded" : dlerror());
		} else if (sscanf(line, "fire %d", &n) == 1 && fire) {
			for (int i = 0; i < n; i++)
				fire(1);
			printf("fired %d\n", n);
		} else if (!strcmp(line, "sync\n") && fire) {
			fire(0);
			printf("synced\n");
		}
		fflush(stdout);
	}
	return 0;
}
C
CFLAGS="-O2 -Wall -Wextra -Werror"
if ! { $CC $CFLAGS -fPIC -shared ext.c -o libext.so -Wl,-z,defs &&
       $CC $CFLAGS -c prog.c -o prog.o &&
       $CC $CFLAGS -DLOADER -c prog.c -o loader.o &&
       "$DTRACE" -G -s ts.d -o prog-probes.o prog.o &&
       "$DTRACE" -G -s ts.d -o loader-probes.o loader.o &&
       $CC prog.o prog-probes.o -o linked -L. -lext -Wl,-rpath,"$PWD" &&
       $CC loader.o loader-probes.o -o loader -ldl
     } >build.log 2>&1; then
	sed 's/^/    | /' build.log >&2
	fail "build"
	finish
fi
readelf -n libext.so | grep -q 'Name: ext$' || fail "libext.so: no ext note"
if readelf -S libext.so | grep -q SUNW_dof; then
	fail "libext.so has DOF"
fi

cat >count.d <<'D'
int s;
BEGIN { printf("ready\n"); }
ts*:::ext /arg0 == 0 && !s/ { s = 1; printf("synced %s\n", probemod); }
ts*:::ext /arg0 == 1/ { @n[probeprov] = count(); }
END { printa("%s %@d\n", @n); }
D

answered() {	# answered FILE PATTERN
	grep -qs "$2" "$1"
}

# run NAME PROG [ARG]: the program, registered, and dtrace over the
# registry counting ts*:::ext with arg0 1, after a sync hit shows the
# process is traced
run() {
	r_name=$1
	shift
	rm -f "$r_name.in" && mkfifo "$r_name.in"
	"$@" <"$r_name.in" >"$r_name.out" 2>&1 &
	r_pid=$!
	bg_pids="$bg_pids $r_pid"
	exec 3>"$r_name.in"
	if ! wait_until 100 answered "$r_name.out" '^ready$'; then
		fail "$r_name: the program did not start"
		return 1
	fi
	rm -rf reg && mkdir -p reg/registry
	"$REGWRITE" reg "$r_pid" "$1" - - - || fail "$r_name: regwrite"
	DTRACE_STATEDIR=$tmp/reg "$DTRACE" -q -Z -o "$r_name.txt" -s count.d \
		2>"$r_name.err" </dev/null 3>&- &
	r_dt=$!
	bg_pids="$bg_pids $r_dt"
	if ! wait_until 600 answered "$r_name.txt" '^ready$'; then
		fail "$r_name: dtrace did not start"
		sed 's/^/    | /' "$r_name.err" >&2
		return 1
	fi
}

# sync_fire NAME N: sync hits until dtrace saw one, then N counted ones
sync_fire() {
	sf_i=0
	while [ $sf_i -lt 100 ] && ! answered "$1.txt" '^synced'; do
		echo sync >&3
		sleep 0.1
		sf_i=$((sf_i + 1))
	done
	expect_eq "$1: traced through the registry" \
		"synced libext.so" "$(grep '^synced' "$1.txt")"
	echo "fire $2" >&3
	wait_until 100 answered "$1.out" "^fired $2\$" ||
		fail "$1: the program did not fire"
	stop_pid "$r_dt" INT
	expect_eq "$1: every hit counted" "ts$r_pid $2" \
		"$(grep '^ts' "$1.txt")"
	exec 3>&-
	wait_until 100 dead "$r_pid"
	forget_pid "$r_pid"
}

# the library linked with the program
run linked ./linked && sync_fire linked 250

# the library dlopen()ed after the program registered
if run loaded ./loader "$PWD/libext.so"; then
	echo load >&3
	wait_until 100 answered loaded.out '^loaded$' ||
		fail "loaded: dlopen failed: $(cat loaded.out)"
	sync_fire loaded 170
fi

finish
