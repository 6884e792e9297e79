#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The DOF validator (sdk/dof_check.c) will run inside a kernel module and
# inside a sandboxed helper, so it must be freestanding: it compiles with
# -ffreestanding -fno-builtin at every optimisation level and its object
# calls nothing at all -- no libc, and no compiler helper such as the
# memcpy or memset a struct copy can turn into.

. "$top_srcdir/tests/lib.sh"

for cc in "$CC" ${CLANG:+"$CLANG"}; do
	for o in -O0 -O2 -O3 -Os; do
		if ! $cc -std=c11 -ffreestanding -fno-builtin -Wall -Wextra \
			-Werror -I"$top_srcdir/sdk" -I"$top_srcdir/sdk/include" $o -c \
			"$top_srcdir/sdk/dof_check.c" -o dc.o 2>cc.txt; then
			fail "$cc $o: does not compile freestanding: $(cat cc.txt)"
			continue
		fi
		expect_eq "$cc $o: external references" "" \
			"$(nm -u dc.o | tr '\n' ' ')"
	done
done
finish
