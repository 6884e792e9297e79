#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-sdt-matrix.sh: probes written with usdt-sdk's <sys/sdt.h> and with
# `dtrace -h -x probestyle=inline` survive every way of building a
# program, with notes the tracers read correctly.
#
# tests/data/sdt/prog.c (probes of 0 to 12 arguments of every integer
# size and signedness, constants, one-byte arguments in %r8/%r9, a
# semaphore, the inline -h probes of sdtprov.d) and prog-asm.S (probes
# written in assembler) are built with gcc and clang, as C and as C++,
# at -O0, -O2 and -O2 -flto, linked by GNU ld and lld with --gc-sections
# (gcc -flto only with GNU ld: lld cannot read GCC's LTO objects).  The
# -G step gets the objects, or none under -flto.  For every build:
#  - the program runs;
#  - readelf -n: every probe has a note, with the base .stapsdt.base
#    (kept by lld --gc-sections too), the semaphore of USDT_PROBE,
#    USDT_ASM_PROBE_SEMA and the inline -h probes and no other;
#    each argument has exactly the size and sign its type gives and an
#    operand every tool reads (a register of that size, a one-byte
#    register by its 64-bit name -- never %r8b or %sil --, memory or a
#    constant); constants and assembler probes have exact strings, and so
#    has the one-byte-in-%r8/%r9 probe where gcc -O2 keeps the registers;
#  - bpftrace (root) reads arguments 0-5 of our probes and of the inline
#    -h probes: negative and unsigned values of 1, 2, 4 and 8 bytes,
#    unsigned constants that the compiler writes as negative numbers,
#    strings, assembler probes;
#  - gdb reads arguments 6-11 and the one-byte arguments.
# And -Werror with every standard, by gcc and clang: the sources written
# for systemtap's header (tests/data/sdt/dropin.c, dropsem.c,
# dropsem-def.c, dropmain.c: every macro, floating-point arguments,
# semaphores) as C89, GNU89, C99, C11, GNU17, C2x, C++98, C++11, C++17
# and C++20, and prog.c (with the inline -h header) from C99 and C++11
# on, with -Wall -Wextra -pedantic; with C89 and C++98 also
# -Wvariadic-macros and -Wlong-long, which -pedantic implies there; with
# clang also -Wgnu-zero-variadic-macro-arguments and, in C,
# -Wc23-extensions (-Wc2x-extensions before clang 15).
# Skips (77) without a C compiler, readelf or drti.o; clang, lld, root,
# bpftrace and gdb are optional: only their parts are skipped, with a
# message.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/sdt-lib.sh"

: "${CLANG:=}"
: "${CLANGXX:=}"
data=$top_srcdir/tests/data/sdt
inc=$top_srcdir/sdk/include

require_G readelf nm

have() {
	[ -n "$1" ] && command -v "$1" >/dev/null 2>&1
}

# build_ok WHAT COMMAND...: the command must succeed; its output in build.log
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

run_dtrace -h -x probestyle=inline -s "$data/sdtprov.d" -o sdtprov.h
expect_eq "dtrace -h -x probestyle=inline" 0 "$status"

# ---------------------------------------------------------------------
# The builds: NAME CC(driver) LANG OPT LINKER

# the gcc builds use gcc whatever $CC is ($CC when it is gcc)
GCC=$(gcc_driver "$CC" c)
GXX=$(gcc_driver "$CXX" c++)
{
	if have "$GCC"; then
		echo "gcc-c-O0-bfd $GCC c -O0 bfd"
		echo "gcc-c-O2-bfd $GCC c -O2 bfd"
		echo "gcc-c-O2-lld $GCC c -O2 lld"
		echo "gcc-c-lto-bfd $GCC c -flto bfd"
	else
		echo "# no gcc: no gcc builds" >&2
	fi
	if have "$GXX"; then
		echo "gcc-cxx-O0-lld $GXX c++ -O0 lld"
		echo "gcc-cxx-O2-bfd $GXX c++ -O2 bfd"
		echo "gcc-cxx-lto-bfd $GXX c++ -flto bfd"
	fi
	if have "$CLANG"; then
		echo "clang-c-O0-bfd $CLANG c -O0 bfd"
		echo "clang-c-O2-lld $CLANG c -O2 lld"
		echo "clang-c-lto-lld $CLANG c -flto lld"
		echo "clang-c-lto-bfd $CLANG c -flto bfd"
	else
		echo "# CLANG not set: no clang builds" >&2
	fi
	if have "$CLANGXX"; then
		echo "clang-cxx-O0-lld $CLANGXX c++ -O0 lld"
		echo "clang-cxx-O2-bfd $CLANGXX c++ -O2 bfd"
		echo "clang-cxx-lto-lld $CLANGXX c++ -flto lld"
	fi
} >builds.all
if ! have ld.lld; then
	echo "# no ld.lld: no lld builds"
	grep -v ' lld$' builds.all >builds.txt
else
	cp builds.all builds.txt
fi

# the C driver that goes with a C++ one, for the .S file
c_driver() {
	case $1 in
	"$GXX") echo "${GCC:-$CC}" ;;
	"$CLANGXX") echo "${CLANG:-$CC}" ;;
	*) echo "$1" ;;
	esac
}

# asm_obj NAME CC: NAME/prog-asm.o, a copy of prog-asm.S assembled once
# per driver (the same command for every build: no flags of the build)
asm_obj() {
	ao_o=asm-$(printf '%s' "$2" | tr -c 'A-Za-z0-9.+-' _).o
	if [ ! -f "$ao_o" ]; then
		build_ok "$1: prog-asm.o" "$2" -I"$inc" -c "$data/prog-asm.S" \
			-o "$ao_o" || return 1
	fi
	cp "$ao_o" "$1/prog-asm.o"
}

# build NAME CC LANG OPT LD: NAME/prog
built=
build() {
	b_dir=$1 b_cc=$2 b_lang=$3 b_opt=$4 b_ld=$5
	case $b_opt in
	-flto) b_opt="-O2 -flto" ;;
	esac
	mkdir "$b_dir" || return 1
	# clang -flto with GNU ld needs the LLVM gold plugin: skip if missing
	if ! build_ok "$b_dir: prog.o" $b_cc -x $b_lang $b_opt -g -Wall -Wextra \
		-Werror -I"$inc" -I. -c "$data/prog.c" -o "$b_dir/prog.o" ||
	   ! asm_obj "$b_dir" "$(c_driver "$b_cc")"; then
		return 1
	fi
	case $b_opt in
	*-flto*)
		# bitcode: -G gets no objects, only defines the semaphores
		set -- ;;
	*)	set -- "$b_dir/prog.o" "$b_dir/prog-asm.o" ;;
	esac
	build_ok "$b_dir: dtrace -G" "$DTRACE" -G -s "$data/sdtprov.d" \
		-o "$b_dir/probes.o" "$@" || return 1
	if ! $b_cc $b_opt -fuse-ld=$b_ld -Wl,--gc-sections -o "$b_dir/prog" \
		"$b_dir/prog.o" "$b_dir/prog-asm.o" "$b_dir/probes.o" \
		>"$b_dir/link.log" 2>&1; then
		if [ "$b_ld" = bfd ] && grep -q -i 'plugin' "$b_dir/link.log"; then
			echo "# $b_dir: GNU ld cannot load the LLVM LTO plugin: skipped"
			return 1
		fi
		fail "$b_dir: link"
		sed 's/^/    | /' "$b_dir/link.log" >&2
		return 1
	fi
	pass
	built="$built $b_dir"
}

while read -r name cc lang opt ld; do
	case $name in
	"#"*) continue ;;
	esac
	build "$name" "$cc" "$lang" "$opt" "$ld"
done <builds.txt
[ -n "$built" ] || {
	fail "nothing was built"
	finish
}

# ---------------------------------------------------------------------
# readelf -n

# The size-and-sign prefixes each probe's types give
a12="-4@ 1@ -2@ -8@ 8@ 8@ -4@ -8@ -2@ -1@ -4@ 8@"
{
	k=0
	echo "sdtt p0"
	while [ $k -lt 12 ]; do
		k=$((k + 1))
		printf 'sdtt p%s %s\n' $k "$(echo "$a12" | cut -d' ' -f1-$k)"
	done
	cat <<'EOF'
sdtt stap2 -4@ -4@
sdtt stapv -4@ 1@ -2@
sdtt var3 -2@ -8@ 8@
sdtt consts -4@ -4@ -2@ -8@ -1@ 2@ 1@ -8@
sdtt big 1@ 4@ 8@
sdtt bytes -4@ -4@ -4@ -4@ 1@ -1@
sdtt gated -4@
sdtt asm2 -8@ 8@
sdtt asmsema -8@
sdtp query 8@ -4@
sdtp wide -8@ 8@ -4@ 2@ 8@ -8@ -1@ 1@ -2@ 8@ 4@ 8@
sdtp flag 1@ 1@ -1@ -2@
sdtp gated -4@
sdtp tick
EOF
} | sed 's/ *$//' | LC_ALL=C sort >expected-prefixes.txt
cut -d' ' -f1,2 expected-prefixes.txt >expected-probes.txt

# Notes whose strings do not depend on the compiler
cat >expected-exact.txt <<'EOF'
sdtt asm2 -8@%rdi 8@%rsi
sdtt asmsema -8@%rdi
sdtt big 1@$-56 4@$-1 8@$-1
sdtt consts -4@$5 -4@$-6 -2@$-7 -8@$8 -1@$-9 2@$10 1@$100 -8@$-1
sdtt p0
sdtp tick
EOF

for v in $built; do
	notes "$v/prog" >"$v/notes.txt"
	cut -d' ' -f1,2 "$v/notes.txt" | LC_ALL=C sort -u >"$v/probes.txt"
	expect_file_eq "$v: one note or more for every probe" \
		expected-probes.txt "$v/probes.txt"
	cut -d' ' -f1,2,6- "$v/notes.txt" | sed 's/ *$//' |
		awk "$check_args_awk" >"$v/args-check.txt"
	if grep '^BAD ' "$v/args-check.txt" >&2; then
		fail "$v: operands tools may misread (above)"
	else
		pass
	fi
	grep -v '^BAD ' "$v/args-check.txt" | LC_ALL=C sort -u \
		>"$v/prefixes.txt"
	expect_file_eq "$v: the size and sign of every argument" \
		expected-prefixes.txt "$v/prefixes.txt"
	cut -d' ' -f1,2,6- "$v/notes.txt" | sed 's/ *$//' |
		grep -E '^sdtt (asm2|asmsema|big|consts|p0) |^sdtt p0$|^sdtp tick$' |
		LC_ALL=C sort -u >"$v/exact.txt"
	LC_ALL=C sort expected-exact.txt >expected-exact.sorted
	expect_file_eq "$v: exact argument strings" expected-exact.sorted \
		"$v/exact.txt"

	# every Base is .stapsdt.base, which must exist
	base=$(readelf -SW "$v/prog" | awk '{
		for (i = 1; i < NF; i++)
			if ($i == ".stapsdt.base") print $(i + 2) }')
	awk -v b="$base" '{
		x = $4; sub(/^0x0*/, "", x); y = b; sub(/^0*/, "", y)
		if (y == "" || x != y) print "note", $1, $2, "base", $4
	}' "$v/notes.txt" >"$v/bad-base.txt"
	if [ -s "$v/bad-base.txt" ]; then
		fail "$v: Base is not .stapsdt.base ('$base'):"
		sed 's/^/    | /' "$v/bad-base.txt" >&2
	else
		pass
	fi

	# semaphores: exactly the probes that have one, each its own
	nm "$v/prog" | awk '$3 ~ /^__usdt_sema_/ { print $3, $1 }' \
		>"$v/semas.txt"
	awk 'NR == FNR { a[$1] = $2; next }
		{
			s = $5; sub(/^0x0*/, "", s)
			want = ""
			if ($1 == "sdtp" || ($1 == "sdtt" &&
			    ($2 == "gated" || $2 == "asmsema"))) {
				want = a["__usdt_sema_" $1 "___" $2]
				sub(/^0*/, "", want)
				if (want == "") want = "(no symbol)"
			}
			if (s != want)
				print "note", $1, $2, "semaphore", $5, "want", want
		}' "$v/semas.txt" "$v/notes.txt" >"$v/bad-sema.txt"
	if [ -s "$v/bad-sema.txt" ]; then
		fail "$v: semaphores:"
		sed 's/^/    | /' "$v/bad-sema.txt" >&2
	else
		pass
	fi

	if ./"$v"/prog run 2 >"$v/run.out" 2>&1 &&
	   [ "$(cat "$v/run.out")" = "fired 2 rounds" ]; then
		pass
	else
		fail "$v: prog run 2"
		sed 's/^/    | /' "$v/run.out" >&2
	fi
done

# gcc -O2 keeps bytes6()'s one-byte arguments where the ABI put them
for v in gcc-c-O2-bfd gcc-c-O2-lld gcc-cxx-O2-bfd; do
	[ -f "$v/notes.txt" ] || continue
	expect_eq "$v: one-byte arguments in %r8 and %r9" \
		"-4@%edi -4@%esi -4@%edx -4@%ecx 1@%r8 -1@%r9" \
		"$(awk '$1 == "sdtt" && $2 == "bytes" {
			$1 = $2 = $3 = $4 = $5 = ""; sub(/^ */, ""); print }' \
			"$v/notes.txt")"
done

# ---------------------------------------------------------------------
# -Werror with every standard

wfams=
if [ "$(cc_kind "$CC")" = gcc ]; then
	wfams="gcc:$CC:$CXX"
elif have gcc && have g++; then
	wfams="gcc:gcc:g++"
else
	echo "# no gcc: no -Werror builds with it"
fi
if have "$CLANG" && have "$CLANGXX"; then
	wfams="$wfams clang:$CLANG:$CLANGXX"
else
	echo "# CLANG or CLANGXX not set: no -Werror builds with clang"
fi
for fam in $wfams; do
	wname=${fam%%:*}
	rest=${fam#*:}
	wcc=${rest%%:*}
	wcxx=${rest#*:}
	c23=
	if [ "$(cc_kind "$wcc")" = clang ]; then
		for f in -Wc23-extensions -Wc2x-extensions; do
			if echo 'int x;' | $wcc -x c -Werror $f -fsyntax-only - \
				>/dev/null 2>&1; then
				c23=$f
				break
			fi
		done
		[ -n "$c23" ] || fail "$wcc knows neither -Wc23-extensions nor -Wc2x-extensions"
	fi
	for std in c89 gnu89 c99 c11 gnu17 c2x c++98 c++11 c++17 c++20; do
		W="-Wall -Wextra -pedantic -Werror"
		files="dropin.c dropsem.c dropsem-def.c dropmain.c"
		case $std in
		c89 | gnu89 | c++98) W="$W -Wvariadic-macros -Wlong-long" ;;
		*) files="$files prog.c" ;;
		esac
		if [ "$(cc_kind "$wcc")" = clang ]; then
			W="$W -Wgnu-zero-variadic-macro-arguments"
		fi
		case $std in
		c++*) wc=$wcxx lang=c++ ;;
		*) wc=$wcc lang=c W="$W $c23" ;;
		esac
		mkdir -p "w-$wname-$std"
		for f in $files; do
			build_ok "-Werror: $wname -std=$std $f" $wc -x $lang \
				-std=$std $W -I"$inc" -I"$PWD" -I"$data" \
				-c "$data/$f" -o "w-$wname-$std/${f%.c}.o"
		done
	done
done

# ---------------------------------------------------------------------
# bpftrace: arguments 0-5

if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1; then
	echo "# not root or no bpftrace: bpftrace's part is skipped"
else
	cat >args.bt <<'EOF'
usdt:./prog:sdtt:p12 {
	printf("p12 %d %d %d %d %s 0x%lx\n", arg0, arg1, arg2, arg3,
	       str(arg4), arg5);
}
usdt:./prog:sdtt:var3 { printf("var3 %d %d %s\n", arg0, arg1, str(arg2)); }
usdt:./prog:sdtt:consts {
	printf("consts %d %d %d %d %d %d\n", arg0, arg1, arg2, arg3, arg4,
	       arg5);
}
usdt:./prog:sdtt:big { printf("big %d %lu 0x%lx\n", arg0, arg1, arg2); }
usdt:./prog:sdtt:bytes {
	printf("bytes %d %d %d %d %d %d\n", arg0, arg1, arg2, arg3, arg4,
	       arg5);
}
usdt:./prog:sdtt:asm2 { printf("asm2 %ld %lu\n", arg0, arg1); }
usdt:./prog:sdtp:query { printf("query %s %d\n", str(arg0), arg1); }
usdt:./prog:sdtp:wide {
	printf("wide %ld 0x%lx %d %d %s %ld\n", arg0, arg1, arg2, arg3,
	       str(arg4), arg5);
}
usdt:./prog:sdtp:flag { printf("flag %d %d %d %d\n", arg0, arg1, arg2, arg3); }
EOF
	cat >expected-bt.txt <<'EOF'
asm2 -4 12
big 200 4294967295 0xffffffffffffffff
bytes 1 2 3 4 200 -10
consts 5 -6 -7 8 -9 10
flag 1 200 -10 -3
p12 -1 200 -3 -4 str 0x1122334455667788
query str 0
var3 -3 -4 str
wide -4 0xfffffffffffffffc -1 65535 str -9000000000
EOF
	# shellcheck disable=SC2086 # $built is a word list
	bt_args args.bt prog "run 1" expected-bt.txt $built
fi

# ---------------------------------------------------------------------
# gdb: arguments 6-11, and one-byte arguments

if ! command -v gdb >/dev/null 2>&1; then
	echo "# no gdb: its part is skipped"
else
	A='$_probe_arg'
	cat >args.gdb <<EOF
set breakpoint pending on
set pagination off
break -probe-stap sdtt:p12
commands
silent
printf "p12 %d %d %d %d %d %d %lu\\n", \$_probe_argc, ${A}6, ${A}7, ${A}8, ${A}9, ${A}10, ${A}11
continue
end
break -probe-stap sdtp:wide
commands
silent
printf "wide %d %d %d %d 0x%lx %u %s\\n", \$_probe_argc, ${A}6, ${A}7, ${A}8, ${A}9, ${A}10, (char *)${A}11
continue
end
break -probe-stap sdtt:bytes
commands
silent
printf "bytes %d %d %d %d %d %d %d\\n", \$_probe_argc, ${A}0, ${A}1, ${A}2, ${A}3, ${A}4, ${A}5
continue
end
run
EOF
	cat >expected-gdb.txt <<'EOF'
bytes 6 1 2 3 4 200 -10
p12 12 -7 -8 -9 -10 -11 12
wide 12 -10 200 -3 0x1122334455667788 4000000000 twelve
EOF
	for v in $built; do
		timeout 120 gdb -nx -batch -x args.gdb --args "$v/prog" run 1 \
			>"$v/gdb.out" 2>&1
		grep -E '^(bytes|p12|wide) ' "$v/gdb.out" | LC_ALL=C sort \
			>"$v/gdb.txt"
		if ! cmp -s expected-gdb.txt "$v/gdb.txt"; then
			sed 's/^/    | /' "$v/gdb.out" >&2
		fi
		expect_file_eq "$v: gdb, arguments 6-11 and bytes" \
			expected-gdb.txt "$v/gdb.txt"
	done
fi

finish
