#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-hostile-debug.sh: root's dtrace names the frames of a user's
# program, and that program names its separate debug files (issue 28,
# part 1).
#
# User nobody runs stripped programs of its own whose .gnu_debuglink
# names /etc/shadow, ../../../../../../../etc/shadow, /dev/zero (a
# device, as /dev/watchdog or a serial port would be), a FIFO next to
# the program, and symbolic links next to it to /etc/shadow and
# /dev/zero; and a program with DWARF whose .gnu_debugaltlink names a
# root-only (0600) ELF file by its path, with that file's build-id.
# Root's `dtrace -x srcline -p PID` with ustack() looks for debug files
# for each; under strace, it must open none of those files for reading
# (an O_PATH descriptor, which opens no device or FIFO, is what the
# search looks at first), and still print the stack.  Before the fix
# dtrace opened all of them (/etc/shadow read for its CRC, the root-only
# file taken as the dwz file unchecked).
#
# Needs root (to run the attacker as another user), setpriv, strace,
# objcopy, readelf, strip and tracefs uprobe events.

. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: the attacker runs as another user"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
command -v strace >/dev/null 2>&1 || skip "no strace"
id nobody >/dev/null 2>&1 || skip "no user nobody"
require_G objcopy readelf strip
require_uprobe_events

DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

atk_pid=
debug_cleanup() {
	[ -n "$atk_pid" ] && kill -KILL "$atk_pid" 2>/dev/null
	cleanup
}
trap debug_cleanup EXIT
trap 'exit 1' INT TERM HUP

cat >loop.c <<'C'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int spin(int i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}
int main(void)
{
	int i = 0;

	printf("ready\n");
	fflush(stdout);
	for (;;) {
		i = spin(i);
		usleep(2000);
	}
}
C
$CC -O1 -g -o loop loop.c || fail "cannot build loop"

# a root-only ELF file in a directory nobody cannot read
mkdir secret && chmod 700 secret && cp loop secret/root.elf &&
	chmod 600 secret/root.elf || exit 99
rid=$(readelf -n secret/root.elf | awk '/Build ID:/ { print $3; exit }')
[ -n "$rid" ] || fail "no build-id in the root-only file"

chmod 755 "$tmp"
mkdir own && chown nobody own || exit 99

# hexbin HEX: the bytes
hexbin() {
	echo "$1" | sed 's/../& /g' | tr ' ' '\n' | while read -r h; do
		[ -n "$h" ] && printf "\\$(printf %o "0x$h")"
	done
}

# linked NAME LINK: own/NAME, stripped, its .gnu_debuglink naming LINK
# (the name, NUL, padding to 4 bytes, a CRC)
linked() {
	{
		printf '%s\0' "$2"
		pad=$(((4 - (${#2} + 1) % 4) % 4))
		head -c "$pad" /dev/zero
		printf '\1\2\3\4'
	} >own/"$1".sec
	cp loop own/"$1" && strip --strip-debug --remove-section=.gnu_debuglink \
		own/"$1" && objcopy --add-section .gnu_debuglink=own/"$1".sec \
		own/"$1" || fail "cannot build own/$1"
}
linked p-abs /etc/shadow
linked p-dotdot ../../../../../../../etc/shadow
linked p-dev /dev/zero
linked p-fifo fifo.debug
mkfifo own/fifo.debug
linked p-lshadow lshadow.debug
ln -s /etc/shadow own/lshadow.debug
linked p-ldev ldev.debug
ln -s /dev/zero own/ldev.debug
# DWARF of its own, and a dwz file named by path and build-id
{
	printf '%s\0' "$tmp/secret/root.elf"
	hexbin "$rid"
} >own/p-alt.sec
cp loop own/p-alt && objcopy --add-section .gnu_debugaltlink=own/p-alt.sec \
	own/p-alt || fail "cannot build own/p-alt"
chown -R nobody own

# attack NAME: root's dtrace on own/NAME run by nobody, under strace
attack() {
	: >atk.out
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		./own/"$1" >atk.out 2>atk.err &
	atk_pid=$!
	ready() { grep -q ready atk.out; }
	if ! wait_until 100 ready; then
		fail "$1: the attacker did not start: $(cat atk.err)"
		return
	fi
	# LeakSanitizer cannot run under ptrace (--enable-sanitizers): off
	# for this run alone, which strace watches
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	timeout -s KILL 60 strace -f -qq -e trace=open,openat,openat2 \
		-o "trace-$1.txt" "$DTRACE" -q -x srcline -p "$atk_pid" \
		-n 'pid$target::spin:entry { ustack(); exit(0); }' \
		>"out-$1.txt" 2>"err-$1.txt" </dev/null
	status=$?
	kill -KILL "$atk_pid" 2>/dev/null
	wait "$atk_pid" 2>/dev/null
	atk_pid=
	expect_eq "$1: dtrace's status" 0 "$status"
	expect_grep "$1: the stack" 'main' "out-$1.txt"
	# every open of the named files, but O_PATH ones
	grep -E '/shadow"|/dev/zero"|/fifo\.debug"|/l(dev|shadow)\.debug"|/root\.elf"' \
		"trace-$1.txt" | grep -v 'O_PATH' >"opened-$1.txt"
	if [ -s "opened-$1.txt" ]; then
		fail "$1: dtrace opened what the program named:"
		sed 's/^/    | /' "opened-$1.txt" >&2
	else
		pass
	fi
}

for a in p-abs p-dotdot p-dev p-fifo p-lshadow p-ldev p-alt; do
	attack "$a"
done
# the searches happened: each named file was at least looked at or
# refused by name (not that the stacks needed no debug file)
grep -q 'fifo\.debug' trace-p-fifo.txt ||
	fail "p-fifo: no look at the FIFO (the search did not run)"

finish
