#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The boundaries the design keeps in dtrace-G/, checked in the sources.
#
# 1. The D language stays free of the kernel: nothing in dtrace-G/d/
# includes or calls into dtrace-G/consumer/ (doc/DESIGN.md §11).
#
# Includes: every #include "X" of a file in dtrace-G/d/ names a header
# of dtrace-G/d/ itself, of sdk/ (the shared text and value helpers) or
# config.h, with no ".." in it; an #include <X> names no file of
# dtrace-G/ (tests/unit/ builds d/ with -I dtrace-G).
# Calls: the unit tests t-dlang and t-aggfmt link all of $(D_SOURCES)
# (libdlang.a, --whole-archive) with sdk/text.c alone, so a call from
# d/ into the consumer fails their link; D_SOURCES must then hold
# nothing but dtrace-G/d/ files and the
# sdk/ files d/ shares with the command (sdk/xalloc.c, its allocators).

. "$top_srcdir/tests/lib.sh"

d="$top_srcdir/dtrace-G/d"
for f in "$d"/*.c "$d"/*.h; do
	name=dtrace-G/d/$(basename "$f")
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
		"$f" >quoted.txt
	while read -r inc; do
		case $inc in
		*..*)
			fail "$name includes \"$inc\" (outside dtrace-G/d/)"
			continue
			;;
		esac
		if [ "$inc" = config.h ] || [ -f "$d/$inc" ] ||
		   [ -f "$top_srcdir/sdk/$inc" ] ||
		   [ -f "$top_srcdir/sdk/include/$inc" ]; then
			pass
		else
			fail "$name includes \"$inc\", not a header of dtrace-G/d/ or sdk/"
		fi
	done <quoted.txt
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/\1/p' \
		"$f" >angled.txt
	while read -r inc; do
		if [ -e "$top_srcdir/dtrace-G/$inc" ]; then
			fail "$name includes <$inc>, a file of dtrace-G/"
		else
			pass
		fi
	done <angled.txt
done

# D_SOURCES, as Makefile.am assigns and appends to it (with its
# continuation lines)
awk '/^D_SOURCES[ \t]*\+?=/ { on = 1; sub(/^D_SOURCES[ \t]*\+?=/, "") }
     on { more = /\\$/; sub(/\\$/, ""); print; on = more }' \
	"$top_srcdir/Makefile.am" | tr -s ' \t' '\n\n' | sed '/^$/d' >dsources.txt
expect_eq "D_SOURCES is listed in Makefile.am" yes \
	"$(grep -q 'dtrace-G/d/run.c' dsources.txt && echo yes)"
while read -r src; do
	case $src in
	dtrace-G/d/* | sdk/*) pass ;;
	*) fail "D_SOURCES holds $src, not a file of dtrace-G/d/ or sdk/" ;;
	esac
done <dsources.txt

# 2. The consumer's backends and providers are behind their tables
# (doc/DESIGN.md §8): DTRACE_BACKEND is read in one place, backend_choose()
# in consumer.c; no file but consumer.c (which lists the backends) and a
# backend's own names that backend's ops (the rest asks its caps); no
# file but pidprov.c names the pid provider's site kinds (the rest asks
# provider.c); dtrace -l (list.c) takes the rows after the registry's
# from the providers' tables (dt_providers_list()), making no pid or
# kernel probe itself.
c="$top_srcdir/dtrace-G"
grep -l 'getenv("DTRACE_BACKEND")' "$c"/*.c "$c"/*/*.c >readers.txt
expect_eq "DTRACE_BACKEND is read in consumer.c alone" \
	"$c/consumer/consumer.c" "$(cat readers.txt)"
for be in bpf uprobe fasttrap; do
	grep -l "consumer_${be}_ops" "$c"/*.c "$c"/*/*.c |
		grep -v -e "/consumer/consumer\.c\$" -e "/consumer/$be\.c\$" \
			>users.txt
	expect_eq "consumer_${be}_ops named only by consumer.c and $be.c" "" \
		"$(cat users.txt)"
done
grep -l 'SITE_PID_' "$c"/*.c "$c"/*/*.c | grep -v '/consumer/pidprov\.c$' \
	>kinds.txt
expect_eq "the pid provider's site kinds named only in pidprov.c" "" \
	"$(cat kinds.txt)"
expect_eq "dtrace -l makes no pid or kernel probe row itself" "" \
	"$(grep -n -e 'dt_pid_each' -e 'dt_kprov_list' \
		-e '"pid%d"' -e 'origin = DT_ORIGIN_KERNEL' "$c/list.c")"
expect_eq "dtrace -l asks the providers' tables" 1 \
	"$(grep -c 'dt_providers_list(&' "$c/list.c")"

# 3. -G's linker (dtrace-G/link/) and the probe readers
# (dtrace-G/objects/) are leaves of the command: neither includes a
# header of the other, so neither can call the other (a call without a
# prototype fails --enable-werror); link/ includes of the command only
# ../dtrace.h, the interface it implements, and objects/ nothing outside
# itself but sdk/ (doc/DESIGN.md §11).
for f in "$top_srcdir"/dtrace-G/link/*.[ch] \
	"$top_srcdir"/dtrace-G/objects/*.[ch]; do
	dir=$(basename "$(dirname "$f")")
	name=dtrace-G/$dir/$(basename "$f")
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
		"$f" >quoted.txt
	while read -r inc; do
		if [ "$dir" = link ] && [ "$inc" = ../dtrace.h ]; then
			pass
			continue
		fi
		case $inc in
		*..*)
			fail "$name includes \"$inc\", outside dtrace-G/$dir/ and sdk/"
			continue
			;;
		esac
		if [ "$inc" = config.h ] ||
		   [ -f "$top_srcdir/dtrace-G/$dir/$inc" ] ||
		   [ -f "$top_srcdir/sdk/$inc" ] ||
		   [ -f "$top_srcdir/sdk/include/$inc" ]; then
			pass
		else
			fail "$name includes \"$inc\", not a header of dtrace-G/$dir/ or sdk/"
		fi
	done <quoted.txt
done

# 4. Engines return errors, the command prints them (doc/DESIGN.md §12):
# in dtrace-G/link/, only link.c's gsay() (warnings, -v notes) and
# print_site() (-v) write to stderr; gerr() forms the error in
# dtrace_link()'s msg and dtrace.c prints it.
for f in "$top_srcdir"/dtrace-G/link/*.c; do
	awk -v file="dtrace-G/link/${f##*/}" '
		/^[A-Za-z_][^;]*\(/ && !/^(static |int |void )?[A-Za-z_ ]*=/ {
			fn = $0
			sub(/\(.*/, "", fn)
			sub(/.*[ *]/, "", fn)
		}
		/stderr/ { print file ": " fn }' "$f"
done | sort -u >writers.txt
expect_eq "dtrace-G/link/ writes to stderr only in gsay() and print_site()" \
	"dtrace-G/link/link.c: gsay
dtrace-G/link/link.c: print_site" "$(cat writers.txt)"

finish
