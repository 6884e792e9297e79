#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-hostile-escape.sh: bytes a traced process controls never reach
# root's terminal raw (issue 28, part 3).
#
# User nobody runs a program whose function name (objcopy renames it)
# holds ESC [2J, a C1 CSI in UTF-8 (c2 9b) and raw (9b), and which
# passes the bytes 0x1b and 0x9b as a probe argument.  Root's dtrace -p:
#  - printf("%c") of the argument (and with a width) prints \x1b and
#    \x9b, where it wrote the bytes themselves; %c of the script's own
#    constant still prints its byte;
#  - with -x oformat=json, the keys of @[ustack()] and @[ufunc()], a
#    printf("%s") of ufunc() and trace(usym()) carry the name made safe
#    (\x1b, as text output prints it), where the keys carried \u001b and
#    \u009b, which a JSON reader turns back into the bytes.
# No output holds ESC, a C1 control or \u001b/\u009b.
#
# Needs root, setpriv, objcopy and tracefs uprobe events.

. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: the attacker runs as another user"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
require_G objcopy
require_uprobe_events

DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

atk_pid=
escape_cleanup() {
	[ -n "$atk_pid" ] && kill -KILL "$atk_pid" 2>/dev/null
	cleanup
}
trap escape_cleanup EXIT
trap 'exit 1' INT TERM HUP

cat >esc.c <<'C'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int spin(int c)
{
	__asm__ volatile("" ::: "memory");
	return c + 1;
}
__attribute__((noinline)) int evil(int c) { return spin(c) + 1; }
int main(void)
{
	int s = 0;

	printf("ready\n");
	fflush(stdout);
	for (;;) {
		s += evil(0x1b);
		s += evil(0x9b);
		usleep(2000);
	}
	return s;
}
C
esc=$(printf '\033')
csi8=$(printf '\302\233')
csi=$(printf '\233')
$CC -O1 -c esc.c -o esc.o &&
	objcopy --redefine-sym "evil=ev${esc}[2Jil${csi8}31m${csi}X" esc.o &&
	$CC -o esc esc.o || fail "cannot build esc"
chmod 755 "$tmp"
mkdir own && cp esc own/ && chown -R nobody own || exit 99

: >atk.out
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	./own/esc >atk.out 2>atk.err &
atk_pid=$!
ready() { grep -q ready atk.out; }
wait_until 100 ready || fail "the attacker did not start: $(cat atk.err)"

# dt OUT ARGS...: dtrace -p on the attacker, 4 hits of spin
dt() {
	d_out=$1
	shift
	timeout -s KILL 60 "$DTRACE" -q -p "$atk_pid" "$@" >"$d_out" \
		2>"$d_out.err" </dev/null
	expect_eq "$d_out: dtrace's status" 0 "$?"
}
dt text.txt -n 'pid$target::spin:entry /++n <= 4/ {
	printf("[%c|%3c|%c]\n", (int)arg0, (char)arg0, 0x41); }
	pid$target::spin:entry /n > 4/ { exit(0); }'
dt json.txt -x oformat=json -n 'pid$target::spin:entry /++n <= 4/ {
	@[ustack()] = count(); @f[ufunc(ucaller)] = count();
	printf("%s %c", ufunc(ucaller), (int)arg0); trace(usym(ucaller)); }
	pid$target::spin:entry /n > 4/ { exit(0); }'

# clean WHAT FILE: no ESC, no C1 control (raw or UTF-8), no JSON escape
# of one
clean() {
	if LC_ALL=C grep -q "$esc\\|$csi\\|\\\\u001b\\|\\\\u009b" "$2"; then
		fail "$1: a control byte of the traced process:"
		od -c "$2" | head -20 >&2
	else
		pass
	fi
}
clean "printf %c" text.txt
clean "printf %c: stderr" text.txt.err
clean "JSON" json.txt
clean "JSON: stderr" json.txt.err
expect_eq "%c made safe" 4 \
	"$(grep -c -F -e '[\x1b|\x1b|A]' -e '[\x9b|\x9b|A]' text.txt | tr -d ' ')"
expect_grep "%c made safe: both bytes" '\[\\x9b|\\x9b|A\]' text.txt
expect_grep "JSON: the stack key" \
	'"keys":\[\[.*ev\\\\x1b\[2Jil\\\\xc2\\\\x9b31m\\\\x9bX' json.txt
expect_grep "JSON: the ufunc key" \
	'"keys":\["esc`ev\\\\x1b\[2Jil\\\\xc2\\\\x9b31m\\\\x9bX"\]' json.txt
expect_grep "JSON: printf %s %c" \
	'"output":"esc`ev\\\\x1b\[2Jil\\\\xc2\\\\x9b31m\\\\x9bX \\\\x' json.txt

finish
