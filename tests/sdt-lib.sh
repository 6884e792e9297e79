# SPDX-License-Identifier: MIT
#
# Shared by the tests of <sys/sdt.h> (run-sdt-matrix.sh, run-sdt-dropin.sh):
# source it after tests/lib.sh.  It reads stapsdt notes as readelf shows
# them and checks that every argument is one the tracers read.

# notes BIN: "provider name location base semaphore args", sorted
notes() {
	readelf -n "$1" | awk '
		/^ *Provider: / { p = $2 }
		/^ *Name: / { n = $2 }
		/Location: / {
			for (i = 1; i <= NF; i++) {
				if ($i == "Location:") l = $(i + 1)
				if ($i == "Base:") b = $(i + 1)
				if ($i == "Semaphore:") s = $(i + 1)
			}
			sub(/,$/, "", l); sub(/,$/, "", b)
		}
		/^ *Arguments:/ {
			sub(/^ *Arguments: ?/, "")
			print p, n, l, b, s, $0
		}' | LC_ALL=C sort
}

# check_args_awk: on "provider name args...", print the prefixes, or a
# line "BAD ..." for each operand a tool could misread: a register of
# another size than the argument's (one-byte arguments by the 64-bit
# name), memory at anything but a number and a register (never a
# symbol: sym(%rip) is read by neither bpftrace nor gdb), a size other
# than 1, 2, 4 or 8, a suffix
check_args_awk='
function regok(r, size,   n) {
	n = "(r(ax|bx|cx|dx|si|di|bp|sp)|r(8|9|1[0-5]))"
	if (size == 8) return r ~ ("^%" n "$")
	if (size == 1) return r ~ ("^%" n "$")	# 1@: the 64-bit name
	if (size == 4) return r ~ /^%(e(ax|bx|cx|dx|si|di|bp|sp)|r(8|9|1[0-5])d)$/
	if (size == 2) return r ~ /^%((ax|bx|cx|dx|si|di|bp|sp)|r(8|9|1[0-5])w)$/
	return 0
}
{
	out = $1 " " $2
	for (i = 3; i <= NF; i++) {
		at = index($i, "@")
		pre = substr($i, 1, at)
		op = substr($i, at + 1)
		size = pre; sub(/^-/, "", size); sub(/@$/, "", size)
		if (op ~ /^%/) ok = regok(op, size)
		else if (op ~ /^\$-?[0-9]+$/) ok = 1
		else ok = op ~ /^-?[0-9]*\(%r([a-z][a-z]|[0-9]+)\)$/
		# a size tools know, and no suffix such as the f of 8f@
		if (pre !~ /^-?(1|2|4|8)@$/) ok = 0
		if (!ok) print "BAD " $1 ":" $2 " argument " (i - 2) " " $i
		out = out " " pre
	}
	print out
}'

# cc_kind CC: gcc, clang, or other
cc_kind() {
	ck_defs=$(echo | $1 -dM -E -x c - 2>/dev/null) || {
		echo other
		return
	}
	case $ck_defs in
	*__clang__*) echo clang ;;
	*__GNUC__*) echo gcc ;;
	*) echo other ;;
	esac
}

# bt_args SCRIPT BIN CMD EXPECTED DIR...: bpftrace reads the arguments of
# each build: in each DIR a bpftrace runs SCRIPT (its probes
# "usdt:./BIN:...", none behind a semaphore: it is attached by path, no
# -c), all of them at once; once each is attached (its BEGIN has
# printed), each DIR's "./BIN CMD" runs in turn, its exit status
# checked; once each bpftrace has printed as many lines as EXPECTED has,
# all are stopped with SIGINT at once, each must exit 0, and its lines
# (DIR/bt.out, its messages in DIR/bt.err), sorted in DIR/bt.txt, must
# be EXPECTED.  At once, because a bpftrace's end detaches its uprobes
# one after the other, each waiting for an RCU grace period (lib.sh,
# stop_pid): run one build after the other, those waits were most of
# these tests' time; bpftraces that end together share them.  Stopped
# by bt_stop.
bt_args() {
	ba_s=$1 ba_bin=$2 ba_cmd=$3 ba_exp=$4
	shift 4
	{
		printf '%s\n' 'BEGIN { printf("READY\n"); }'
		cat "$ba_s"
	} >bt-ready.bt
	for ba_v in "$@"; do
		(cd "$ba_v" && exec bpftrace -B none ../bt-ready.bt) \
			>"$ba_v/bt.out" 2>"$ba_v/bt.err" </dev/null &
		echo $! >"$ba_v/bt.pid"
		bg_pids="$bg_pids $!"
	done
	# ba_up DIR: DIR's bpftrace has run its BEGIN, or is gone
	ba_up() {
		grep -q '^READY$' "$1/bt.out" ||
			! kill -0 "$(cat "$1/bt.pid")" 2>/dev/null
	}
	# ba_lines DIR: DIR's bpftrace has printed as many lines as expected
	ba_lines() {
		[ "$(grep -c -v -e '^Attaching ' -e '^$' -e '^READY$' \
			"$1/bt.out")" -ge "$ba_n" ]
	}
	ba_n=$(wc -l <"$ba_exp")
	for ba_v in "$@"; do
		wait_until 600 ba_up "$ba_v"
	done
	for ba_v in "$@"; do
		grep -q '^READY$' "$ba_v/bt.out" || continue
		# shellcheck disable=SC2086 # CMD is a word list
		(cd "$ba_v" && timeout 120 "./$ba_bin" $ba_cmd) \
			>"$ba_v/bt-run.out" 2>&1
		expect_eq "$ba_v: ./$ba_bin $ba_cmd under bpftrace: exit status" 0 $?
	done
	for ba_v in "$@"; do
		! grep -q '^READY$' "$ba_v/bt.out" ||
			wait_until 300 ba_lines "$ba_v"
	done
	ba_pids=
	for ba_v in "$@"; do
		ba_pids="$ba_pids $(cat "$ba_v/bt.pid")"
	done
	bt_stop "$ba_pids"
	for ba_v in "$@"; do
		bt_collect "$(cat "$ba_v/bt.pid")"
		expect_eq "$ba_v: bpftrace's exit status" 0 "$stop_status"
		grep -v -e '^Attaching ' -e '^$' -e '^READY$' "$ba_v/bt.out" |
			LC_ALL=C sort >"$ba_v/bt.txt"
		if ! cmp -s "$ba_exp" "$ba_v/bt.txt"; then
			sed 's/^/    | /' "$ba_v/bt.err" >&2
		fi
		expect_file_eq "$ba_v: bpftrace, arguments 0-5" "$ba_exp" \
			"$ba_v/bt.txt"
	done
}

