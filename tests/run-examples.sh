#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-examples.sh: the programs in provider-examples/ build, run and show
# their probes the way their READMEs say.  Each is built here, out of the
# source tree, with "$DTRACE" -h and -G and $CC or $CXX (-Werror: the
# examples are documentation, a warning in them is a bug):
#
#  - myapp: a C query server, one provider;
#  - shlib: libkv.so (provider kvstore) used by kvapp (provider kvapp),
#    one -G output per module;
#  - plugin: upper.so (provider upper) dlopen'ed, used and dlclose'd twice
#    by host (provider plughost), which checks it really was unmapped;
#  - cxx: catalog, C++ classes with probes in an inline member function
#    and std::string c_str() arguments, at -O2 and at -O0 (where the
#    inline function is an out-of-line COMDAT copy in two objects);
#  - interp: minforth, a small interpreter running demo.fs and a script
#    with an error.
#
# For each: the program's output (diff -u against a heredoc), `readelf
# -n` of every program and library (provider, probe and argument string
# of each note), and in the DOF the translated arguments of the .d files
# that have some.  myapp and minforth also build with the probes compiled
# out (-DUSDT_DISABLE_PROBES): no notes, same output.  gdb, if present,
# stops at a probe of myapp and of catalog and reads its arguments.
#
# As root, with bpftrace and uprobes, bpftrace traces probes of every
# example, attached to the files by path before the program starts (so
# a library or plugin not loaded yet is covered: bpftrace -c cannot find
# those), plus myapp -f by pid; and minforth proves its _ENABLED() guard
# with its own count of the probe names it built: none untraced, one per
# call while function-entry alone is traced, none again afterwards.
# Without root, bpftrace or uprobes that part is skipped with a message.
# Every wait is bounded; processes left over are killed on exit.

. "$top_srcdir/tests/lib.sh"

require_G readelf
ex=$top_srcdir/provider-examples
xflags="-Wall -Wextra -Werror"

# ---------------------------------------------------------------------
# Helpers

# Background processes: bpftrace runs under timeout(1), which passes
# SIGTERM on to it but cannot pass SIGKILL, so TERM comes first, and
# up to a second for the ones still there to go.
examples_cleanup() {
	if [ -n "$bg_pids" ]; then
		for p in $bg_pids; do
			kill -TERM "$p" 2>/dev/null
		done
		ec_i=0
		while [ $ec_i -lt 10 ]; do
			ec_left=
			for p in $bg_pids; do
				kill -0 "$p" 2>/dev/null && ec_left=1
			done
			[ -n "$ec_left" ] || break
			sleep 0.1
			ec_i=$((ec_i + 1))
		done
		for p in $bg_pids; do
			kill -KILL "$p" 2>/dev/null
		done
	fi
	cleanup
}
trap examples_cleanup EXIT
trap 'exit 1' INT TERM HUP


# build_ok WHAT COMMAND...: the command must succeed
build_ok() {
	bo_what=$1
	shift
	if "$@" >build.log 2>&1; then
		pass
		return 0
	fi
	fail "$bo_what: $*"
	sed 's/^/    | /' build.log >&2
	return 1
}

# run_ok WHAT STATUS OUT COMMAND...: COMMAND exits with STATUS, its
# stdout in OUT and its stderr in OUT.err
run_ok() {
	ro_what=$1 ro_want=$2 ro_out=$3
	shift 3
	timeout 300 "$@" >"$ro_out" 2>"$ro_out.err"
	ro_status=$?
	if [ "$ro_status" -eq "$ro_want" ]; then
		pass
	else
		fail "$ro_what: exit status $ro_status, expected $ro_want"
		sed 's/^/    | /' "$ro_out" "$ro_out.err" >&2
	fi
}

# notes FILE: "provider probe arguments" of each stapsdt note, sorted,
# duplicates (one probe at several sites) removed
notes() {
	readelf -n "$1" | awk '
		/^ *Provider: / { p = $2 }
		/^ *Name: / { n = $2 }
		/^ *Arguments:/ { sub(/^ *Arguments: ?/, ""); print p, n, $0 }
	' | sed 's/ *$//' | LC_ALL=C sort -u
}

# expect_notes FILE: the notes of FILE are those on stdin
expect_notes() {
	cat >"$1.notes-expected"
	notes "$1" >"$1.notes"
	expect_file_eq "readelf -n $1" "$1.notes-expected" "$1.notes"
}

# expect_dof WHAT FILE ERE: a probe line of dofdump FILE matches ERE
expect_dof() {
	if [ -z "${DOFDUMP:-}" ] || [ ! -x "$DOFDUMP" ]; then
		echo "# no dofdump (DOFDUMP): $1 not checked"
		return
	fi
	"$DOFDUMP" "$2" >"$2.dof" 2>&1
	if grep -E -q "$3" "$2.dof"; then
		pass
	else
		fail "$1: no probe line of the DOF of $2 matches /$3/"
		grep '^probe' "$2.dof" | sed 's/^/    | /' >&2
	fi
}

# Copy the sources in: a quoted #include looks first in the directory of
# the file that includes, where a header left by an in-tree build would
# win over the one dtrace -h writes here.
copy_sources() {
	cs_dir=$1
	shift
	mkdir -p "$cs_dir"
	for f in "$@"; do
		cp "$f" "$cs_dir/" || fail "cannot copy $f"
	done
}

# ---------------------------------------------------------------------
# 1. myapp: a C program with one provider

copy_sources myapp "$ex/myapp.c"
cd myapp || exit 99
myapp_ok=no
build_ok "myapp: dtrace -h" "$DTRACE" -h -s "$ex/myapp.d" -o myapp.h &&
	build_ok "myapp: cc -c" $CC $xflags -O2 -I. -c myapp.c -o myapp.o &&
	build_ok "myapp: dtrace -G" "$DTRACE" -G -s "$ex/myapp.d" \
		-o myapp-probes.o myapp.o &&
	build_ok "myapp: link" $CC -o myapp myapp.o myapp-probes.o &&
	myapp_ok=yes
cat >expected.out <<'EOF'
conn 1: open from 10.0.0.7:41000
query 1: select 1: 80 rows
query 2: select * from t: 150 rows
conn 1: closed, 2 served
conn 2: open from 10.0.0.9:52311
query 3: insert into t values (42): 250 rows
query 4: drop table t: refused
conn 2: closed, 2 served
conn 3: open from [::1]:60001
query 5: select 1: 80 rows
conn 3: closed, 1 served
EOF
if [ $myapp_ok = yes ]; then
	run_ok "myapp 5" 0 plain.out ./myapp 5
	expect_file_eq "myapp 5: output" expected.out plain.out
	expect_notes myapp <<'EOF'
myapp conn__close -4@%edi 4@%esi
myapp conn__open -4@%edi 8@%rsi
myapp query__done 4@%edi -8@%rsi -4@%edx
myapp query__plan 4@%edi 8@%rsi
myapp query__start 4@%edi 8@%rsi
myapp request 8@%rdi
myapp tick
EOF
	expect_dof "myapp: query-start's translated arguments" myapp \
		'^probe myapp:[^ ]*:query-start .* xargc=2 xargv="unsigned int","string" argmap=0,1 '
	expect_dof "myapp: the attributes from #pragma D attributes" myapp \
		'^provider myapp provattr=Evolving/Evolving/Common .* argsattr=Evolving/Evolving/Common '
fi
# compiled out: the same program, no probes at all
build_ok "myapp: cc -DUSDT_DISABLE_PROBES" $CC $xflags -O2 -I. \
	-DUSDT_DISABLE_PROBES myapp.c -o myapp-noprobes &&
	run_ok "myapp-noprobes 5" 0 noprobes.out ./myapp-noprobes 5 &&
	expect_file_eq "myapp-noprobes 5: output" expected.out noprobes.out &&
	expect_eq "myapp-noprobes: notes" "" "$(notes myapp-noprobes)"
cd .. || exit 99

# ---------------------------------------------------------------------
# 2. shlib: a shared library and a program, a provider each

S=$ex/shlib
copy_sources shlib "$S/kv.h" "$S/libkv.c" "$S/kvapp.c"
cd shlib || exit 99
shlib_ok=no
build_ok "shlib: dtrace -h kvstore.d" "$DTRACE" -h -s "$S/kvstore.d" \
	-o kvstore.h &&
	build_ok "shlib: dtrace -h kvapp.d" "$DTRACE" -h -s "$S/kvapp.d" \
		-o kvapp.h &&
	build_ok "shlib: cc -fPIC -c libkv.c" $CC $xflags -O2 -fPIC -I. \
		-c libkv.c &&
	build_ok "shlib: dtrace -G libkv.o" "$DTRACE" -G -s "$S/kvstore.d" \
		-o kvstore-probes.o libkv.o &&
	build_ok "shlib: libkv.so" $CC -shared -Wl,-z,defs -o libkv.so \
		libkv.o kvstore-probes.o &&
	build_ok "shlib: cc -c kvapp.c" $CC $xflags -O2 -I. -c kvapp.c &&
	build_ok "shlib: dtrace -G kvapp.o" "$DTRACE" -G -s "$S/kvapp.d" \
		-o kvapp-probes.o kvapp.o &&
	build_ok "shlib: link kvapp" $CC -o kvapp kvapp.o kvapp-probes.o \
		-L. -lkv '-Wl,-rpath,$ORIGIN' &&
	shlib_ok=yes
cat >commands.txt <<'EOF'
# fruit
put apple 1
put bread 2
get apple
get cherry
del apple
put cherry 3
put dates 4
put eggs 5
put figs 6 and 7
count
frob x
EOF
cat >expected.out <<'EOF'
put apple: ok
put bread: ok
get apple: 1
get cherry: (not found)
del apple: ok
put cherry: ok
put dates: ok
put eggs: ok
put figs: ok
count: 5
line 12: bad command
EOF
if [ $shlib_ok = yes ]; then
	run_ok "kvapp <commands.txt" 1 plain.out ./kvapp <commands.txt
	expect_file_eq "kvapp: output" expected.out plain.out
	expect_notes libkv.so <<'EOF'
kvstore del 8@%rdi -4@%esi
kvstore get 8@%rdi -8@%rsi
kvstore put 8@%rdi 8@%rsi -4@%edx
kvstore resize 8@%rdi 8@%rsi 8@%rdx
EOF
	expect_notes kvapp <<'EOF'
kvapp command__done -4@%edi 8@%rsi -4@%edx
kvapp command__start -4@%edi 8@%rsi 8@%rdx
EOF
	expect_dof "kvstore: resize's translated arguments drop the store" \
		libkv.so \
		'^probe kvstore:[^ ]*:resize .* nargc=3 nargv="struct kv \*","size_t","size_t" xargc=2 xargv="size_t","size_t" argmap=1,2 '
	# each module holds its own semaphores, hidden
	expect_eq "libkv.so exports no semaphore" "" \
		"$(nm -D --defined-only libkv.so | grep __usdt_sema_)"
fi
cd .. || exit 99

# ---------------------------------------------------------------------
# 3. plugin: a dlopen'ed plugin with its own provider

P=$ex/plugin
copy_sources plugin "$P/plugin.h" "$P/upper.c" "$P/host.c"
cd plugin || exit 99
plugin_ok=no
build_ok "plugin: dtrace -h upper.d" "$DTRACE" -h -s "$P/upper.d" \
	-o upper.h &&
	build_ok "plugin: dtrace -h host.d" "$DTRACE" -h -s "$P/host.d" \
		-o host.h &&
	build_ok "plugin: cc -fPIC -c upper.c" $CC $xflags -O2 -fPIC -I. \
		-c upper.c &&
	build_ok "plugin: dtrace -G upper.o" "$DTRACE" -G -s "$P/upper.d" \
		-o upper-probes.o upper.o &&
	build_ok "plugin: upper.so" $CC -shared -Wl,-z,defs -o upper.so \
		upper.o upper-probes.o &&
	build_ok "plugin: cc -c host.c" $CC $xflags -O2 -I. -c host.c &&
	build_ok "plugin: dtrace -G host.o" "$DTRACE" -G -s "$P/host.d" \
		-o host-probes.o host.o &&
	build_ok "plugin: link host" $CC -o host host.o host-probes.o -ldl &&
	plugin_ok=yes
if [ $plugin_ok = yes ]; then
	cat >expected.out <<'EOF'
loaded upper from ./upper.so
hello -> HELLO
supercalifragilisticexpialidocious -> (too long)
unloaded upper
loaded upper from ./upper.so
hello -> HELLO
supercalifragilisticexpialidocious -> (too long)
unloaded upper
EOF
	run_ok "host -r 2 ./upper.so" 0 plain.out ./host -r 2 ./upper.so \
		hello supercalifragilisticexpialidocious
	expect_file_eq "host: output (upper.so unmapped by dlclose)" \
		expected.out plain.out
	expect_notes upper.so <<'EOF'
upper transform__done 8@%rdi 8@%rsi
upper transform__start 8@%rdi 8@%rsi
EOF
	expect_notes host <<'EOF'
plughost plugin__load 8@%rdi 8@%rsi
plughost plugin__unload 8@%rdi 8@%rsi
EOF
	# the host has no link-time tie to the plugin's probes
	expect_eq "host: no reference to upper's symbols" "" \
		"$(nm host | grep -i upper)"
fi
cd .. || exit 99

# ---------------------------------------------------------------------
# 4. cxx: C++ classes, an inline function with probes, c_str() arguments

X=$ex/cxx
cxx_ok=no
if ! command -v "$CXX" >/dev/null 2>&1; then
	echo "# no C++ compiler ($CXX): the C++ example is skipped"
else
	copy_sources cxx "$X/lru.hpp" "$X/lru.cpp" "$X/catalog.hpp" \
		"$X/catalog.cpp" "$X/main.cpp"
	cd cxx || exit 99
	cat >expected.out <<'EOF'
apple: 0.45
bread: 2.89
apple: 0.45
cheese: 12.50
kiwi: unknown
bread: 2.89
cached: bread cheese
EOF
	cat >expected.notes <<'EOF'
catalog cache__evict 8@%rdi 8@%rsi 8@%rdx
catalog cache__hit 8@%rdi 8@%rsi
catalog cache__miss 8@%rdi 8@%rsi
catalog lookup__done 8@%rdi -8@%rsi
catalog lookup__start 8@%rdi
EOF
	build_ok "cxx: dtrace -h catalog.d" "$DTRACE" -h -s "$X/catalog.d" \
		-o catalog.h
	for o in O2 O0; do
		mkdir $o
		for f in main catalog lru; do
			build_ok "cxx -$o: $f.o" $CXX $xflags -$o -I. \
				-c $f.cpp -o $o/$f.o || continue 2
		done
		build_ok "cxx -$o: dtrace -G" "$DTRACE" -G -s "$X/catalog.d" \
			-o $o/catalog-probes.o $o/main.o $o/catalog.o \
			$o/lru.o &&
			build_ok "cxx -$o: link" $CXX -o $o/catalog $o/main.o \
				$o/catalog.o $o/lru.o $o/catalog-probes.o ||
			continue
		run_ok "cxx -$o: catalog" 1 $o/plain.out ./$o/catalog \
			apple bread apple cheese kiwi bread
		expect_file_eq "cxx -$o: output" expected.out $o/plain.out
		notes $o/catalog >$o/notes
		expect_file_eq "cxx -$o: readelf -n catalog" expected.notes \
			$o/notes
		[ $o = O2 ] && cxx_ok=yes
	done
	cd .. || exit 99
fi

# ---------------------------------------------------------------------
# 5. interp: an interpreter's function probes, guarded by _ENABLED()

I=$ex/interp
copy_sources interp "$I/minforth.c" "$I/demo.fs"
cd interp || exit 99
interp_ok=no
build_ok "interp: dtrace -h" "$DTRACE" -h -s "$I/minforth.d" \
	-o minforth.h &&
	build_ok "interp: cc -c" $CC $xflags -O2 -I. -c minforth.c &&
	build_ok "interp: dtrace -G" "$DTRACE" -G -s "$I/minforth.d" \
		-o minforth-probes.o minforth.o &&
	build_ok "interp: link" $CC -o minforth minforth.o \
		minforth-probes.o &&
	interp_ok=yes
cat >expected.out <<'EOF'
3 squared is 9
3*3 + 4*4 is 25
fib(10) is 55
countdown: 3 2 1
EOF
cat >bad.fs <<'EOF'
: inverse ( n -- 1000/n )
	1000 swap / ;
4 inverse . cr
0 inverse . cr
EOF
# stats FILE: minforth's report at exit
stats() {
	grep '^minforth: ' "$1"
}
if [ $interp_ok = yes ]; then
	run_ok "minforth demo.fs" 0 plain.out \
		env MINFORTH_STATS=1 ./minforth demo.fs
	sed 's/ *$//' plain.out >plain.txt
	expect_file_eq "minforth demo.fs: output" expected.out plain.txt
	expect_eq "minforth untraced: _ENABLED() false, no name built" \
		"minforth: 182 calls, 0 probe names built" \
		"$(stats plain.out.err)"
	run_ok "minforth bad.fs" 1 bad.out ./minforth bad.fs
	expect_eq "minforth bad.fs: output" "250" "$(sed 's/ *$//' bad.out)"
	expect_eq "minforth bad.fs: message" \
		"bad.fs:2: division by zero or overflow" "$(cat bad.out.err)"
	expect_notes minforth <<'EOF'
minforth error 8@%rdi -4@%esi 8@%rdx
minforth function__entry 8@%rdi 8@%rsi -4@%edx
minforth function__return 8@%rdi 8@%rsi -4@%edx
minforth script__done 8@%rdi -4@%esi
minforth script__start 8@%rdi
EOF
	expect_dof "minforth: error's translated arguments, reordered" \
		minforth \
		'^probe minforth:[^ ]*:error .* xargc=3 xargv="string","string","int" argmap=2,0,1 '
	# the guard and the out-of-line argument builder
	expect_eq "minforth: fire_function_entry is a function of its own" \
		1 "$(nm minforth | grep -c ' [tT] fire_function_entry$')"
fi
build_ok "interp: cc -DUSDT_DISABLE_PROBES" $CC $xflags -O2 -I. \
	-DUSDT_DISABLE_PROBES minforth.c -o minforth-noprobes &&
	run_ok "minforth-noprobes demo.fs" 0 noprobes.out \
		env MINFORTH_STATS=1 ./minforth-noprobes demo.fs &&
	expect_eq "minforth-noprobes: output" "$(cat plain.out)" \
		"$(cat noprobes.out)" &&
	expect_eq "minforth-noprobes: stats" \
		"minforth: 182 calls, 0 probe names built" \
		"$(stats noprobes.out.err)" &&
	expect_eq "minforth-noprobes: notes" "" "$(notes minforth-noprobes)"
cd .. || exit 99

# ---------------------------------------------------------------------
# gdb: stop at a probe and read its arguments

# gdb_args WHAT DIR SPEC EXPECTED FORMAT EXPRS CMD...: in DIR, stop at
# probe SPEC of CMD and printf "ARGS FORMAT\n", EXPRS
gdb_args() {
	ga_what=$1 ga_dir=$2 ga_spec=$3 ga_want=$4 ga_fmt=$5 ga_exprs=$6
	shift 6
	(cd "$ga_dir" && timeout 300 gdb -nx -batch \
		-ex "break -probe-stap $ga_spec" -ex run \
		-ex "printf \"ARGS $ga_fmt\\n\", $ga_exprs" \
		--args "$@") >gdb.out 2>&1
	if [ "$(grep '^ARGS ' gdb.out)" = "ARGS $ga_want" ]; then
		pass
	else
		fail "gdb: $ga_what: expected 'ARGS $ga_want'"
		sed 's/^/    | /' gdb.out >&2
	fi
}
if ! command -v gdb >/dev/null 2>&1; then
	echo "# no gdb: its part is skipped"
else
	[ $myapp_ok = yes ] &&
		gdb_args "myapp query__start" myapp myapp:query__start \
			"1 select 1" '%u %s' \
			'$_probe_arg0, (char *)$_probe_arg1' ./myapp 1
	[ $cxx_ok = yes ] &&
		gdb_args "catalog lookup__done" cxx catalog:lookup__done \
			"apple 45" '%s %ld' \
			'(char *)$_probe_arg0, $_probe_arg1' ./O2/catalog apple
fi

# ---------------------------------------------------------------------
# bpftrace

bpftrace_why=
if [ "$(id -u)" -ne 0 ]; then
	bpftrace_why="not root"
elif ! command -v bpftrace >/dev/null 2>&1; then
	bpftrace_why="no bpftrace"
elif ! tracefs_at -e uprobe_events; then
	bpftrace_why="no uprobes (tracefs not mounted?)"
fi
if [ -n "$bpftrace_why" ]; then
	echo "# $bpftrace_why: the bpftrace part is skipped"
	finish
fi

# started OUT PID: bpftrace (PID) has attached every probe, since BEGIN
# runs after that; or it died trying
started() {
	grep -q '^ready$' "$1" || dead "$2"
}

# bt_trace NAME DIR SCRIPT CMD...: bpftrace runs SCRIPT (probes named by
# absolute path) while CMD runs in DIR with its stdout in DIR/NAME.out
# and its exit status in $bt_status; bpftrace's map lines, sorted, end up
# in DIR/NAME.trace.  Maps are printed when bpftrace exits, so nothing is
# lost to the asynchronous delivery of printf's output.
bt_trace() {
	bt_name=$1 bt_dir=$2 bt_script=$3
	shift 3
	printf 'BEGIN { printf("ready\\n"); }\n%s\n' "$bt_script" \
		>"$bt_dir/$bt_name.bt"
	: >"$bt_dir/$bt_name.bt-out"
	timeout 300 bpftrace -B line "$bt_dir/$bt_name.bt" \
		>"$bt_dir/$bt_name.bt-out" 2>"$bt_dir/$bt_name.bt-err" &
	bt_pid=$!
	bg_pids="$bg_pids $bt_pid"
	bt_status=
	wait_until 200 started "$bt_dir/$bt_name.bt-out" $bt_pid
	if ! grep -q '^ready$' "$bt_dir/$bt_name.bt-out"; then
		fail "$bt_dir: bpftrace did not start"
		sed 's/^/    | /' "$bt_dir/$bt_name.bt-err" >&2
		stop_bt $bt_pid
		return 1
	fi
	(cd "$bt_dir" && exec timeout 300 "$@") >"$bt_dir/$bt_name.out" \
		2>"$bt_dir/$bt_name.err"
	bt_status=$?
	stop_bt $bt_pid
	if [ "$stop_status" -eq 0 ]; then
		pass
	else
		fail "$bt_dir: bpftrace exits with $stop_status after SIGINT"
		sed 's/^/    | /' "$bt_dir/$bt_name.bt-err" >&2
	fi
	grep '^@' "$bt_dir/$bt_name.bt-out" | LC_ALL=C sort \
		>"$bt_dir/$bt_name.trace"
	return 0
}

# myapp: two probes, one behind _ENABLED(); the output is unchanged
if [ $myapp_ok = yes ]; then
	d=$(cd myapp && pwd -P)
	if bt_trace traced myapp "
usdt:$d/myapp:myapp:query__start { @start[arg0, str(arg1)] = count(); }
usdt:$d/myapp:myapp:query__plan { @plan[arg0, str(arg1)] = count(); }
" ./myapp 5; then
		expect_eq "myapp traced: exit status" 0 "$bt_status"
		expect_file_eq "myapp traced: output" myapp/expected.out \
			myapp/traced.out
		cat >myapp/expected.trace <<'EOF'
@plan[1, scan(t) cost=24]: 1
@plan[2, scan(t) cost=45]: 1
@plan[3, modify(t) cost=75]: 1
@plan[4, modify(t) cost=36]: 1
@plan[5, scan(t) cost=24]: 1
@start[1, select 1]: 1
@start[2, select * from t]: 1
@start[3, insert into t values (42)]: 1
@start[4, drop table t]: 1
@start[5, select 1]: 1
EOF
		expect_file_eq "myapp: bpftrace" myapp/expected.trace \
			myapp/traced.trace
	fi

	# a running server, by pid (bpftrace exits after one hit)
	: >myapp/forever.out
	(cd myapp && exec ./myapp -f) >myapp/forever.out 2>&1 &
	f_pid=$!
	bg_pids="$bg_pids $f_pid"
	if wait_until 100 grep -q '^query 1:' myapp/forever.out; then
		(cd myapp && timeout 30 bpftrace -p $f_pid -e \
			'usdt:./myapp:myapp:query__start {
				printf("traced %s\n", str(arg1)); exit(); }') \
			>myapp/pid.bt 2>myapp/pid.bt-err
		expect_eq "myapp -f: bpftrace -p PID" 0 $?
		expect_grep "myapp -f: bpftrace -p PID saw a query" \
			'^traced \(select\|insert\|drop\) ' myapp/pid.bt
	else
		fail "myapp -f printed no query"
	fi
	stop_pid $f_pid TERM
	expect_eq "myapp -f: exit status after SIGTERM" 0 "$stop_status"
	tail -n 1 myapp/forever.out >myapp/forever.last
	expect_grep "myapp -f: ends with its connection closed" \
		'^conn [0-9]*: closed, [0-9]* served$' myapp/forever.last
fi

# shlib: the program's probes and the library's, in one run
if [ $shlib_ok = yes ]; then
	d=$(cd shlib && pwd -P)
	if bt_trace traced shlib "
usdt:$d/kvapp:kvapp:command__start { @cmd[arg0, str(arg1), str(arg2)] = count(); }
usdt:$d/libkv.so:kvstore:get { @get[str(arg0), arg1] = count(); }
usdt:$d/libkv.so:kvstore:resize { @resize[arg1, arg2] = count(); }
" sh -c './kvapp <commands.txt'; then
		expect_eq "kvapp traced: exit status" 1 "$bt_status"
		expect_file_eq "kvapp traced: output" shlib/expected.out \
			shlib/traced.out
		cat >shlib/expected.trace <<'EOF'
@cmd[10, put, figs]: 1
@cmd[11, count, ]: 1
@cmd[12, frob, x]: 1
@cmd[2, put, apple]: 1
@cmd[3, put, bread]: 1
@cmd[4, get, apple]: 1
@cmd[5, get, cherry]: 1
@cmd[6, del, apple]: 1
@cmd[7, put, cherry]: 1
@cmd[8, put, dates]: 1
@cmd[9, put, eggs]: 1
@get[apple, 1]: 1
@get[cherry, -1]: 1
@resize[4, 8]: 1
EOF
		expect_file_eq "kvapp and libkv.so: bpftrace" \
			shlib/expected.trace shlib/traced.trace
	fi
fi

# plugin: the plugin's probes in both rounds, and the host's
if [ $plugin_ok = yes ]; then
	d=$(cd plugin && pwd -P)
	if bt_trace traced plugin "
usdt:$d/host:plughost:plugin__load { @load[str(arg0), str(arg1)] = count(); }
usdt:$d/upper.so:upper:transform__done { @done[str(arg0), str(arg1)] = count(); }
usdt:$d/host:plughost:plugin__unload { @unload[str(arg0), arg1] = count(); }
" ./host -r 2 ./upper.so hello world; then
		expect_eq "host traced: exit status" 0 "$bt_status"
		expect_grep "host traced: upper.so unloaded" \
			'^unloaded upper$' plugin/traced.out
		cat >plugin/expected.trace <<'EOF'
@done[hello, HELLO]: 2
@done[world, WORLD]: 2
@load[./upper.so, upper]: 2
@unload[upper, 2]: 2
EOF
		expect_file_eq "host and upper.so: bpftrace" \
			plugin/expected.trace plugin/traced.trace
	fi
fi

# cxx: the inline function's probes with c_str() arguments
if [ $cxx_ok = yes ]; then
	d=$(cd cxx && pwd -P)/O2
	if bt_trace traced cxx "
usdt:$d/catalog:catalog:cache__hit { @hit[str(arg0), str(arg1)] = count(); }
usdt:$d/catalog:catalog:cache__miss { @miss[str(arg1)] = count(); }
usdt:$d/catalog:catalog:cache__evict { @evict[str(arg1), arg2] = count(); }
usdt:$d/catalog:catalog:lookup__done { @done[str(arg0), arg1] = count(); }
" ./O2/catalog apple bread apple cheese kiwi bread; then
		expect_eq "catalog traced: exit status" 1 "$bt_status"
		expect_file_eq "catalog traced: output" cxx/expected.out \
			cxx/traced.out
		cat >cxx/expected.trace <<'EOF'
@done[apple, 45]: 2
@done[bread, 289]: 2
@done[cheese, 1250]: 1
@done[kiwi, -1]: 1
@evict[apple, 1]: 1
@evict[bread, 1]: 1
@hit[prices, apple]: 1
@hit[prices, bread]: 1
@hit[prices, cheese]: 1
@miss[apple]: 2
@miss[bread]: 2
@miss[cheese]: 1
@miss[kiwi]: 2
EOF
		expect_file_eq "catalog: bpftrace" cxx/expected.trace \
			cxx/traced.trace
	fi
fi

# interp: function-entry alone traced, so one name built per call (and
# none for function-return, whose _ENABLED() stays false); then none
# again once bpftrace is gone
if [ $interp_ok = yes ]; then
	d=$(cd interp && pwd -P)
	if bt_trace traced interp "
usdt:$d/minforth:minforth:function__entry { @[str(arg0), str(arg1), arg2] = count(); }
" env MINFORTH_STATS=1 ./minforth demo.fs; then
		expect_eq "minforth traced: exit status" 0 "$bt_status"
		expect_eq "minforth traced: output" "$(cat interp/plain.out)" \
			"$(cat interp/traced.out)"
		cat >interp/expected.trace <<'EOF'
@[countdown, demo.fs, 9]: 1
@[fib, demo.fs, 6]: 177
@[square, demo.fs, 4]: 3
@[sum-of-squares, demo.fs, 5]: 1
EOF
		expect_file_eq "minforth: bpftrace function-entry" \
			interp/expected.trace interp/traced.trace
		expect_eq "minforth traced: one name built per call" \
			"minforth: 182 calls, 182 probe names built" \
			"$(stats interp/traced.err)"
		(cd interp && MINFORTH_STATS=1 timeout 300 ./minforth demo.fs) \
			>interp/after.out 2>interp/after.err
		expect_eq "minforth after bpftrace: no name built" \
			"minforth: 182 calls, 0 probe names built" \
			"$(stats interp/after.err)"
	fi
fi

finish
