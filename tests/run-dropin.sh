#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-dropin.sh: our `dtrace` first in PATH, in place of systemtap's, and
# the ways real builds use it (doc/DESIGN.md §10) still build, link with
# -z defs and trace:
#  - never running -G (HotSpot, PostgreSQL's extensions), -G with no
#    objects (glib, libvirt, QEMU), -G over some objects (a hand-kept
#    list that drifted: CPython, PHP, Perl), -G over all of them;
#  - a shared library, a static executable, and Perl's static archive
#    whose -G output nothing but the anchors pulls in;
#  - -flto objects given to -G (Debian's python3 builds), gcc and clang;
#  - C++: the header inside extern "C++", probes in an inline function
#    and a template used from two units;
#  - the seds projects run over the header, and the command lines real
#    builds use (libtool's -fPIC, .dtrace inputs, -G without -o).
# Each program's dp:::req hits are traced with bpftrace (as root) and must
# arrive exactly once each with their values, whichever form the probe
# site took (rewritten NOP or the header's stub).

. "$top_srcdir/tests/lib.sh"

require_G readelf nm ar
data=$top_srcdir/tests/data/dropin
mkdir bin && ln -s "$DTRACE" bin/dtrace || exit 99
PATH=$PWD/bin:$PATH
export PATH
for f in dp.d dp1.c dp2.c main.c tmpl.cc; do cp "$data/$f" . || exit 99; done

tracing=no
if [ "$(id -u)" -eq 0 ] && command -v bpftrace >/dev/null 2>&1; then
	[ -e /sys/kernel/tracing/uprobe_events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -e /sys/kernel/tracing/uprobe_events ] && tracing=yes
fi
[ $tracing = yes ] || echo "# not root, no bpftrace or no tracefs: probes are not fired"

ok() {	# ok WHAT CMD...: CMD succeeds without a word on stderr
	o_what=$1
	shift
	if "$@" >cmd.out 2>cmd.err && ! grep -q . cmd.err; then
		pass
		return 0
	fi
	fail "$o_what: $*"
	sed 's/^/    | /' cmd.err >&2
	return 1
}

# notes PROG: the dp probes readelf sees, "name count" sorted
notes() {
	readelf -n "$1" | awk '/Provider: dp$/ { p = 1; next }
		p && /Name:/ { print $2; p = 0 }' | sort | uniq -c |
		awk '{ print $2, $1 }'
}

# objrows FILE: dtrace -l --object=FILE's user probes, FUNCTION:NAME
objrows() {
	dtrace -l --object="$1" 2>&1 | awk '$2 == "dp" { printf "%s%s:%s", s, $4, $5; s = " " }'
}

# fires WHAT PROG EXPECTED...: bpftrace sees each dp:::req hit of
# `PROG 2` once, with its values
fires() {
	f_what=$1 f_prog=$2
	shift 2
	[ $tracing = yes ] || return 0
	printf '%s\n' "$@" | sort >want.txt
	timeout 120 bpftrace -q -e "usdt:$f_prog:dp:req {
		printf(\"%s %d\\n\", str(arg0), arg1); }" -c "$f_prog 2" \
		>bt.out 2>bt.err
	grep -v '^$' bt.out | sort >got.txt
	expect_file_eq "$f_what: bpftrace dp:::req hits" want.txt got.txt
}

# dfires WHAT PROG EXPECTED...: the same with our dtrace -n -c
dfires() {
	d_what=$1 d_prog=$2
	shift 2
	[ $tracing = yes ] || return 0
	printf '%s\n' "$@" | sort >want.txt
	timeout 120 dtrace -q -n 'dp$target:::req {
		printf("%s %d\n", copyinstr(arg0), arg1); }' -c "$d_prog 2" \
		>dt.out 2>dt.err
	grep -v '^$' dt.out | sort >got.txt
	expect_file_eq "$d_what: dtrace -n dp:::req hits" want.txt got.txt
}

ok "dtrace -h" dtrace -h -s dp.d -o dp.h
CFLAGS="-O2 -Wall -Wextra -Werror"
ok "compile" $CC $CFLAGS -c dp1.c -o dp1.o &&
ok "compile" $CC $CFLAGS -c dp2.c -o dp2.o &&
ok "compile" $CC $CFLAGS -c main.c -o main.o || finish
cp dp1.o dp1.orig.o; cp dp2.o dp2.orig.o

# 1. never -G
if ok "never -G: link -z defs" $CC -o never main.o dp1.o dp2.o -Wl,-z,defs; then
	expect_eq "never -G: a stub note per probe called" \
		"obj 1 req 1 seven 1" "$(notes never | tr '\n' ' ' | sed 's/ $//')"
	fires "never -G" ./never "/one 200" "/one 201" "/two 300" "/two 301"
	dfires "never -G" ./never "/one 200" "/one 201" "/two 300" "/two 301"
fi

# gdb stops at the stub sites with the arguments
if command -v gdb >/dev/null 2>&1; then
	gdb -batch -ex 'break -probe-stap dp:req' -ex run \
		-ex 'print $_probe_arg1' -ex 'print (char *)$_probe_arg0' \
		-ex continue -ex 'print $_probe_arg1' --args ./never 1 \
		>gdb.out 2>&1
	sed -n 's/^\$[0-9]* = //p' gdb.out | sed 's/.*"\(.*\)"$/\1/' >gdb.txt
	printf '%s\n' 200 /one 300 >gdb-want.txt
	expect_file_eq "never -G: gdb's \$_probe_arg at the stubs" gdb-want.txt gdb.txt
fi
# _ENABLED() follows the stub's semaphore: dp:::seven fires only then
if [ $tracing = yes ]; then
	timeout 120 bpftrace -q -e 'usdt:./never:dp:seven { printf("%d %d\n", arg0, arg5); }' \
		-c "./never 2" >bt7.out 2>bt7.err
	expect_eq "never -G: _ENABLED() true while traced" "1 6 1 6" \
		"$(grep -v '^$' bt7.out | tr '\n' ' ' | sed 's/ $//')"
fi

# 2. -G with no objects (glib, libvirt, QEMU)
if ok "-G no objects" dtrace -G -s dp.d -o none.o &&
   ok "-G no objects: link" $CC -o noobj main.o dp1.o dp2.o none.o -Wl,-z,defs; then
	fires "-G no objects" ./noobj "/one 200" "/one 201" "/two 300" "/two 301"
fi

# 3. -G over some objects: dp2.o is missing from the list
if ok "-G some objects" dtrace -G -s dp.d -o some.o dp1.o &&
   ok "-G some objects: link" $CC -o some main.o dp1.o dp2.o some.o -Wl,-z,defs; then
	expect_eq "-G some objects: dp1's sites and the stubs noted" \
		"obj 2 req 2 seven 2" "$(notes some | tr '\n' ' ' | sed 's/ $//')"
	fires "-G some objects" ./some "/one 200" "/one 201" "/two 300" "/two 301"
	# our dtrace reads the stub sites' notes beside the DOF of dp1's
	dfires "-G some objects" ./some "/one 200" "/one 201" "/two 300" "/two 301"
	"$DTRACE" -l --object=./some >l.out 2>l.err
	# the stub's probe by its caller, dp2, as -G would name it
	expect_eq "-G some objects: dtrace -l lists dp1's site and dp2's call of the stub" \
		"dp1 dp2" \
		"$(awk '$2 == "dp" && $NF == "req" { print $4 }' l.out | sort | tr '\n' ' ' | sed 's/ $//')"
fi

# 4. -G over all of them, again (dp1.o already rewritten)
if ok "-G all objects" dtrace -G -s dp.d -o all.o dp1.o dp2.o &&
   ok "-G all objects: link" $CC -o all main.o dp1.o dp2.o all.o -Wl,-z,defs; then
	fires "-G all objects" ./all "/one 200" "/one 201" "/two 300" "/two 301"
	dfires "-G all objects" ./all "/one 200" "/one 201" "/two 300" "/two 301"
fi

# 4b. the same objects through -G twice, into two outputs, both linked
# (a rule run twice; libtool's two runs): no duplicate symbol, and each
# site noted once, or tracers fire it twice
if ok "-G again, into a second output" dtrace -G -s dp.d -o all2.o dp1.o dp2.o &&
   ok "two outputs of the same objects: link" $CC -o twice main.o dp1.o dp2.o \
	all.o all2.o -Wl,-z,defs; then
	expect_eq "two outputs: each site noted once" \
		"$(notes all | tr '\n' ' ')" "$(notes twice | tr '\n' ' ')"
	fires "two outputs" ./twice "/one 200" "/one 201" "/two 300" "/two 301"
	dfires "two outputs" ./twice "/one 200" "/one 201" "/two 300" "/two 301"
	expect_eq "two outputs: dtrace -l --object lists each probe once" \
		"$(objrows all)" "$(objrows twice)"
fi

# 5. a shared library, never -G, -z defs; and a static program
cp dp1.orig.o dp1.o; cp dp2.orig.o dp2.o
ok "compile -fPIC" $CC $CFLAGS -fPIC -c dp1.c -o dp1.pic.o &&
ok "compile -fPIC" $CC $CFLAGS -fPIC -c dp2.c -o dp2.pic.o &&
if ok "shared library, never -G" $CC -shared -o libdp.so dp1.pic.o dp2.pic.o -Wl,-z,defs &&
   ok "program of the library" $CC -o withlib main.o -L. -ldp -Wl,-rpath,"$PWD"; then
	expect_eq "shared library: stub notes" \
		"obj 1 req 1 seven 1" "$(notes libdp.so | tr '\n' ' ' | sed 's/ $//')"
fi
if $CC -static -o static main.o dp1.o dp2.o 2>/dev/null; then
	fires "static, never -G" ./static "/one 200" "/one 201" "/two 300" "/two 301"
else
	echo "# no static libc: the static program is not tried"
fi

# 6. Perl: main's own -G output defines every semaphore; libdp.a holds the
# rewritten objects and their -G output, which only the anchors pull in
ok "-G main.o (no probes)" dtrace -G -s dp.d -o dt_main.o main.o &&
ok "-G the library objects" dtrace -G -s dp.d -o dt_lib.o dp1.o dp2.o &&
ok "ar" ar rcs libperl.a dp1.o dp2.o dt_lib.o &&
if ok "static archive: link" $CC -o perl main.o dt_main.o libperl.a -Wl,-z,defs; then
	if readelf -S perl | grep -q '\.SUNW_dof'; then pass; else
		fail "static archive: the DOF of libperl.a's -G output was left behind"
	fi
	expect_eq "static archive: NOP sites and stubs noted" \
		"obj 2 req 3 seven 2" "$(notes perl | tr '\n' ' ' | sed 's/ $//')"
	fires "static archive" ./perl "/one 200" "/one 201" "/two 300" "/two 301"
	dfires "static archive" ./perl "/one 200" "/one 201" "/two 300" "/two 301"
fi

# 7. -flto objects given to -G: accepted, left as they are, and traced
lto() {	# lto TAG CC "LDFLAGS" FLAGS...
	l_tag=$1 l_cc=$2 l_ld=$3
	shift 3
	command -v "${l_cc%% *}" >/dev/null 2>&1 || return 0
	mkdir "$l_tag"
	for u in dp1 dp2 main; do
		ok "$l_tag: compile $u" $l_cc -O2 "$@" -c $u.c -o "$l_tag/$u.o" ||
			return 0
	done
	cp "$l_tag/dp1.o" "$l_tag/dp1.before"
	ok "$l_tag: -G takes -flto objects" dtrace -G -s dp.d \
		-o "$l_tag/probes.o" "$l_tag/dp1.o" "$l_tag/dp2.o" || return 0
	if cmp -s "$l_tag/dp1.o" "$l_tag/dp1.before"; then pass; else
		fail "$l_tag: -G changed an -flto object"
	fi
	ok "$l_tag: link" $l_cc -O2 "$@" $l_ld -o "$l_tag/prog" "$l_tag/main.o" \
		"$l_tag/dp1.o" "$l_tag/dp2.o" "$l_tag/probes.o" -Wl,-z,defs ||
		return 0
	fires "$l_tag" "./$l_tag/prog" "/one 200" "/one 201" "/two 300" "/two 301"
}
# gcc's fat objects (Debian's python3) with gcc whatever $CC is (clang
# has no -ffat-lto-objects)
if gcc_cc=$(gcc_driver "$CC" c); then
	lto gcc-lto "$gcc_cc" "" -flto -ffat-lto-objects
else
	echo "# no gcc: gcc's -flto objects are not tested"
fi
[ -n "${CLANG:-}" ] && lto clang-lto "$CLANG" -fuse-ld=lld -flto

# 8. C++: extern "C++", an inline function and a template in two units
if [ -n "${CXX:-}" ] && command -v "${CXX%% *}" >/dev/null 2>&1; then
	ok "C++ unit 1" $CXX $CFLAGS -DTMPL_MAIN -c tmpl.cc -o t1.o &&
	ok "C++ unit 2" $CXX $CFLAGS -c tmpl.cc -o t2.o &&
	ok "C++: link without -G" $CXX -o tmpl0 t1.o t2.o -Wl,-z,defs &&
	ok "C++: -G" dtrace -G -s dp.d -o tp.o t1.o t2.o &&
	ok "C++: link after -G" $CXX -o tmpl t1.o t2.o tp.o -Wl,-z,defs
fi

# 9. the seds real builds run over the header, then C and C++ compile
sed_case() {	# sed_case WHAT REQ OBJ_ENABLED OBJ SED-ARGS...
	s_what=$1
	printf '#include "sed.h"\nstruct thing;\nvoid f(int i);\nvoid f(int i) { %s("/x", i); if (%s()) %s((struct thing *)0, i); }\n' \
		"$2" "$3" "$4" >sed.c
	shift 4
	sed "$@" dp.h >sed.h
	cp sed.c sed.cc
	ok "sed $s_what: C" $CC $CFLAGS -c sed.c -o sed.o
	[ -n "${CXX:-}" ] && ok "sed $s_what: C++" $CXX $CFLAGS -c sed.cc -o sed.o
}
D="DP_REQ DP_OBJ_ENABLED DP_OBJ"
sed_case "PYTHON_-style rename (first match)" PyDTrace_REQ PyDTrace_OBJ_ENABLED \
	PyDTrace_OBJ 's/DP_/PyDTrace_/'
sed_case "( *char *" $D -e 's/( *char \*/(const char */g' \
	-e 's/, *char \*/, const char */g'
sed_case "/const/!s/char *" $D '/const/!s/char \*/const char */g'
sed_case "PHP_ -> DTRACE_" DTRACE_REQ DTRACE_OBJ_ENABLED DTRACE_OBJ 's,DP_,DTRACE_,g'
sed_case "lower-case #define lines" dp_req dp_obj_enabled dp_obj \
	'/^#define[ 	]*DP_[A-Z0-9_]*(.*)/y/ABCDEFGHIJKLMNOPQRSTUVWXYZ/abcdefghijklmnopqrstuvwxyz/'
sed_case "_DTRACE_VERSION -> ifdef" $D -e 's/if _DTRACE_VERSION/ifdef DP_TRACE/' \
	-e '1i #define DP_TRACE 1'
sed_case "STAP_HAS_SEMAPHORES undef" $D \
	's,define STAP_HAS_SEMAPHORES 1,undef STAP_HAS_SEMAPHORES,'
# 10. command lines: libtool's -fPIC/-fpic -DPIC, -o after the objects,
# inputs named .dtrace, -D without -C, -G without -o
cp dp.d qemu.dtrace
ok "-DSTAP_SDT_V2 -h on a .dtrace file" dtrace -DSTAP_SDT_V2 -h -s qemu.dtrace -o qemu.h
cp dp1.orig.o lt1.o
ok "libtool: -G -fPIC -DPIC, -o last" dtrace -G -s dp.d -fPIC -DPIC lt1.o -o lt-probes.o
ok "libtool: -G -fpic" dtrace -G -fpic -s dp.d -o lt-probes2.o lt1.o
ok "-G without -o" dtrace -G -s qemu.dtrace lt1.o
expect_eq "-G without -o writes the script's base name .o" yes \
	"$([ -s qemu.o ] && echo yes)"

ok "guard from the output name" dtrace -h -s dp.d -o probes.h.tmp
expect_grep "guard _PROBES_H_TMP" "^#ifndef _PROBES_H_TMP$" probes.h.tmp

finish
