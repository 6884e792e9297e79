#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-sanitized.sh - what --enable-sanitizers may and may not touch.
#
# drti.o is linked into users' programs and libraries, so it must never
# reference a sanitizer runtime, in any build: checked always.  In a
# sanitizer build (USDT_SANITIZERS=yes, set by fuzz/fuzz.am) our own
# programs must carry ASan and UBSan -- otherwise the option silently did
# nothing -- and a probed program linked from a sanitized dtrace's -G
# output (plain compiler, plain drti.o) must still run cleanly.

. "$top_srcdir/tests/lib.sh"

san_syms='__asan_|__ubsan_|__lsan_|__sanitizer_|__tsan_|__msan_'

[ -f "$DRTI_O" ] || skip "no drti.o ($DRTI_O)"
expect_eq "drti.o: sanitizer references" "" \
	"$(nm "$DRTI_O" | grep -E "$san_syms" | tr '\n' ' ')"

if [ "${USDT_SANITIZERS:-no}" = yes ]; then
	for p in "$DTRACE" "$DOFDUMP"; do
		if nm "$p" 2>/dev/null | grep -q '__asan_report'; then
			pass
		elif ldd "$p" 2>/dev/null | grep -q 'libasan'; then
			pass
		else
			fail "$p: built without AddressSanitizer"
		fi
		if nm "$p" 2>/dev/null | grep -q '__ubsan_handle'; then
			pass
		else
			fail "$p: built without UndefinedBehaviorSanitizer"
		fi
	done
	"$DTRACE" -V >v.txt 2>&1
	expect_eq "sanitized dtrace -V: exit status" 0 $?

	# a -G output of the sanitized dtrace in a plain program
	if command -v "$CC" >/dev/null 2>&1 && [ "$(uname -m)" = x86_64 ]; then
		cat >p.d <<-'EOT'
		provider san { probe hit(int); };
		EOT
		cat >p.c <<-'EOT'
		#include "p.h"
		int main(void) { SAN_HIT(1); return 0; }
		EOT
		if "$DTRACE" -h -s p.d -o p.h && $CC -c p.c -o p.o &&
			"$DTRACE" -G -s p.d -o pp.o p.o && $CC p.o pp.o -o p; then
			./p
			expect_eq "plain program with a sanitized -G output" \
				0 $?
			expect_eq "its sanitizer references" "" \
				"$(nm p | grep -E "$san_syms" | tr '\n' ' ')"
		else
			fail "building a plain program with -G failed"
		fi
	fi
else
	echo "not a sanitizer build: only drti.o checked"
fi
finish
