#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-dropin-projects.sh: miniature projects, each in the build system
# real projects of its pattern use (DESIGN §10), built unchanged with our
# `dtrace` first in PATH, in place of systemtap's:
#  - autotools with libtool (tests/data/dropin-projects/autotools): a
#    libtool library and two programs; `-G` twice into a hand-written
#    libtool object, over the PIC objects in .libs/ and over the non-PIC
#    ones (PHP); Ruby's configure check, which runs `-G` without `-o` on
#    a conftest object and compares it, and the "rebuild the objects"
#    build mode it chooses when the object changed, and the other mode;
#  - meson (meson): `-DSTAP_SDT_V2 -h` on a .dtrace file with CC in the
#    environment, `-G` with no objects, a shared library linked with
#    meson's default b_lundef (--no-undefined) (glib, libvirt, QEMU);
#    libvirt (libvirt, meson): `# file:` comment lines in the provider,
#    -G's output in a versioned library and a daemon, a dlopen()ed
#    driver module, every argument cast to void *;
#  - CMake (cmake): `-h` on .h.d files cpp wrote with its line markers
#    and the provider's pragmas, never `-G`, C++ with HotSpot's flags
#    including <sys/sdt.h> and two providers' headers, nine-argument
#    stubs, a shared library linked with -z defs (HotSpot);
#  - plain make: PostgreSQL (postgres: `-C -h`, its sed script, `-C -G`
#    over the objects, an extension built from the installed header and
#    dlopen()ed, and one that fires no probe, as postgresql-rum) and
#    Perl (perl: a .d.base input, `-h -xnolibs`, three
#    `-G` outputs, one inside the static archive libperl.a), CC and
#    CFLAGS in the environment; sssd (sssd: `-C -h`, `-C -G` with no
#    objects, a provider closed without `;`, its PROBE() macro); gcc's
#    libgcc (libgcc: the unwinder's probe from <sys/sdt.h> alone, behind
#    `_SDT_NOTE_TYPE >= 3`); libguestfs (libguestfs: DTRACE_PROBE with
#    parenthesised arguments from <sys/sdt.h> alone); gearmand
#    (gearmand: configure's --enable-dtrace check, `-h` and `-G` with no
#    objects, errors to /dev/zero);
#  - CMake, C++, LTTng tracepoints that are also stapsdt probes through
#    systemtap's internal _SDT_PROBE(): Mir (mir: CHECK_INCLUDE_FILE
#    defines LTTNG_UST_HAVE_SDT_INTEGRATION; C++20, -pedantic -Werror,
#    and Debian's link-time optimisation) and Ceph (ceph: lttng-gen-tp
#    providers, Ceph's own events, eight arguments of mixed sizes).
# Everything links with -z defs (or b_lundef).  Each binary's and
# library's probes must be listed by `dtrace -l --object` and by readelf,
# and (as root, with bpftrace) fire with exact arguments under bpftrace
# and under our `dtrace -n -c`.  A build system that is not installed is
# skipped alone, with a "# no ..." line.

. "$top_srcdir/tests/lib.sh"

require_G readelf make ar
data=$top_srcdir/tests/data/dropin-projects
mkdir bin && ln -s "$DTRACE" bin/dtrace || exit 99
PATH=$PWD/bin:$PATH
export PATH
# a sub-build's sub-make must not take this make's settings
unset MAKEFLAGS MFLAGS MAKELEVEL
: "${CXX:=c++}"

projects_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap projects_cleanup EXIT
trap 'exit 1' INT TERM HUP

tracing=no
if [ "$(id -u)" -eq 0 ] && command -v bpftrace >/dev/null 2>&1; then
	[ -e /sys/kernel/tracing/uprobe_events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -e /sys/kernel/tracing/uprobe_events ] && tracing=yes
fi
[ $tracing = yes ] || echo "# not root, no bpftrace or no tracefs: probes are not fired"

WFLAGS="-O2 -Wall -Wextra -Werror"

# build WHAT LOG CMD...: CMD succeeds (its output in LOG, shown on failure)
build() {
	b_what=$1 b_log=$2
	shift 2
	if "$@" >"$b_log" 2>&1; then
		pass
		return 0
	fi
	fail "$b_what: $*"
	tail -n 30 "$b_log" | sed 's/^/    | /' >&2
	return 1
}

# listed WHAT FILE PROVIDER NAMES: `dtrace -l --object=FILE` lists the
# probes NAMES (space-separated) of PROVIDER, no other
listed() {
	"$DTRACE" -l --object="$2" >l.out 2>l.err
	awk -v p="$3" '$2 == p { print $NF }' l.out | sort -u >got.txt
	printf '%s\n' $4 | sort >want.txt
	expect_file_eq "$1: dtrace -l --object=$2" want.txt got.txt
}

# noted WHAT FILE PROVIDER NAMES: FILE's stapsdt notes describe the
# probes NAMES of PROVIDER (as readelf prints them), no other
noted() {
	readelf -n "$2" | awk -v p="$3" '$1 == "Provider:" { q = ($2 == p); next }
		q && $1 == "Name:" { print $2; q = 0 }' | sort -u >got.txt
	printf '%s\n' $4 | sort >want.txt
	expect_file_eq "$1: readelf -n $2" want.txt got.txt
}

bt_lines() {	# bt_lines FILE N: FILE has N hits
	[ "$(grep -c -v -e '^ready$' -e '^$' "$1")" -ge "$2" ]
}

# bfires WHAT "FILES" PROVIDER:NAME CMD EXPECTED...: bpftrace, attached
# to FILES by path before CMD starts, sees each hit of the probe (a
# string and an int) once, with its values.  (Not -c: bpftrace 0.17
# looks the probes of -c's command up in its mappings before they hold
# its libraries.)  bpftrace runs BEGIN once every probe is attached.
bfires() {
	bf_what=$1 bf_files=$2 bf_probe=$3 bf_cmd=$4
	shift 4
	[ $tracing = yes ] || return 0
	bf_list=
	for f in $bf_files; do
		bf_list="$bf_list${bf_list:+, }usdt:$f:$bf_probe"
	done
	printf '%s\n' "$@" | sort >want.txt
	rm -f bt.out	# "ready" must be this run's
	: >bt.out
	bpftrace -q -e "BEGIN { printf(\"ready\\n\"); }
		$bf_list { printf(\"%s %d\\n\", str(arg0), arg1); }" \
		>bt.out 2>bt.err &
	bf_pid=$!
	bg_pids="$bg_pids $bf_pid"
	if wait_until 600 grep -q '^ready$' bt.out; then
		$bf_cmd >cmd.out 2>&1 || fail "$bf_what: $bf_cmd under bpftrace"
		wait_until 100 bt_lines bt.out $#
	else
		fail "$bf_what: bpftrace never attached"
	fi
	stop_bt $bf_pid
	grep -v -e '^ready$' -e '^$' bt.out | sort >got.txt
	cmp -s want.txt got.txt || sed 's/^/    | /' bt.err >&2
	expect_file_eq "$bf_what: bpftrace $bf_probe hits" want.txt got.txt
}

# dfires [-Z] WHAT D-PROGRAM CMD EXPECTED...: our `dtrace -q -n
# D-PROGRAM -c CMD` prints EXPECTED, a line each, in any order (-Z: a
# description may match no probe yet, one of a library CMD dlopen()s)
dfires() {
	d_z=
	if [ "$1" = -Z ]; then
		d_z=-Z
		shift
	fi
	d_what=$1 d_prog=$2 d_cmd=$3
	shift 3
	[ $tracing = yes ] || return 0
	printf '%s\n' "$@" | sort >want.txt
	timeout 120 dtrace $d_z -q -n "$d_prog" -c "$d_cmd" >dt.out 2>dt.err
	grep -v '^$' dt.out | sort >got.txt
	cmp -s want.txt got.txt || sed 's/^/    | /' dt.err >&2
	expect_file_eq "$d_what: dtrace -n hits" want.txt got.txt
}

# ---------------------------------------------------------------------
# autotools with libtool

# at_fires WHAT "FILES" PROG: `PROG 2`'s lt:::req hits, the program's and
# its library's objects', under bpftrace and dtrace -n
at_fires() {
	bfires "$1" "$2" lt:req "$3 2" "/main 200" "/lib 100" "/util 300" \
		"/main 201" "/lib 101" "/util 301"
	dfires "$1" 'lt$target:::req { printf("%s %d\n", copyinstr(arg0), arg1); }' \
		"$3 2" "/main 200" "/lib 100" "/util 300" \
		"/main 201" "/lib 101" "/util 301"
}

at_mode() {	# at_mode MODE [CACHE-VARIABLE]: configure, build, trace
	a_mode=$1
	shift
	mkdir "at-$a_mode" && cd "at-$a_mode" || exit 99
	a_w="autotools, $a_mode mode"
	# (without DTRACE, which tests get and configure would take over
	# PATH's dtrace).  The second mode's configure reads the first's
	# results from their cache file (libtool's checks, the compiler's):
	# Ruby's check is run by the first (rebuild) and preset by the
	# variable in the second, which a cache file never overrides.
	if ! build "$a_w: configure" configure.log \
		env -u DTRACE "$@" ../at-src/configure \
		--cache-file=../at-config.cache CC="$CC" \
		CFLAGS="-O2 -Wall -Wextra"; then
		cd .. && return
	fi
	expect_grep "$a_w: Ruby's check of -G" \
		"^checking whether dtrace needs post processing\.\.\. .*$a_mode$" \
		configure.log
	build "$a_w: make" make.log make CFLAGS="$WFLAGS" || { cd .. && return; }
	# PHP hides -G's errors and drops what failed: nothing may be dropped
	printf '%s\n' "# Generated by Makefile for libtool" \
		"pic_object='.libs/lt-probes.o'" "non_pic_object='lt-probes.o'" \
		>lo-want.txt
	expect_file_eq "$a_w: both -G runs made their object" lo-want.txt lt-probes.lo
	a_lib=$(readlink -f .libs/libdemo.so)
	listed "$a_w" "$a_lib" lt req
	noted "$a_w" "$a_lib" lt req
	listed "$a_w" ./app lt req
	noted "$a_w" ./app lt req
	noted "$a_w" ./app-static lt req
	# app-static: libdemo.a's NOP sites (DOF) and main.o's calls, which
	# no -G saw, at the stub, named by their caller (main)
	expect_eq "$a_w: app-static: dtrace -l, functions" \
		"lt_lib lt_util main" \
		"$("$DTRACE" -l --object=./app-static | awk '$2 == "lt" { print $4 }' |
			sort | tr '\n' ' ' | sed 's/ $//')"
	at_fires "$a_w: app" "$PWD/app $a_lib" ./app

	# one source changes: the other object was rewritten by -G already
	# (Ruby's rebuild mode builds it again first; the other mode gives
	# it to -G as it is)
	sleep 1
	touch ../at-src/lib.c
	build "$a_w: make after a change" make2.log make CFLAGS="$WFLAGS" ||
		{ cd .. && return; }
	if [ "$a_mode" = rebuild ]; then
		expect_grep "$a_w: objects rebuilt" "^rebuilding objects" make2.log
	fi
	expect_grep "$a_w: -G ran again" "dtrace -G -o \.libs/lt-probes\.o" make2.log
	expect_file_eq "$a_w: both -G runs made their object again" lo-want.txt lt-probes.lo
	at_fires "$a_w: app-static" "$PWD/app-static" ./app-static
	cd .. || exit 99
}

at_missing=
for t in autoreconf autoconf automake libtoolize; do
	command -v $t >/dev/null 2>&1 || at_missing="$at_missing $t"
done
if [ -n "$at_missing" ]; then
	echo "# no$at_missing: the autotools project is not built"
else
	cp -R "$data/autotools" at-src && chmod -R u+w at-src && mkdir at-src/m4 ||
		exit 99
	if build "autotools: autoreconf" autoreconf.log sh -c 'cd at-src && autoreconf -fi'; then
		at_mode rebuild		# what our -G gives, as Ruby's check finds
		at_mode yes demo_cv_prog_dtrace_g=yes
	fi
fi

# ---------------------------------------------------------------------
# meson, b_lundef

if ! command -v meson >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
	echo "# no meson or no ninja: the meson project is not built"
else
	cp -R "$data/meson" ms-src && chmod -R u+w ms-src || exit 99
	if build "meson: setup" meson-setup.log env CC="$CC" CFLAGS="$WFLAGS" \
		meson setup ms ms-src &&
	   build "meson: ninja" ninja.log ninja -v -C ms; then
		expect_grep "meson: b_lundef links with --no-undefined" \
			"no-undefined" ms/build.ninja
		expect_grep "meson: -G with no objects" \
			"dtrace -G -s [^ ]*trace-ms.dtrace -o trace-ms.o$" ninja.log
		# each file carries the stubs of the probes it calls
		listed "meson" ms/libms.so ms "req obj"
		noted "meson" ms/libms.so ms "req obj"
		listed "meson" ms/app ms "req"
		noted "meson" ms/app ms "req"
		bfires "meson" "$PWD/ms/app $PWD/ms/libms.so" ms:req "ms/app 2" \
			"/main 200" "/lib 100" "/main 201" "/lib 101"
		dfires "meson" 'ms$target:::req, ms$target:::obj {
			printf("%s %s %d\n", probename, copyinstr(arg0), arg1); }' \
			"ms/app 2" "req /main 200" "req /lib 100" "obj /lib 100" \
			"req /main 201" "req /lib 101" "obj /lib 101"
	fi
fi

# ---------------------------------------------------------------------
# CMake, -h only

if ! command -v cmake >/dev/null 2>&1; then
	echo "# no cmake: the CMake project is not built"
elif ! command -v "${CXX%% *}" >/dev/null 2>&1; then
	echo "# no C++ compiler ($CXX): the CMake project is not built"
else
	cp -R "$data/cmake" cm-src && chmod -R u+w cm-src || exit 99
	if build "cmake: configure" cmake.log env CC="$CC" CXX="$CXX" \
		CFLAGS="$WFLAGS" CXXFLAGS="$WFLAGS" cmake -S cm-src -B cm &&
	   build "cmake: make" cmake-make.log make -C cm VERBOSE=1; then
		if grep -q 'dtrace.* -G' cmake-make.log; then
			fail "cmake: the build ran dtrace -G"
		else
			pass
		fi
		# HotSpot's .h.d: cpp's line markers and the pragmas went
		# to dtrace -h as they are
		expect_grep "cmake: the .h.d has cpp's line markers" \
			'^# [0-9][0-9]* ".*jv\.d"' cm/jv.h.d
		expect_grep "cmake: the .h.d has the pragmas" \
			'^#pragma D attributes Evolving/Evolving/Common provider jv args$' \
			cm/jv.h.d
		listed "cmake" cm/libjv.so jv \
			"req gc-begin method-compile-end thread-sleep-begin"
		noted "cmake" cm/libjv.so jv \
			"req gc__begin method__compile__end thread__sleep__begin"
		listed "cmake" cm/libjv.so jv_jni \
			"GetByteField-return GetCharField-return GetCreatedJavaVMs-entry"
		bfires "cmake" "$PWD/cm/libjv.so" jv:req "cm/launcher 2" \
			"/lib 100" "/lib 101"
		# gc-begin fires only under its _ENABLED() guard; a stub's
		# arguments 6 to 8 are on the stack; a jbyte is signed, a
		# jchar not
		dfires "cmake" 'jv$target:::req { printf("%s %d\n", copyinstr(arg0), arg1); }
			jv$target:::gc-begin { printf("gc %d\n", arg0); }
			jv$target:::method-compile-end {
				printf("compiled %s %s.%s%s %d\n", copyinstr(arg0, arg1),
				    copyinstr(arg2, arg3), copyinstr(arg4, arg5),
				    copyinstr(arg6, arg7), arg8); }
			jv$target:::thread-sleep-begin { printf("sleep %d\n", arg0); }
			jv_jni$target:::GetCreatedJavaVMs-entry {
				printf("vms %d %d\n", arg0 != 0, arg1); }
			jv_jni$target:::GetByteField-return,
			jv_jni$target:::GetCharField-return {
				printf("%s %d\n", probename, arg0); }' \
			"cm/launcher 2" "/lib 100" "gc 0" "/lib 101" "gc 1" \
			"compiled C2 java/lang/Object.hashCode()I 1" \
			"compiled C2 java/lang/Object.hashCode()I 2" \
			"sleep -5000000000" "sleep -5000000001" "vms 1 1" "vms 1 1" \
			"GetByteField-return -3" "GetByteField-return -4" \
			"GetCharField-return 60000" "GetCharField-return 60001"
	fi
fi

# ---------------------------------------------------------------------
# plain make: PostgreSQL, then Perl; CC and CFLAGS in the environment

CFLAGS=$WFLAGS
export CC CFLAGS
cp -R "$data/postgres" pg && chmod -R u+w pg || exit 99
if build "postgres: make" pg.log make -C pg; then
	expect_grep "postgres: the extension sees the installed header" \
		"__dtrace_postgresql___query__start(const char \*, int)" \
		pg/inst/include/server/utils/probes.h
	listed "postgres" pg/postgres postgresql "query-start transaction-start"
	noted "postgres" pg/postgres postgresql "query__start transaction__start"
	# the extension calls query-start alone
	listed "postgres: extension" pg/ext.so postgresql "query-start"
	noted "postgres: extension" pg/ext.so postgresql "query__start"
	# postgresql-rum includes the header and fires nothing: no probe,
	# where it carried a stub and a note for every server probe
	expect_eq "postgres: rum: readelf -n finds no probe" 0 \
		"$(readelf -n pg/rum.so | grep -c 'Provider: postgresql')"
	"$DTRACE" -l --object=pg/rum.so >l.out 2>l.err
	expect_eq "postgres: rum: dtrace -l --object finds no probe" \
		"1 dtrace: pg/rum.so: no USDT probes (no .SUNW_dof section or stapsdt notes)" \
		"$? $(cat l.err)"
	# ./ext.so is relative: the server runs in pg/
	cd pg || exit 99
	bfires "postgres" "$PWD/postgres $PWD/ext.so" postgresql:query__start \
		"./postgres 2" "/backend 100" "/ext 400" "/backend 101" "/ext 401"
	dfires "postgres" 'postgresql$target:::query-start {
		printf("%s %d\n", copyinstr(arg0), arg1); }
		postgresql$target:::transaction-start { printf("xid %d\n", arg0); }' \
		"./postgres 2 await" "xid 700" "/backend 100" "/ext 400" \
		"xid 701" "/backend 101" "/ext 401"
	cd .. || exit 99
fi

cp -R "$data/perl" pl && chmod -R u+w pl || exit 99
if build "perl: make" pl.log make -C pl; then
	for b in perl miniperl; do
		# the DOF of libperl.a's -G output reached perl (its anchors)
		if readelf -S pl/$b | grep -q '\.SUNW_dof'; then pass; else
			fail "perl: $b has no DOF"
		fi
		listed "perl" pl/$b perl sub-entry
		noted "perl" pl/$b perl "sub__entry"
		bfires "perl" "$PWD/pl/$b" perl:sub__entry "pl/$b 2" \
			"/op 100" "/sv 300" "/op 101" "/sv 301"
		dfires "perl" 'perl$target:::sub-entry {
			printf("%s %d\n", copyinstr(arg0), arg1); }' \
			"pl/$b 2" "/op 100" "/sv 300" "/op 101" "/sv 301"
	done
fi

# ---------------------------------------------------------------------
# sssd: `-C -h` and `-C -G` with no objects on a provider closed without
# `;`, every probe behind its _ENABLED() test through sssd's PROBE()
# macro; each file carries the notes of the probes it fires alone (sssd's
# libsss_util.so had one per probe of the provider)

cp -R "$data/sssd" ss && chmod -R u+w ss || exit 99
if build "sssd: make" ss.log make -C ss; then
	expect_grep "sssd: -C -G with no objects" \
		"dtrace -C -G -s sssd_probes.d -o stap_generated_probes.o$" ss.log
	listed "sssd" ss/libsss_util.so sssd \
		"sssd_transaction_start sssd_transaction_commit_before"
	noted "sssd" ss/libsss_util.so sssd \
		"sssd_transaction_start sssd_transaction_commit_before"
	listed "sssd" ss/sssd_be sssd dp_req_done
	noted "sssd" ss/sssd_be sssd dp_req_done
	dfires "sssd" 'sssd$target:::sssd_transaction_start,
		sssd$target:::sssd_transaction_commit_before {
			printf("%s %s %d\n", probefunc, probename, arg0); }
		sssd$target:::dp_req_done {
			printf("%s %s %s %d\n", probefunc, probename,
			    copyinstr(arg0), arg3); }' "ss/sssd_be 2" \
		"sysdb_transaction sssd_transaction_start 0" \
		"sysdb_transaction sssd_transaction_commit_before 100" \
		"main dp_req_done req 0" \
		"sysdb_transaction sssd_transaction_start 1" \
		"sysdb_transaction sssd_transaction_commit_before 101" \
		"main dp_req_done req 1"
fi

# ---------------------------------------------------------------------
# libvirt (meson): `env CC=... dtrace -o H -h -s` and `-o O -G -s` with no
# objects on a provider whose probes are grouped under `# file:`-style
# comment lines; -G's output in libvirt.so (a static library linked
# whole, a version script, --no-undefined) and in the daemon, which
# fires nothing itself and carries no probe; the QEMU driver, a module
# the daemon dlopen()s, fires its own; every argument reaches the probe
# cast to void * by virprobe.h's PROBE()

if ! command -v meson >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
	echo "# no meson or no ninja: the libvirt project is not built"
else
	cp -R "$data/libvirt" lv-src && chmod -R u+w lv-src || exit 99
	if build "libvirt: setup" lv-setup.log env CC="$CC" CFLAGS="$WFLAGS" \
		meson setup lv lv-src &&
	   build "libvirt: ninja" lv-ninja.log ninja -v -C lv; then
		expect_grep "libvirt: -h with CC in the environment" \
			"env CC=[^ ]* [^ ]*dtrace -o libvirt_probes.h -h -s [^ ]*libvirt_probes\.d$" \
			lv-ninja.log
		expect_grep "libvirt: -G with no objects" \
			"env CC=[^ ]* [^ ]*dtrace -o libvirt_probes.o -G -s [^ ]*libvirt_probes\.d$" \
			lv-ninja.log
		# rpc_socket_dispose is called nowhere, so carried nowhere
		listed "libvirt" lv/libvirt.so libvirt \
			"event_glib_add_handle rpc_socket_new"
		noted "libvirt" lv/libvirt.so libvirt \
			"event_glib_add_handle rpc_socket_new"
		listed "libvirt" lv/libvirt_driver_qemu.so libvirt \
			qemu_monitor_send_msg
		noted "libvirt" lv/libvirt_driver_qemu.so libvirt \
			qemu_monitor_send_msg
		expect_eq "libvirt: libvirtd: readelf -n finds no probe" 0 \
			"$(readelf -n lv/libvirtd | grep -c 'Provider: libvirt')"
		# the module's probe exists only once it is loaded: -Z
		dfires -Z "libvirt" 'libvirt$target:::rpc_socket_new {
			printf("%s %s %d %d %d %s %s\n", probefunc, probename,
			    arg1, arg2, arg3 == pid, copyinstr(arg4),
			    copyinstr(arg5)); }
			libvirt$target:::event_glib_add_handle {
			printf("%s %s %d %d %d\n", probefunc, probename, arg0,
			    arg1, arg2); }
			libvirt$target:::qemu_monitor_send_msg {
			printf("%s %s %s %d\n", probefunc, probename,
			    copyinstr(arg1), arg2); }' "lv/libvirtd 2" \
			"virNetSocketNew rpc_socket_new 3 -1 1 127.0.0.1;25 127.0.0.1;4000" \
			"virEventGLibAddHandle event_glib_add_handle 1003 3 1" \
			"virNetSocketNew rpc_socket_new 10 -1 0 127.0.0.1;32 127.0.0.1;4000" \
			"virEventGLibAddHandle event_glib_add_handle 1010 10 1" \
			'qemuMonitorSend qemu_monitor_send_msg {"execute":"qmp_capabilities"} 10' \
			"virNetSocketNew rpc_socket_new 11 -1 0 127.0.0.1;33 127.0.0.1;4000" \
			"virEventGLibAddHandle event_glib_add_handle 1011 11 1" \
			'qemuMonitorSend qemu_monitor_send_msg {"execute":"query-status"} 11'
	fi
fi

# ---------------------------------------------------------------------
# gcc's libgcc: the unwinder's libgcc:::unwind, from <sys/sdt.h> alone,
# compiled only where the header says its notes are version 3
# (_SDT_NOTE_TYPE)

cp -R "$data/libgcc" lg && chmod -R u+w lg || exit 99
if build "libgcc: make" lg.log make -C lg SDT_INCLUDE="$top_srcdir/sdk/include"; then
	noted "libgcc" lg/libunw.so libgcc unwind
	listed "libgcc" lg/libunw.so libgcc unwind
	dfires "libgcc" 'libgcc$target:::unwind {
		printf("%s %x %x\n", probefunc, arg0, arg1); }' "lg/thrower 3" \
		"unw_debug_hook 1000 2000" "unw_debug_hook 1001 2001" \
		"unw_debug_hook 1002 2002"
fi

# ---------------------------------------------------------------------
# libguestfs: DTRACE_PROBE(guestfs, name, (arg)...) from <sys/sdt.h>
# alone, enabled where configure finds the header

cp -R "$data/libguestfs" gf && chmod -R u+w gf || exit 99
if build "libguestfs: make" gf.log make -C gf SDT_INCLUDE="$top_srcdir/sdk/include"; then
	noted "libguestfs" gf/libguestfs.so guestfs \
		"launch_start launch_run_begin launch_end"
	listed "libguestfs" gf/libguestfs.so guestfs \
		"launch_start launch_run_begin launch_end"
	dfires "libguestfs" 'guestfs$target:::launch_run_begin {
		printf("%s %s %d\n", probefunc, probename, arg0); }
		guestfs$target:::launch_end { printf("%s %s %d %s\n", probefunc,
		    probename, arg0, copyinstr(arg1)); }' "gf/guestfish 2" \
		"guestfs_launch launch_run_begin 10" \
		"guestfs_launch launch_end 10 direct" \
		"guestfs_launch launch_run_begin 11" \
		"guestfs_launch launch_end 11 direct"
fi

# ---------------------------------------------------------------------
# gearmand: configure's --enable-dtrace check (pandora_enable_dtrace.m4):
# `dtrace -h` and `dtrace -G` with no objects on a provider named
# Example, errors to /dev/zero, the exit status deciding HAVE_DTRACE;
# the server fires no probe, so it carries none

cp -R "$data/gearmand" gm && chmod -R u+w gm || exit 99
if build "gearmand: configure" gm-configure.log sh -c \
	"cd gm && CPPFLAGS=-I'$top_srcdir/sdk/include' ./configure --enable-dtrace" &&
   build "gearmand: make" gm.log make -C gm CPPFLAGS="-I$top_srcdir/sdk/include"; then
	expect_grep "gearmand: dtrace works" "^checking if dtrace works\.\.\. yes$" \
		gm-configure.log
	expect_grep "gearmand: -G with no objects" \
		"^checking if dtrace should instrument object files\.\.\. yes$" \
		gm-configure.log
	expect_grep "gearmand: HAVE_DTRACE" "^#define HAVE_DTRACE 1$" gm/config.h
	expect_eq "gearmand: runs" "gearmand: built with HAVE_DTRACE" \
		"$(gm/gearmand)"
	expect_eq "gearmand: readelf -n finds no probe" 0 \
		"$(readelf -n gm/gearmand | grep -c 'stapsdt')"
fi

# ---------------------------------------------------------------------
# mir and ceph: LTTng tracepoints that are also stapsdt probes, through
# systemtap's internal _SDT_PROBE(provider, name, n, (args)), which
# LTTng-UST 2.13's <lttng/tracepoint.h> calls (tests/data/.../lttng is
# a miniature of that header).  Mir: CMake's CHECK_INCLUDE_FILE finds
# <sys/sdt.h> and defines LTTNG_UST_HAVE_SDT_INTEGRATION, C++20 server
# library built with -pedantic -Werror and, as Debian builds it, -flto;
# Ceph: lttng-gen-tp providers with TRACEPOINT_DEFINE in the
# OSD and librados, events with the arguments Ceph's osd.tp and
# librados.tp give them (eight in the OSD's read, of mixed sizes).

SDT_CXXFLAGS="$WFLAGS -I$top_srcdir/sdk/include"
if ! command -v cmake >/dev/null 2>&1; then
	echo "# no cmake: the Mir and Ceph projects are not built"
elif ! command -v "${CXX%% *}" >/dev/null 2>&1; then
	echo "# no C++ compiler ($CXX): the Mir and Ceph projects are not built"
else
	# as debian/rules builds it: dpkg-buildflags' flags (CPPFLAGS folded
	# into the others, as debhelper does for CMake), and LTO
	mir_flags="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security -Wdate-time -D_FORTIFY_SOURCE=2 -I$top_srcdir/sdk/include"
	cp -R "$data/mir" mir-src && chmod -R u+w mir-src || exit 99
	if build "mir: configure" mir-cmake.log env CC="$CC" CXX="$CXX" \
		CFLAGS="$mir_flags" CXXFLAGS="$mir_flags" \
		LDFLAGS="-Wl,-z,relro -Wl,-z,now" cmake -S mir-src -B mir \
		-DLTTNG_INCLUDE="$data/lttng" -DMIR_LINK_TIME_OPTIMIZATION=ON &&
	   build "mir: make" mir-make.log make -C mir VERBOSE=1; then
		expect_grep "mir: CMake found <sys/sdt.h>" \
			"^HAVE_SYS_SDT_H:INTERNAL=1$" mir/CMakeCache.txt
		expect_grep "mir: C++20, -pedantic, -Werror and LTO" \
			"-pedantic .*-Werror -flto.* -std=c++20 .*compositor_report\.cpp" \
			mir-make.log
		mir_probes="added_display began_frame buffers_in_frame finished_frame"
		noted "mir" mir/libmirserver.so mir_server_compositor "$mir_probes"
		listed "mir" mir/libmirserver.so mir_server_compositor "$mir_probes"
		expect_eq "mir: the server fires none itself" 0 \
			"$(readelf -n mir/mir_demo_server | grep -c 'stapsdt')"
		dfires "mir" 'mir_server_compositor$target:::added_display {
			printf("%s %d %d %d %d %d\n", probename, arg0, arg1, arg2,
			    arg3, arg4); }
			mir_server_compositor$target:::began_frame,
			mir_server_compositor$target:::finished_frame {
			printf("%s %d\n", probename, arg0); }
			mir_server_compositor$target:::buffers_in_frame {
			printf("%s %d %d\n", probename, arg0, arg2); }' \
			"mir/mir_demo_server 2" \
			"added_display 1920 1080 0 0 7" \
			"began_frame 100" "buffers_in_frame 100 1" "finished_frame 100" \
			"began_frame 101" "buffers_in_frame 101 2" "finished_frame 101"
	fi

	cp -R "$data/ceph" ceph-src && chmod -R u+w ceph-src || exit 99
	if build "ceph: configure" ceph-cmake.log env CXX="$CXX" \
		CXXFLAGS="$SDT_CXXFLAGS" cmake -S ceph-src -B ceph \
		-DLTTNG_INCLUDE="$data/lttng" &&
	   build "ceph: make" ceph-make.log make -C ceph VERBOSE=1; then
		noted "ceph" ceph/librados.so librados \
			"rados_write_enter rados_write_exit"
		listed "ceph" ceph/librados.so librados \
			"rados_write_enter rados_write_exit"
		noted "ceph" ceph/ceph-osd osd "prepare_tx_enter do_osd_op_pre_read"
		listed "ceph" ceph/ceph-osd osd "prepare_tx_enter do_osd_op_pre_read"
		bfires "ceph" "$PWD/ceph/ceph-osd" osd:do_osd_op_pre_read \
			"ceph/ceph-osd 2" "rbd_data.0 7" "rbd_data.1 8"
		# a uint8_t, an int64_t of -1, an int32_t below 0, a uint32_t
		# above INT32_MAX, a size_t: each at its width and sign
		dfires "ceph" 'osd$target:::prepare_tx_enter {
			printf("%s %s %d %d %d %d\n", probefunc, probename, arg0,
			    arg1, arg2, arg3); }
			osd$target:::do_osd_op_pre_read {
			printf("%s %s %s %d %x %d %d %d %d %d\n", probefunc,
			    probename, copyinstr(arg0), arg1, arg2, arg3, arg4,
			    arg5, arg6, arg7); }
			librados$target:::rados_write_enter {
			printf("%s %s %d %s %s %d %d\n", probefunc, probename,
			    arg0 != 0, copyinstr(arg1), copyinstr(arg2), arg3,
			    arg4); }
			librados$target:::rados_write_exit {
			printf("%s %d\n", probename, arg0); }' "ceph/ceph-osd 2" \
			"_ZL10do_osd_opsPKci prepare_tx_enter 8 -1 4000000000 -2" \
			"_ZL10do_osd_opsPKci do_osd_op_pre_read rbd_data.0 7 200000000 4000000000 0 512 9000 3" \
			"rados_write rados_write_enter 1 rbd_data.0 rbd_data.0 100 0" \
			"rados_write_exit 1000" \
			"_ZL10do_osd_opsPKci prepare_tx_enter 8 -1 4000000001 -3" \
			"_ZL10do_osd_opsPKci do_osd_op_pre_read rbd_data.1 8 200000000 4000000001 4096 513 9001 4" \
			"rados_write rados_write_enter 1 rbd_data.1 rbd_data.1 101 4096" \
			"rados_write_exit 1010"
	fi
fi

finish
