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
