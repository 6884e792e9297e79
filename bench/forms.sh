#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/forms.sh - what each form a probe can take in a binary costs,
# untraced and traced, next to systemtap's <sys/sdt.h> probe measured in
# the same run.  Run by bench/run.sh (`make bench`); on its own:
#
#	DTRACE=dtrace-G/dtrace DTRACE_DRTI=drti/drti.o top_srcdir=. \
#		sh bench/forms.sh
#
# The forms (doc/DESIGN.md §10; sdk/prov_header.c), each the probe
# bform:::hit(void *, int) fired once per iteration of bench/forms.c's
# loop with a changing pointer and int:
#  1. rewritten site: the call form of `dtrace -h`'s header, the object
#     given to `dtrace -G`, which turns the call into a 4-byte NOP (the
#     site) and a 1-byte one;
#  2. stub site: the same object linked without -G: a real call to the
#     header's COMDAT stub, whose entry (a 4-byte and a 1-byte NOP, then
#     ret) is the
#     probe site;
#  3. inline site: usdt-sdk's <sys/sdt.h> DTRACE_PROBE2, and the header
#     of `dtrace -h -x probestyle=inline` (a 1-byte and a 10-byte NOP);
#  4. systemtap's <sys/sdt.h> DTRACE_PROBE2, included by its path (the
#     reference: a 1-byte NOP);
#  5. no probe: the loop alone.
#
# Method (as run.sh's, which see):
#  - untraced: instructions per iteration from callgrind, exact (the
#    machine may have no hardware counters): (Ir at 300,000 iterations -
#    Ir at 100,000) / 200,000, so that start-up and printing cancel;
#    ns per iteration from the loop's own clock, the best of 15 runs
#    taken in turns over the forms, so that a burst of load elsewhere
#    does not fall on one form only;
#  - traced (root): ns per hit = the traced run's ns per iteration minus
#    the untraced one, best of five runs of $HITS hits (in turns too),
#    counted with bpftrace's count() and our `dtrace -n ... { @ =
#    count(); }`;
#    a run whose count is not $HITS is not used, and a form with no good
#    run shows n/a;
#  - whether the kernel optimized the uprobe (Linux 6.18 and later call
#    a trampoline from a 5-byte NOP instead of trapping, which breaks
#    forked children, so none of our forms should be: doc/DESIGN.md §4):
#    the traced program reports whether [uprobes-trampoline] was mapped.
# Nothing passes or fails on speed; the script prints a table and, with
# FORMS_MD set, writes it as a markdown section with the machine named.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${FORMS_MD:=}"
: "${HITS:=50000}"
export DTRACE_DRTI LC_ALL=C

tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-forms.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# The paths given may be relative to where we were started.
abs() { case $1 in ''|/*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
top_srcdir=$(abs "$top_srcdir") FORMS_MD=$(abs "$FORMS_MD")
DTRACE_DRTI=$(abs "${DTRACE_DRTI:-}")
case $DTRACE in */*) DTRACE=$(abs "$DTRACE") ;; esac
[ -n "$DTRACE_DRTI" ] || unset DTRACE_DRTI
here=$top_srcdir/bench
cd "$tmp" || exit 1

# Systemtap's own header (Debian: systemtap-sdt-dev), by path, never a
# <sys/sdt.h> an include path could make usdt-sdk's.
stap_h=
for h in /usr/include/x86_64-linux-gnu/sys/sdt.h /usr/include/sys/sdt.h; do
	if [ -f "$h" ] && grep -q 'Systemtap static probe' "$h"; then
		stap_h=$h
		break
	fi
done

# ---------------------------------------------------------------------
# Build: one program per form; a form that does not build is n/a.
forms="rewritten stub inline inline-h stap none"
label() {
	case $1 in
	rewritten) echo "1. rewritten site (call form + -G)" ;;
	stub) echo "2. stub site (call form, no -G)" ;;
	inline) echo "3. inline site, usdt-sdk <sys/sdt.h>" ;;
	inline-h) echo "3. inline site, -h -x probestyle=inline" ;;
	stap) echo "4. systemtap <sys/sdt.h> (reference)" ;;
	none) echo "5. no probe" ;;
	esac
}
cp "$here/forms.d" . || exit 1
"$DTRACE" -h -s forms.d -o bform.h &&
"$DTRACE" -h -x probestyle=inline -s forms.d -o bform-inline.h || exit 1
cc_() { $CC -O2 "$@" 2>>build.log; }
cc_ -I. -DFORM_CALL -c "$here/forms.c" -o call.o &&
	"$DTRACE" -G -s forms.d -o call-p.o call.o 2>>build.log &&
	cc_ call.o call-p.o -o rewritten
cc_ -I. -DFORM_CALL "$here/forms.c" -o stub
cc_ -I"$top_srcdir/sdk/include" -DFORM_INLINE "$here/forms.c" -o inline
cc_ -I. -DFORM_INLINE -DINLINE_HDR -c "$here/forms.c" -o ih.o &&
	"$DTRACE" -G -s forms.d -o ih-p.o ih.o 2>>build.log &&
	cc_ ih.o ih-p.o -o inline-h
[ -n "$stap_h" ] && cc_ -DFORM_STAP -DSTAP_SDT_H="\"$stap_h\"" "$here/forms.c" -o stap
cc_ "$here/forms.c" -o none
for f in $forms; do
	[ -x "$f" ] || echo "($(label "$f"): did not build; n/a)"
done

# ---------------------------------------------------------------------
# Untraced
ir_per_iter() {	# PROG
	[ -x "$1" ] && command -v valgrind >/dev/null 2>&1 || { echo n/a; return; }
	a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "./$1" 300000 2>&1 |
		sed -n 's/.*refs: *//p' | tr -d ,)
	b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "./$1" 100000 2>&1 |
		sed -n 's/.*refs: *//p' | tr -d ,)
	[ -n "$a" ] && [ -n "$b" ] || { echo n/a; return; }
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f\n", (a - b) / 200000 }'
}
for f in $forms; do
	ir_per_iter "$f" >"ir.$f"
done

# keep_min FILE VALUE: FILE holds the smallest VALUE given so far
keep_min() {
	if [ ! -s "$1" ] || awk -v v="$2" -v b="$(cat "$1")" 'BEGIN { exit !(v < b) }'; then
		echo "$2" >"$1"
	fi
}
for _ in $(seq 15); do
	for f in $forms; do
		[ -x "$f" ] || continue
		v=$("./$f" 5000000 | awk '{ print $1 }')
		[ -n "$v" ] && keep_min "ns.$f" "$v"
	done
done
for f in $forms; do
	[ -s "ns.$f" ] || echo n/a >"ns.$f"
done

# ---------------------------------------------------------------------
# Traced: TOOL is bpftrace or dtrace
trace_once() {	# TOOL PROG: one run; keeps the best good one in best.TOOL.PROG
	rm -f cnt.out
	case $1 in
	bpftrace) timeout 60 bpftrace -q -o cnt.out \
		-e "usdt:./$2:bform:hit { @ = count(); }" \
		-c "./$2 $HITS" ;;
	dtrace) timeout 60 "$DTRACE" -q -o cnt.out \
		-n 'bform$target:::hit { @ = count(); }' \
		-c "./$2 $HITS" ;;
	esac >tgt.out 2>tool.err
	c=$(awk 'NF { v = $NF } END { print v + 0 }' cnt.out 2>/dev/null)
	read -r t tr <tgt.out || return
	[ "$tr" = 1 ] && echo yes >"tramp.$2"
	if [ "$c" -ne "$HITS" ]; then
		echo "($1 on $2: counted $c of $HITS; run not used)"
		return
	fi
	keep_min "best.$1.$2" "$t"
}
per_hit() {	# TOOL PROG
	if [ -s "best.$1.$2" ] && [ "$(cat "ns.$2")" != n/a ]; then
		awk -v t="$(cat "best.$1.$2")" -v u="$(cat "ns.$2")" \
			'BEGIN { printf "%.0f\n", t - u }'
	else
		echo n/a
	fi
}
tools=
if [ "$(id -u)" -eq 0 ]; then
	[ -e /sys/kernel/tracing/uprobe_events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	command -v bpftrace >/dev/null 2>&1 && tools=bpftrace
	tools="$tools dtrace"
fi
# Five rounds, each tracing every form once with each tool, in turns as
# above; the best good run of each.
for _ in 1 2 3 4 5; do
	for f in $forms; do
		[ $f != none ] && [ -x "$f" ] || continue
		for tool in $tools; do
			trace_once $tool "$f"
		done
	done
done
for f in $forms; do
	for tool in bpftrace dtrace; do
		per_hit $tool "$f" >"hit.$tool.$f"
	done
	if [ -s "tramp.$f" ]; then
		echo call >"up.$f"
	elif [ -s "best.bpftrace.$f" ] || [ -s "best.dtrace.$f" ]; then
		echo trap >"up.$f"
	else
		echo - >"up.$f"
	fi
done
[ -n "$tools" ] || echo "(traced costs: need root; n/a)"

# ---------------------------------------------------------------------
# Table
ratio() {	# A B: A / B, or - when either is missing
	case "$1$2" in
	*n/a*|*-*) echo - ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-";
		else printf "%.2f\n", a / b }' ;;
	esac
}
fig() { cat "$1.$2" 2>/dev/null || echo n/a; }
md=$tmp/forms.md
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
machine="$(nproc) CPUs, ${cpu:-unknown CPU}, Linux $(uname -r)"
echo "probe forms: bform:::hit(void *, int) in a loop; machine: $machine"
printf '%-40s %6s %5s %7s %5s %8s %5s %8s %5s %s\n' form Ir/it xstap \
	ns/it xstap bpf-ns/h xstap dtr-ns/h xstap uprobe
printf '| form | Ir/iter | ×stap | ns/iter | ×stap | bpftrace count(): ns/hit | ×stap | dtrace -n count(): ns/hit | ×stap | uprobe |\n' >"$md"
printf '|---|---|---|---|---|---|---|---|---|---|\n' >>"$md"
for f in $forms; do
	ir=$(fig ir "$f") ns=$(fig ns "$f")
	hb=$(fig hit.bpftrace "$f") hd=$(fig hit.dtrace "$f")
	rir=$(ratio "$ir" "$(fig ir stap)") rns=$(ratio "$ns" "$(fig ns stap)")
	rhb=$(ratio "$hb" "$(fig hit.bpftrace stap)")
	rhd=$(ratio "$hd" "$(fig hit.dtrace stap)")
	up=$(fig up "$f")
	printf '%-40s %6s %5s %7s %5s %8s %5s %8s %5s %s\n' "$(label "$f")" \
		"$ir" "$rir" "$ns" "$rns" "$hb" "$rhb" "$hd" "$rhd" "$up"
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
		"$(label "$f")" "$ir" "$rir" "$ns" "$rns" "$hb" "$rhb" \
		"$hd" "$rhd" "$up" >>"$md"
done

[ -n "$FORMS_MD" ] || exit 0

# The paragraph under the table: what each form executes, untraced and
# traced, with this run's figures put in (whatever they are).
interpret() {
	if [ "$(fig up rewritten)" = call ] || [ "$(fig up stub)" = call ]; then
		opt="yet on this kernel ($(uname -r)) the traced process had [uprobes-trampoline] mapped: a site was optimized, which forks break"
	elif [ "$(fig up rewritten)" = trap ] || [ "$(fig up stub)" = trap ]; then
		opt="and on this kernel ($(uname -r)) none was (no [uprobes-trampoline] was mapped)"
	else
		opt="which this run, tracing nothing, did not see"
	fi
	cat <<EOF
Untraced, a probe costs the instructions that put its arguments where
its note says they are, plus its NOPs: systemtap's one-byte \`nop\`
($(fig ir stap) instructions per iteration, against $(fig ir none) for the
loop alone), usdt-sdk's inline probe a 1-byte and a 10-byte NOP
($(fig ir inline)), a rewritten site the argument moves of the call it
replaced and a 4-byte and a 1-byte NOP ($(fig ir rewritten); both call forms also
make the compiler treat the probe as a call, which clobbers the
caller-saved registers: in this loop that costs nothing per iteration,
in a larger function it can cost spills); NOPs retire without
executing, so these measured $(fig ns stap), $(fig ns inline) and
$(fig ns rewritten) ns per iteration against $(fig ns none) without a probe.
A stub site (an object -G never saw, an LTO object, a build that never
runs -G) really calls the header's stub and runs its NOPs and
\`ret\`: $(fig ir stub) instructions, $(fig ns stub) ns per
iteration.  Traced, the kernel's uprobe costs orders of magnitude more
than any of that.  A uprobe on a 1-byte NOP (forms 3 and 4) traps
(int3) into the kernel and back on every hit: $(fig hit.bpftrace inline)
and $(fig hit.bpftrace stap) ns per hit with bpftrace's count() here.
Linux 6.18 and later optimize a uprobe on a single 5-byte NOP, after its
first hit, into a call to a trampoline page that enters the kernel
through the uprobe system call, but a child forked afterwards lacks the
page and dies at the site, so rewritten and stub sites put the probe on
a 4-byte NOP, which traps too, $opt; $(fig hit.bpftrace rewritten)
and $(fig hit.bpftrace stub) ns per hit ($(ratio "$(fig hit.bpftrace rewritten)" "$(fig hit.bpftrace stap)")
and $(ratio "$(fig hit.bpftrace stub)" "$(fig hit.bpftrace stap)") of systemtap's).  Inline probes use
the 1-byte NOP also because the optimized uprobe's call writes below the
stack pointer, where a leaf function may keep data (the red zone;
sdk/include/sys/sdt.h).  Our \`dtrace -n\` copies a
record of every hit to a perf ring buffer and counts in user space,
where bpftrace counts in the kernel: $(fig hit.dtrace rewritten),
$(fig hit.dtrace stub), $(fig hit.dtrace inline) and $(fig hit.dtrace stap)
ns per hit for forms 1, 2, 3 and 4.
EOF
}
{
	echo "## Probe forms"
	echo
	fmt -w 72 <<EOF
bench/forms.sh, $(date -u +%Y-%m-%d), on $machine.  The probe
bform:::hit(void *, int) fired once per iteration of a tight loop
(bench/forms.c) in each form a probe can take in a binary.  Ir/iter:
instructions per loop iteration, callgrind (exact; the loop alone is
form 5).  ns/iter: untraced, best of 15 runs of 5,000,000 iterations
taken in turns.  ns/hit: traced minus untraced ns/iteration, best of 5
runs of $HITS hits (in turns), each counted exactly by \`count()\`.
uprobe: "call" when the traced process had the kernel's
[uprobes-trampoline] mapped (the uprobe was optimized into a call),
"trap" when not.  ×stap: the ratio to form 4 measured in the same run.
EOF
	echo
	cat "$md"
	echo
	interpret | fmt -w 72
} >"$FORMS_MD"
