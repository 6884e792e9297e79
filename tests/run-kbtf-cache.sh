#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kbtf-cache.sh: the kernel BTF's answers kept for the boot
# (dtrace-G/consumer/kbtf.c; dtrace.1, FILES and DTRACE_KBTF_CACHE).
#
# A traced run asks the kernel's BTF for offsets its BPF programs read
# at the hit (here ppid: task_struct's real_parent and tgid) and writes
# them, under a header naming the boot and the BTF's size, to the cache
# file, root's, mode 0644.  The next run reads them there: a value
# changed in a trusted file is what it uses (so ppid comes out wrong:
# that shows the file answers, not the BTF).  The same file is not
# believed, and the BTF is asked again, when it is writable by others,
# not root's, a link, of another boot, in a directory others may write
# or below one (not sticky); a run rewrites it (renamed over, never
# written through a link) except in such a directory.  DTRACE_KBTF_CACHE= empty keeps none.

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
require_uprobe_events # the pid provider's probe
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
cat >kc.c <<'EOF'
int kc_fn(int x) { return x + 1; }
int main(void) { return kc_fn(0) - 1; }
EOF
$CC -O0 -o kc kc.c || {
	fail "building the test program"
	finish
}

mkdir kcd && chmod 0755 kcd
cache=$tmp/kcd/kbtf
export DTRACE_KBTF_CACHE="$cache"
boot=$(cat /proc/sys/kernel/random/boot_id)
size=$(stat -c %s /sys/kernel/btf/vmlinux)

# kt NAME: one traced run, which prints whether ppid is dtrace's pid
kt() {
	timeout -s KILL 120 "$DTRACE" -q -c ./kc \
		-n 'pid$target:a.out:kc_fn:entry { printf("%d\n", ppid == $pid); }' \
		>kt.out 2>kt.err
	expect_eq "$1: status" "0 " "$? $(cat kt.err)"
}
# poisoned: the cache's tgid offset made 0 (the first word of the parent's
# task_struct, not its tgid)
poison() {
	sed 's/^[0-9]* task_struct tgid$/0 task_struct tgid/' "$cache" >p.tmp &&
		cat p.tmp >"$cache"
}
tgid() {
	sed -n 's/^\([0-9]*\) task_struct tgid$/\1/p' "$cache"
}

kt "no cache yet"
expect_eq "no cache yet: ppid" 1 "$(cat kt.out)"
mtime=$(stat -L -c %.9Y "$DTRACE")
expect_eq "the file made: its header" "usdt-sdk kbtf 1 $boot $size $mtime" \
	"$(head -n 1 "$cache" 2>/dev/null)"
expect_eq "the file made: root's, 644" "0 644" "$(stat -c '%u %a' "$cache")"
good=$(tgid)
[ -n "$good" ] && [ "$good" -gt 0 ] && pass ||
	fail "the file made: no task_struct tgid line: $(cat "$cache")"
grep -q '^[0-9]* task_struct real_parent$' "$cache" && pass ||
	fail "the file made: no task_struct real_parent line"

poison
kt "a trusted file"
expect_eq "a trusted file: its (poisoned) answer used" 0 "$(cat kt.out)"
expect_eq "a trusted file: left as it was" 0 "$(tgid)"

# untrusted NAME: the poisoned file is not believed (ppid right) and is
# replaced by a root-owned 644 file with the BTF's answer
untrusted() {
	kt "$1"
	expect_eq "$1: not believed" 1 "$(cat kt.out)"
	expect_eq "$1: replaced" "$good 0 644 no" \
		"$(tgid) $(stat -c '%u %a' "$cache") $([ -L "$cache" ] && echo link || echo no)"
}

chmod 0666 "$cache"
untrusted "a file others may write"
poison
chown 65534 "$cache"
untrusted "a file not root's"
poison
sed -i "1s/ $boot / 00000000-0000-0000-0000-000000000000 /" "$cache"
untrusted "another boot's file"
poison
mv "$cache" real.kbtf
ln -s "$tmp/real.kbtf" "$cache"
untrusted "a link"
expect_eq "a link: its target left alone" 0 \
	"$(sed -n 's/^\([0-9]*\) task_struct tgid$/\1/p' real.kbtf)"

poison
chmod 0775 kcd
kt "a directory others may write"
expect_eq "a directory others may write: not believed" 1 "$(cat kt.out)"
expect_eq "a directory others may write: not written" 0 "$(tgid)"
chmod 0755 kcd

# the same file below a directory others may write (not sticky): they
# could put another directory in its place
mkdir anc anc/d && chmod 0777 anc && chmod 0755 anc/d &&
	cp "$cache" anc/d/kbtf && chmod 0644 anc/d/kbtf
DTRACE_KBTF_CACHE=$tmp/anc/d/kbtf
kt "an ancestor others may write"
expect_eq "an ancestor others may write: not believed" 1 "$(cat kt.out)"
DTRACE_KBTF_CACHE=$cache

rm -f "$cache"
DTRACE_KBTF_CACHE= kt "DTRACE_KBTF_CACHE empty"
expect_eq "DTRACE_KBTF_CACHE empty: ppid" 1 "$(cat kt.out)"
[ ! -e "$cache" ] && [ -z "$(ls kcd)" ] && pass ||
	fail "DTRACE_KBTF_CACHE empty: a file was written: $(ls kcd)"

finish
