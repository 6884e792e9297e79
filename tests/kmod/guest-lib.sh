# SPDX-License-Identifier: MIT
#
# guest-lib.sh - what the scripts that boot a Debian kernel in qemu with
# an initramfs of tests share (tests/kmod/run.sh, make check-kmod, and
# tests/arm64/guest.sh, make check-arm64-guest): fetching packages, a
# static busybox, and the verdict read from the guest's serial log,
# which tests/kmod/init writes.  Sourced; the caller defines say, skip
# and die, and sets work (its work directory), root (yes when run as
# root) and, before guest_verdict, serial, qemu_rc and guest_timeout.

# apt_install PKG...: as root, install with apt-get (updating the package
# lists once if the first try fails); 0 if installed
apt_updated=no
apt_install() {
	[ "$root" = yes ] && command -v apt-get >/dev/null 2>&1 || return 1
	say "installing $*"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q --no-install-recommends "$@" \
		</dev/null >"$work.apt.log" 2>&1; then
		[ "$apt_updated" = yes ] && return 1
		apt_updated=yes
		apt-get update -q </dev/null >>"$work.apt.log" 2>&1
		apt-get install -y -q --no-install-recommends "$@" \
			</dev/null >>"$work.apt.log" 2>&1 || return 1
	fi
	return 0
}

# apt_fetch PKG[=VER] DIR: `apt-get download` into DIR; 0 if a .deb came
apt_fetch() {
	command -v apt-get >/dev/null 2>&1 || return 1
	(cd "$2" && apt-get download "$1" </dev/null) >>"$work.apt.log" 2>&1 &&
		return 0
	[ "$root" = yes ] && [ "$apt_updated" = no ] || return 1
	apt_updated=yes
	apt-get update -q </dev/null >>"$work.apt.log" 2>&1
	(cd "$2" && apt-get download "$1" </dev/null) >>"$work.apt.log" 2>&1
}

# is_static FILE: an executable that needs no dynamic loader
is_static() {
	[ -x "$1" ] && ! ldd "$1" >/dev/null 2>&1
}

# guest_verdict TIMES...: the verdict, from the serial log alone: the
# checks' lines, their counts, TIMES (what took how long), and on any
# failure the reasons, the log's last lines and die
guest_verdict() {
	tr -d '\r' <"$serial" >"$work/console.txt" 2>/dev/null
	sed -n 's/^KMOD-TEST //p' "$work/console.txt"
	n_ok=$(grep -c '^KMOD-TEST ok ' "$work/console.txt")
	n_skip=$(grep -c '^KMOD-TEST ok .* # SKIP ' "$work/console.txt")
	n_fail=$(grep -c '^KMOD-TEST not ok ' "$work/console.txt")
	reasons=
	[ $qemu_rc -eq 124 ] || [ $qemu_rc -eq 137 ] &&
		reasons="$reasons; the guest ran out of time ($guest_timeout s)"
	[ $qemu_rc -ne 0 ] && [ $qemu_rc -ne 124 ] && [ $qemu_rc -ne 137 ] &&
		reasons="$reasons; qemu exited with $qemu_rc"
	grep -q '^KMOD-VERDICT pass$' "$work/console.txt" ||
		reasons="$reasons; no 'KMOD-VERDICT pass' in the serial log"
	[ "$n_fail" -eq 0 ] || reasons="$reasons; $n_fail checks failed"
	grep -v '^KMOD-TEST ' "$work/console.txt" |
		grep -E 'Oops|BUG:|WARNING:|Call Trace|general protection|Kernel panic' \
			>"$work/bad.txt" &&
		reasons="$reasons; the kernel log shows a bug"

	say "$((n_ok - n_skip)) ok, $n_fail not ok, $n_skip skipped"
	say "times: $*"
	if [ -n "$reasons" ]; then
		if [ -s "$work/bad.txt" ]; then
			echo "--- kernel log lines that show a bug:"
			head -n 40 "$work/bad.txt"
		fi
		echo "--- last lines of the serial log ($serial):"
		grep -v '^KMOD-DMESG ' "$work/console.txt" | tail -n 30
		[ -s "$work/qemu.log" ] && sed 's/^/qemu: /' "$work/qemu.log" | tail -n 10
		# last, so that a log's tail names them: each failed check
		# and the lines the guest printed after it (its diagnostics)
		if [ "$n_fail" -gt 0 ]; then
			echo "--- the checks that failed, each with the lines after it:"
			grep -v '^KMOD-DMESG ' "$work/console.txt" |
				grep -A 15 '^KMOD-TEST not ok ' | head -n 120
		fi
		die "${reasons#; }"
	fi
}
