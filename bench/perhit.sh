#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/perhit.sh - what the BPF programs cost per hit for the clauses
# issue 26 names, ours against bpftrace's in the same run, and the
# verifier's instructions per program.  Run by bench/run.sh (`make
# bench`, or BENCH_ONLY=perhit); alone:
#
#	DTRACE=dtrace-G/dtrace DTRACE_DRTI=drti/drti.o top_srcdir=. \
#		sh bench/perhit.sh
#
# The target is bench/pairloop.c: N iterations, each firing
# bpair:::enter(i, name) then bpair:::leave(i).  Each tool runs it under
# bench/bpfstats (BPF_ENABLE_STATS) while `bpfstats --list` is polled;
# the programs counted are those the tool's process holds (its
# fdinfo's prog_id: other runs on the machine load programs too) that
# ran at least N/2 times, each with the figures of the poll that saw it
# last (a program may be gone from the last poll).  The figure
# is their run_time_ns summed over N: ns per iteration, which is one
# hit, or for self-> an entry and a return together.  It includes the
# statistics' own clock reads (~55 ns a run here).  Rows:
#  - count:	enter { @ = count(); }
#  - strpred:	enter /copyinstr(arg1) == "beta"/ { @ = count(); }
#		(bpftrace: str(arg1))
#  - printf:	enter { printf("%s\n", copyinstr(arg1)); }, output to a
#		file (a record a hit; what user space does after is not
#		counted, for either tool)
#  - pfname:	enter { printf("%s %s\n", execname, copyinstr(arg1)); }
#		(bpftrace: comm, str(arg1)), output to a file
#  - predpf:	enter /arg0 == 5/ { printf("%d\n", arg0); }, output to
#		a file (the record only where the predicate held: the
#		program tests it, a record gate, cgen.c)
#  - self:	enter { self->t = timestamp; }
#		leave /self->t/ { @ = quantize(timestamp - self->t);
#		self->t = 0; }  (bpftrace: @t[tid] = nsecs, hist(),
#		delete())
#  - ustack:	enter { @[ustack()] = count(); } (bpftrace: @[ustack])
#  - selfstr:	enter { self->s = copyinstr(arg1); }
#		leave { printf("%s\n", self->s); }, output to a file
#		(bpftrace: @s[tid] = str(arg1), printf() of @s[tid])
#  - keyed:	enter { @[arg0 & 15] = count(); } (16 keys: arg0 is the
#		iteration, and N keys would fill either tool's map)
#  - keyexit:	the same and tick-1s { exit(0); } (bpftrace:
#		interval:s:1 { exit(); }), the kernel's clause cut at the
#		horizon (kplan.c): the run ends at the tick, before N, so
#		this row is ns per run of the programs that ran 1000 times
#		or more (the tick's own do not)
#  - keyhexit:	keyed and enter /arg0 == N - 1/ { exit(0); }, the last
#		hit exiting (bpftrace: if (arg0 == N - 1) { exit(); } in
#		keyed's probe), the run's activity tested at each hit and
#		the exit's predicate too (kplan_exit.c's "exit() at a traced
#		probe"); ns per run, as keyexit's
#  - selfcmp:	enter { self->s = copyinstr(arg1); }
#		leave /self->s == "beta"/ { @ = count(); }
#		(bpftrace: @s[tid] = str(arg1), if (@s[tid] == "beta"))
#  - tickpa:	enter { @ = count(); } tick-1s { printa(@); clear(@); }
#		(bpftrace: interval:s:1 { print(@); clear(@); }), the
#		per-interval report: the kernel's clause cut at the horizon
#		and folded in at each firing (kplan_exit.c's "printa() at
#		tick-N"); before, a record a hit
#  - tickself:	self's pair and tick-1s { printa(@); clear(@); }
#		(bpftrace: interval:s:1 { print(@); clear(@); }), the
#		database engineer's latency report: the kernel keeps self->
#		and keys its counts by the hit's interval (kplan_exit.c's
#		"Intervals"); before, a record a hit, run in user space
#  - gsum:	enter { n += arg0; } tick-1s { printf("%d\n", n);
#		n = 0; } (bpftrace: @n = sum(arg0), interval:s:1 {
#		print(@n); clear(@n); }): tcpstat.d's global counter, a
#		sum() in a kflat slot folded into n at each firing
#		(kplan_gcnt.c); before, a record a hit
#  - selfkey:	enter { self->s = copyinstr(arg1); }
#		leave { @[self->s] = count(); }  (bpftrace: @s[tid] =
#		str(arg1), @[@s[tid]] = count())
#  - selfpair:	enter { self->s = copyinstr(arg1); self->t = self->s; }
#		leave { @[self->s, self->t] = count(); } (bpftrace: @s[tid],
#		@t[tid] = str(arg1), @[@s[tid], @t[tid]] = count()): two
#		string variables keyed side by side at strsize 256
#		(kplan.c's vkey_pair()), the words' 32 bytes each in
#		kaggs_x, a 104-byte key (cgen_agg.c's "Short pairs"; the
#		rooms whole, 552 bytes, before 2026-12-06); before
#		2026-12-03, a record a hit
#  - selftri:	enter { self->s = copyinstr(arg1); self->t = self->s;
#		self->u = self->s; } leave { @[self->s, self->t,
#		self->u] = count(); } (bpftrace: three tid maps of
#		str(arg1), @[@s[tid], @t[tid], @u[tid]]): three string
#		variables keyed side by side (kplan.c's vkey_third()),
#		their rooms whole in kaggs_v, an 808-byte key at strsize
#		256; before 2026-12-07, a record a hit
#  - execkey:	enter { @[execname] = count(); } (bpftrace: @[comm]),
#		the comm read into kaggs_v's key at the hit (kplan_str.c's
#		"execname and literals"); before, a record a hit
#  - execpred:	enter /execname == "pair"/ { @ = count(); } (bpftrace:
#		/comm == "pair"/)
#  - argself:	enter /self->t/ { @[copyinstr(arg1)] =
#		quantize(timestamp - self->t); } enter { self->t =
#		timestamp; } (bpftrace: @t[tid] = nsecs, @[str(arg1)] =
#		hist(nsecs - @t[tid])): an argument's string keyed beside
#		self-> variables, a kaggs_v room of strsize's 256 bytes
#		with its fault site (kplan.c's AKEY), looked up in
#		kaggs_w by its first 32 where the string ends within them
#		(pair's names do: cgen_agg.c), where bpftrace keys 64
#		bytes; before, a record a hit
#  - joined:	enter { this->n = strjoin(strjoin(copyinstr(arg1), "::"),
#		copyinstr(arg1)); printf("%s\n", this->n); } (bpftrace:
#		printf("%s::%s\n", str(arg1), str(arg1))), output to a
#		file: rb_flowinfo.d's printed this->name, joined by the
#		program at the store (kplan_str.c's "Joins": each copy
#		made, then appended) and its bytes put into the record;
#		before, a record a hit
#  - garr:	enter { start[arg0] = timestamp; } leave /start[arg0]/ {
#		@ = quantize(timestamp - start[arg0]); start[arg0] = 0; }
#		(bpftrace: @start[arg0] = nsecs, hist(), delete()): the
#		book's iolatency.d idiom, a global array in cgtlsa under
#		an id no thread has (kplan_garr.c); before, a record a hit
#  - longkey:	enter { @[copyinstr(arg1)] = count(); } on the loop's
#		long words (./pair N long: two SQL statements of 69 and
#		67 bytes, "beta", "delta"; bpftrace: @[str(arg1)] at
#		BPFTRACE_STRLEN=200, its longest), the statements keyed in
#		kaggs_l (cgen_agg.c's "Long string keys"); before, their
#		hits a record each, which dtrace ran
#  - nullkey:	enter { this->s = arg1 ? copyinstr(arg1) : "<null>";
#		@[this->s] = count(); } on ./pair N null, whose fourth
#		word is NULL (bpftrace: @[arg1 ? str(arg1) : "<null>"]):
#		a store whose copy is made only where the ?: takes it
#		(kplan_stmt.c's tree_store()); before, the clause user
#		space's, a record a hit
# $ROUNDS rounds per row, each running both tools on targets of their
# own, bpftrace first in odd rounds and ours first in even ones (the
# tool run second paid 10-20% more here: the strpred row read 0.86-1.38
# with ours always second); each tool's column is its median over the
# rounds, and the ratio the median of the rounds' ratios.  Needs root
# and bpftrace; nothing passes or fails on speed.  ROWS="self ..." runs only those rows.  With
# PERHIT_MD set, the table is written there as a markdown section.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${PERHIT_MD:=}"
: "${ROUNDS:=3}"
: "${N:=1000000}"
export LC_ALL=C

tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-perhit.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
abs() { case $1 in ''|/*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
top_srcdir=$(abs "$top_srcdir") PERHIT_MD=$(abs "$PERHIT_MD")
case $DTRACE in */*) DTRACE=$(abs "$DTRACE") ;; esac
[ -n "${DTRACE_DRTI:-}" ] && DTRACE_DRTI=$(abs "$DTRACE_DRTI") &&
	export DTRACE_DRTI
here=$top_srcdir/bench
if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1; then
	echo "(per hit: needs root and bpftrace; skipped)"
	exit 0
fi
cd "$tmp" || exit 1
"$DTRACE" -h -s "$here/bpair.d" -o bpair.h &&
	$CC -O2 -I. -c "$here/pairloop.c" -o pair.o &&
	"$DTRACE" -G -s "$here/bpair.d" -o pair-p.o pair.o &&
	$CC pair.o pair-p.o -o pair &&
	$CC -O2 "$here/bpfstats.c" -o bpfstats || exit 1

# the scripts: ours (D) and bpftrace's, per row (dash's echo would turn
# the \n of printf's format into a newline)
d_of() {
	e='bpair$target:::enter' l='bpair$target:::leave'
	case $1 in
	count) echo "$e { @ = count(); }" ;;
	strpred) echo "$e /copyinstr(arg1) == \"beta\"/ { @ = count(); }" ;;
	printf) printf '%s\n' "$e { printf(\"%s\\n\", copyinstr(arg1)); }" ;;
	pfname) printf '%s\n' "$e { printf(\"%s %s\\n\", execname, copyinstr(arg1)); }" ;;
	predpf) printf '%s\n' "$e /arg0 == 5/ { printf(\"%d\\n\", arg0); }" ;;
	self) echo "$e { self->t = timestamp; } $l /self->t/ { @ = quantize(timestamp - self->t); self->t = 0; }" ;;
	ustack) echo "$e { @[ustack()] = count(); }" ;;
	selfstr) printf '%s\n' "$e { self->s = copyinstr(arg1); } $l { printf(\"%s\\n\", self->s); }" ;;
	keyed) echo "$e { @[arg0 & 15] = count(); }" ;;
	keyexit) echo "$e { @[arg0 & 15] = count(); } tick-1s { exit(0); }" ;;
	keyhexit) echo "$e { @[arg0 & 15] = count(); } $e /arg0 == $((N - 1))/ { exit(0); }" ;;
	selfcmp) echo "$e { self->s = copyinstr(arg1); } $l /self->s == \"beta\"/ { @ = count(); }" ;;
	tickpa) echo "$e { @ = count(); } tick-1s { printa(@); clear(@); }" ;;
	tickself) echo "$e { self->t = timestamp; } $l /self->t/ { @ = quantize(timestamp - self->t); self->t = 0; } tick-1s { printa(@); clear(@); }" ;;
	gsum) printf '%s\n' "$e { n += arg0; } tick-1s { printf(\"%d\\n\", n); n = 0; }" ;;
	selfkey) echo "$e { self->s = copyinstr(arg1); } $l { @[self->s] = count(); }" ;;
	selfpair) echo "$e { self->s = copyinstr(arg1); self->t = self->s; } $l { @[self->s, self->t] = count(); }" ;;
	selftri) echo "$e { self->s = copyinstr(arg1); self->t = self->s; self->u = self->s; } $l { @[self->s, self->t, self->u] = count(); }" ;;
	execkey) echo "$e { @[execname] = count(); }" ;;
	execpred) echo "$e /execname == \"pair\"/ { @ = count(); }" ;;
	argself) echo "$e /self->t/ { @[copyinstr(arg1)] = quantize(timestamp - self->t); } $e { self->t = timestamp; }" ;;
	joined) printf '%s\n' "$e { this->n = strjoin(strjoin(copyinstr(arg1), \"::\"), copyinstr(arg1)); printf(\"%s\\n\", this->n); }" ;;
	garr) echo "$e { start[arg0] = timestamp; } $l /start[arg0]/ { @ = quantize(timestamp - start[arg0]); start[arg0] = 0; }" ;;
	longkey) echo "$e { @[copyinstr(arg1)] = count(); }" ;;
	nullkey) echo "$e { this->s = arg1 ? copyinstr(arg1) : \"<null>\"; @[this->s] = count(); }" ;;
	esac
}
bt_of() {
	e='usdt:./pair:bpair:enter' l='usdt:./pair:bpair:leave'
	case $1 in
	count) echo "$e { @ = count(); }" ;;
	strpred) echo "$e /str(arg1) == \"beta\"/ { @ = count(); }" ;;
	printf) printf '%s\n' "$e { printf(\"%s\\n\", str(arg1)); }" ;;
	pfname) printf '%s\n' "$e { printf(\"%s %s\\n\", comm, str(arg1)); }" ;;
	predpf) printf '%s\n' "$e /arg0 == 5/ { printf(\"%d\\n\", arg0); }" ;;
	self) echo "$e { @t[tid] = nsecs; } $l /@t[tid]/ { @ = hist(nsecs - @t[tid]); delete(@t[tid]); }" ;;
	ustack) echo "$e { @[ustack] = count(); }" ;;
	selfstr) printf '%s\n' "$e { @s[tid] = str(arg1); } $l { printf(\"%s\\n\", @s[tid]); }" ;;
	keyed) echo "$e { @[arg0 & 15] = count(); }" ;;
	keyexit) echo "$e { @[arg0 & 15] = count(); } interval:s:1 { exit(); }" ;;
	keyhexit) echo "$e { @[arg0 & 15] = count(); if (arg0 == $((N - 1))) { exit(); } }" ;;
	selfcmp) echo "$e { @s[tid] = str(arg1); } $l { if (@s[tid] == \"beta\") { @ = count(); } }" ;;
	tickpa) echo "$e { @ = count(); } interval:s:1 { print(@); clear(@); }" ;;
	tickself) echo "$e { @t[tid] = nsecs; } $l /@t[tid]/ { @ = hist(nsecs - @t[tid]); delete(@t[tid]); } interval:s:1 { print(@); clear(@); }" ;;
	gsum) echo "$e { @n = sum(arg0); } interval:s:1 { print(@n); clear(@n); }" ;;
	selfkey) echo "$e { @s[tid] = str(arg1); } $l { @[@s[tid]] = count(); }" ;;
	selfpair) echo "$e { @s[tid] = str(arg1); @t[tid] = str(arg1); } $l { @[@s[tid], @t[tid]] = count(); }" ;;
	selftri) echo "$e { @s[tid] = str(arg1); @t[tid] = str(arg1); @u[tid] = str(arg1); } $l { @[@s[tid], @t[tid], @u[tid]] = count(); }" ;;
	execkey) echo "$e { @[comm] = count(); }" ;;
	execpred) echo "$e /comm == \"pair\"/ { @ = count(); }" ;;
	argself) echo "$e /@t[tid]/ { @[str(arg1)] = hist(nsecs - @t[tid]); } $e { @t[tid] = nsecs; }" ;;
	joined) printf '%s\n' "$e { printf(\"%s::%s\\n\", str(arg1), str(arg1)); }" ;;
	garr) echo "$e { @start[arg0] = nsecs; } $l /@start[arg0]/ { @ = hist(nsecs - @start[arg0]); delete(@start[arg0]); }" ;;
	longkey) echo "$e { @[str(arg1)] = count(); }" ;;
	nullkey) echo "$e { @[arg1 ? str(arg1) : \"<null>\"] = count(); }" ;;
	esac
}

# one TOOL ROW: "NS INSNS" -- ns per iteration and the verified
# instructions of each program counted, joined by +
one() {
	: >stats
	: >mine
	# longkey: the long words, and bpftrace's longest strings (only
	# there: two of 200 bytes pass its stack in selfpair's program)
	pw= bl=64
	[ "$2" != longkey ] || pw=' long' bl=200
	[ "$2" != nullkey ] || pw=' null'
	if [ "$1" = bpftrace ]; then
		BPFTRACE_STRLEN=$bl ./bpfstats bpftrace -q -o out \
			-e "$(bt_of "$2")" -c "./pair $N$pw" >/dev/null 2>&1 &
	else
		DTRACE_BACKEND=bpf ./bpfstats "$DTRACE" -q -o out \
			-n "$(d_of "$2")" -c "./pair $N$pw" >/dev/null 2>&1 &
	fi
	bp=$!
	min=$((N / 2)) per=$N # keyexit: per run, of those run 1000 times
	case $2 in *exit) min=1000 per=0 ;; esac
	# the tool's programs: those its process holds (fdinfo's prog_id)
	while kill -0 "$bp" 2>/dev/null; do
		for c in $(cat "/proc/$bp/task/$bp/children" 2>/dev/null); do
			grep -h '^prog_id:' /proc/"$c"/fdinfo/* 2>/dev/null |
				awk '{ print $2 }' >>mine
		done
		./bpfstats --list | awk -v min=$min '
			NR == FNR { mine[$1] = 1; next }
			($1 in mine) && $5 >= min { print $1, $3, $5, $6 }' \
			mine - >>stats
		sleep 0.1
	done
	wait "$bp"
	rm -f out
	# each program's last figures (the most runs): a program may be
	# gone from the last poll while another of the run is still there
	awk -v n="$per" '$3 >= cnt[$1] { cnt[$1] = $3; ns[$1] = $4; vi[$1] = $2 }
		END {
			for (id in ns) { t += ns[id]; r += cnt[id]; v = v (v == "" ? "" : "+") vi[id]; k++ }
			if (k) printf "%.1f %s", t / (n ? n : r), v; else printf "- -"
		}' stats
}

# FMT NUMBER...: the numbers' median, by printf's FMT (of an even
# count, the middle two's mean); - when none
median() {
	fmt=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v fmt="$fmt" 'NF { v[++n] = $1 }
		END {
			if (!n) { printf "-"; exit }
			printf fmt, n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}'
}

rows=${ROWS:-count strpred printf pfname predpf self ustack selfstr keyed keyexit keyhexit selfcmp tickpa tickself gsum selfkey selfpair selftri execkey execpred argself joined garr longkey nullkey}
printf '%-8s %10s %10s %7s  %s\n' row bpftrace dtrace ratio \
	'verified insns (bpftrace; dtrace)'
: >table
for row in $rows; do
	# per round, both tools, the first of them alternating (odd
	# rounds bpftrace, even ours: whichever runs second ran slower
	# by 10-20% here, 2026-11-30); the ratio of each round where both
	# ran, and the medians
	nb= no= nr= vb= vo= r=0
	for _ in $(seq "$ROUNDS"); do
		r=$((r + 1)) b=- o=-
		for tool in $(if [ $((r % 2)) = 1 ]; then echo bpftrace ours
			else echo ours bpftrace; fi); do
			set -- $(one "$tool" "$row")
			case $1 in -) continue ;; esac
			if [ "$tool" = bpftrace ]; then
				b=$1 vb=$2 nb="$nb $1"
			else
				o=$1 vo=$2 no="$no $1"
			fi
		done
		[ "$b" != - ] && [ "$o" != - ] &&
			nr="$nr $(awk -v b="$b" -v o="$o" 'BEGIN {
				if (b > 0) printf "%.4f", o / b; else printf "-" }')"
	done
	bb=$(median %.1f $nb) bo=$(median %.1f $no)
	ratio=$(median %.2f $(printf '%s\n' $nr | grep -v '^-$'))
	printf '%-8s %10s %10s %7s  %s; %s\n' "$row" "$bb" "$bo" \
		"$ratio" "${vb:--}" "${vo:--}"
	printf '| %s | %s | %s | %s | %s | %s |\n' "$row" "$bb" \
		"$bo" "$ratio" "${vb:--}" "${vo:--}" >>table
done

if [ -n "$PERHIT_MD" ]; then
	{
		echo "## Per hit, in the BPF program (bench/perhit.sh)"
		echo
		echo "ns of BPF program run time per iteration of bench/pairloop.c"
		echo "(one hit; for self->, an entry and a return), $N iterations,"
		echo "median of $ROUNDS rounds per tool (the tools' order alternating"
		echo "by round; the ratio the median of the rounds' ratios), from"
		echo "BPF_ENABLE_STATS's run_time_ns (includes its ~55 ns clock reads"
		echo "per run); and the verifier's instructions per program"
		echo "(verified_insns), each program counted joined by +."
		echo
		echo "| row | bpftrace ns | dtrace ns | ratio | bpftrace verified | dtrace verified |"
		echo "|---|---|---|---|---|---|"
		cat table
	} >"$PERHIT_MD"
fi
