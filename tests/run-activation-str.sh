#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-activation-str.sh: -x activation=user -x usercopy with clauses
# that read arguments' strings (copyinstr(argN), args[N] of a string
# type): the recorder copies each at the hit into the record with one
# process_vm_readv() on its own process (drti/rec.c, drti/arena.h
# version 3, doc/DESIGN.md §14), and the clauses run from the records.
# tests/data/act/actstr.c fires actstr:::req(i, char *) and
# actstr:::name(i, string); checked, each against the kernel path's
# output for the same program, byte for byte (stdout sorted: threads;
# the error lines with the pid taken out):
#  - words from 3 threads, a string across a page boundary, one whose
#    NUL is the last byte before a PROT_NONE page, one longer than
#    strsize, "": printf(), an aggregation's key, a predicate, args[1];
#    with the plans (DTRACE_KAGG=1) and with the rings alone; and at
#    strsize 5, and copyinstr(arg1, 3); -v names no probe of actstr on
#    the kernel path;
#  - invalid addresses (NULL, 0x10, an unmapped page, a PROT_NONE page,
#    a string running into one without a NUL): each error line, its
#    address and ERROR's arguments the kernel path's;
#  - at the hit: a long buffer rewritten right after its probe prints
#    what it held then (the kernel path reads a string longer than its
#    copy when it runs the record: that line is not compared);
#  - a seccomp filter installed after arming that answers EPERM to
#    process_vm_readv(): no crash, every string printed (read when the
#    record runs, as the kernel path's failed copies are), said;
#  - drti.o's __usdt_rec calls nothing but __tls_get_addr (objdump);
#  - a program whose drti.o predates copies (its __usdt_ctl of 16
#    bytes): its string probes on the kernel path, said under -v.
# The target stays alive until dtrace printed its last probe's line (a
# second after it), so that the kernel path's reads when it runs the
# record read the process, not one gone.
# Needs root, x86-64, and for the kernel path uprobe events.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/act

[ "$(id -u)" -eq 0 ] || skip "not root: ptrace and uprobes need root"
[ "$(uname -m)" = x86_64 ] || skip "-x activation=user is x86-64 only"
require_G
tracefs_at -w uprobe_events ||
	skip "no tracefs with uprobe_events (the kernel path to compare with)"

"$DTRACE" -h -s "$data/actstr.d" -o actstr.h &&
	$CC -O2 -I. -c "$data/actstr.c" -o actstr.o &&
	"$DTRACE" -G -s "$data/actstr.d" actstr.o -o actstr-probes.o &&
	$CC -o actstr actstr.o actstr-probes.o -lpthread || {
	fail "building the test program"
	finish
}

# as_run NAME ACTIVATION ARGS PROG [DTRACE OPTIONS...]: dtrace -c
# (ACTIVATION user: -x activation=user -x usercopy; plain: without
# -x usercopy, which sends the probes reading strings to the kernel path)
# './actstr ARGS' into NAME.out, NAME.err (the pid taken out), NAME.rc;
# NAME.sorted: the output sorted
as_run() {
	ar_n=$1 ar_a=$2 ar_args=$3 ar_p=$4 ar_m=$2
	shift 4
	case $ar_m in
	user) set -- -x usercopy "$@" ;;
	plain) ar_a=user ;; # no -x usercopy: string probes the kernel's
	esac
	rm -f "$ar_n.go"
	ACTSTR_WAIT=$PWD/$ar_n.go "$DTRACE" -q -x activation=$ar_a "$@" \
		-n "$ar_p" -c "./actstr $ar_args" >"$ar_n.out" 2>"$ar_n.raw" &
	ar_pid=$!
	wait_until 300 grep -qs '^end 99$' "$ar_n.out" ||
		fail "$ar_n: no end line"
	[ "$ar_m" = user ] || sleep 1
	touch "$ar_n.go"
	wait "$ar_pid"
	echo $? >"$ar_n.rc"
	sed 's/actstr[0-9]*:/actstr:/' "$ar_n.raw" >"$ar_n.err"
	# name 7 is read at the hit on the user path only (below)
	grep -v '^[wz]* 7$' "$ar_n.out" | sort >"$ar_n.sorted"
}

prog='actstr$target:::req { printf("%d %s\n", arg0, copyinstr(arg1)); }
actstr$target:::req { @k[copyinstr(arg1)] = count(); }
actstr$target:::req /copyinstr(arg1) == "beta"/ { @b = count(); }
actstr$target:::name { printf("%s %d\n", args[1], arg0); }
ERROR { printf("ERROR %d %d %x\n", arg3, arg4, arg5); }'

# 1. strings, both paths
for a in kernel user ring; do
	act=$a kagg=1
	[ $a = ring ] && act=user kagg=0
	DTRACE_KAGG=$kagg
	export DTRACE_KAGG
	as_run good.$a $act 'good 3' "$prog" -v
	unset DTRACE_KAGG
	expect_eq "good, $a: exit" 0 "$(cat good.$a.rc)"
	grep -v '^dtrace: \(BPF\|[0-9]* clause\|[0-9]* traced\|clause\)' \
		good.$a.err >good.$a.said
done
expect_file_eq "strings: the user path's output is the kernel path's" \
	good.kernel.sorted good.user.sorted
expect_file_eq "strings: the rings' output is the kernel path's" \
	good.kernel.sorted good.ring.sorted
expect_file_eq "strings: the user path's errors are the kernel path's" \
	good.kernel.said good.user.said
expect_eq "strings: nothing goes to the kernel path" "" \
	"$(grep 'kernel path' good.user.err)"
# without -x usercopy (opt-in: a system call per string, and one a
# seccomp filter installed later could kill the process for), the
# probes reading strings are the kernel path's, said, the output the same
as_run good.plain plain 'good 3' "$prog" -v
expect_eq "no -x usercopy: exit" 0 "$(cat good.plain.rc)"
expect_file_eq "no -x usercopy: the kernel path's output" \
	good.kernel.sorted good.plain.sorted
expect_eq "no -x usercopy: actstr's req and name on the kernel path, said" 2 \
	"$(grep -c 'probe actstr:actstr:main:\(req\|name\): the kernel path (copyinstr() of an argument is read at the hit on the kernel path (-x usercopy copies it in the process))' good.plain.err)"
expect_eq "strings: the long string cut at strsize - 1" 1 \
	"$(grep -c "^4 $(printf '%0255d' 0 | tr 0 x)\$" good.user.out)"
expect_eq "strings: the string across pages" 1 \
	"$(grep -c '^1 crossing$' good.user.out)"
# at the hit: a long buffer rewritten after its probe (name 7)
expect_eq "at the hit: the bytes then" 1 \
	"$(grep -c "^$(printf '%0255d' 0 | tr 0 w) 7\$" good.user.out)"
expect_eq "at the hit: the bytes then, rings alone" 1 \
	"$(grep -c "^$(printf '%0255d' 0 | tr 0 w) 7\$" good.ring.out)"

# A self-> variable stored where the kernel path has the probe (req,
# reading its string: no -x usercopy) and read where the process's
# recorder has it (name): one copy, user space's, for both.  The main
# thread fires name 0 to 3 before its own reqs (1 to 6), then name 7
# and 99.  Before, the kernel kept self->r (its plan ran req's clause)
# while the in-process hits of name read user space's: "n 7 0"; now
# the clause is user space's on the kernel path too, -v says why.
sprog='actstr$target:::req { this->w = copyinstr(arg1); self->r = arg0 + 1; }
actstr$target:::name { printf("n %d %d\n", arg0, self->r); }
actstr$target:::name /arg0 == 99/ { printf("end 99\n"); }'
as_run self.plain plain 'good 1' "$sprog" -v
as_run self.kernel kernel 'good 1' "$sprog"
expect_eq "self-> across the paths: exit" 0 "$(cat self.plain.rc)"
expect_eq "self-> across the paths: the main thread's" \
	'n 0 0|n 1 0|n 2 0|n 3 0|n 7 7|n 99 7' \
	"$(grep '^n [0-9]* [0-9]*$' self.plain.sorted | sort -n -k2 |
		paste -sd'|' -)"
expect_file_eq "self-> across the paths: the kernel path's output" \
	self.kernel.sorted self.plain.sorted
expect_eq "self-> across the paths: req on the kernel path, name not" \
	'actstr:actstr:main:req|actstr:actstr:thr:req' \
	"$(sed -n 's/^dtrace: pid [0-9]*, probe \([^ ]*\): the kernel path .*/\1/p' \
		self.plain.err | sort | paste -sd'|' -)"
expect_grep "self-> across the paths: -v says why" \
	'^dtrace: clause 1 (actstr:::req) runs in user space where the kernel path has its probe: it touches self-> variables' \
	self.plain.err

# 2. invalid addresses: the errors, their addresses, ERROR's arguments
for a in kernel user; do
	as_run bad.$a $a 'bad 1' "$prog"
	expect_eq "bad, $a: exit" 0 "$(cat bad.$a.rc)"
	expect_eq "bad, $a: the process's own end" 1 \
		"$(grep -c '^done 1$' bad.$a.out)"
done
expect_file_eq "invalid addresses: the user path's output is the kernel's" \
	bad.kernel.sorted bad.user.sorted
expect_file_eq "invalid addresses: the user path's errors are the kernel's" \
	bad.kernel.err bad.user.err
expect_eq "invalid addresses: 5 addresses, 3 clauses each" 15 \
	"$(grep -c '^ERROR -1 1 ' bad.user.out)"
expect_grep "invalid addresses: a string running into PROT_NONE faults there" \
	'invalid address (0x600000002000) in predicate' bad.user.err

# 3. strsize 5, and copyinstr()'s own size
p2='actstr$target:::req { printf("%d [%s] [%s]\n", arg0, copyinstr(arg1),
	copyinstr(arg1, 3)); @k[copyinstr(arg1)] = count(); }
actstr$target:::name { printf("%s %d\n", args[1], arg0); }'
for a in kernel user; do
	as_run size.$a $a 'good 2' "$p2" -x strsize=5
	expect_eq "strsize 5, $a: exit" 0 "$(cat size.$a.rc)"
done
expect_file_eq "strsize 5: the user path's output is the kernel's" \
	size.kernel.sorted size.user.sorted
expect_file_eq "strsize 5: the user path's errors are the kernel's" \
	size.kernel.err size.user.err
expect_eq "strsize 5: cut at 4" 1 "$(grep -c '^4 \[xxxx\] \[xxx\]$' size.user.out)"

# 4. a seccomp filter since arming that refuses process_vm_readv(): the
# words of 3 threads, 3 each, and the names, read when the records ran
as_run sec user 'seccomp 3' "$prog"
expect_eq "seccomp: exit" 0 "$(cat sec.rc)"
w='(alpha|beta|gamma|delta)'
grep -E "^[0-9]+ $w\$|^$w [0-9]\$" good.kernel.sorted >sec.expect
grep -E "^[0-9]+ $w\$|^$w [0-9]\$" sec.sorted >sec.got
expect_file_eq "seccomp: every string printed" sec.expect sec.got
expect_eq "seccomp: the predicate's count" 1 \
	"$(grep -c '^ *2$' sec.out)"
expect_grep "seccomp: said" \
	'^dtrace: 14 strings not copied at the hit .*read when dtrace ran the record$' \
	sec.err

# 5. the recorder calls nothing but the TLS lookup (a thread let run out
# of [__usdt_rec, +size) at disarm must not be in a helper): no
# memcpy()/memchr() made of the copy loops
if command -v objdump >/dev/null 2>&1; then
	objdump -dr "$DTRACE_DRTI" |
		awk '/<__usdt_rec>:$/ { on = 1; next } /^$/ { on = 0 }
			on && /R_X86_64_(PLT32|PC32|GOTPCREL)/ { print $3 }' |
		sort -u >rec.calls
	expect_eq "the recorder's calls" "__tls_get_addr-0x4" \
		"$(grep -v '^\.' rec.calls | grep -v '__usdt_\|^\*ABS\*' | tr '\n' ' ' | sed 's/ $//')"
fi

# 6. a drti.o that predates copies: __usdt_ctl of 16 bytes (its symbol's
# st_size written so)
cp actstr actstr-new
symtab=$(readelf -SW actstr | awk '$2 == ".symtab" { print $5 }')
idx=$(readelf -sW actstr | awk '$8 == "__usdt_ctl" { sub(":", "", $1); print $1; exit }')
if [ -n "$symtab" ] && [ -n "$idx" ]; then
	printf '\020\0\0\0\0\0\0\0' | dd of=actstr bs=1 \
		seek=$((0x$symtab + idx * 24 + 16)) conv=notrunc 2>/dev/null
	expect_eq "old drti.o: __usdt_ctl of 16" 16 \
		"$(readelf -sW actstr | awk '$8 == "__usdt_ctl" { print $3; exit }')"
	as_run old user 'good 3' "$prog" -v
	expect_grep "old drti.o: said under -v" \
		'its drti.o predates copies at the hit' old.err
	expect_file_eq "old drti.o: the kernel path's output" \
		good.kernel.sorted old.sorted
else
	fail "no __usdt_ctl in actstr's symbol table"
fi
mv actstr-new actstr

finish
