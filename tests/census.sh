#!/bin/sh
# SPDX-License-Identifier: MIT
#
# census.sh - what keeps clauses in user space, counted (a maintainer
# tool, not part of make check: doc/DESIGN.md §8's "What keeps clauses
# in user space (census, 2026-12-01)" and its "Census again").
#
#	tests/census.sh DTRACE TRIGGERS OUTDIR [SCRIPTS]
#
# DTRACE: the dtrace binary to measure (copy it first: a build under
# you changes the figures); TRIGGERS: a built tests/d/triggers folder
# (make check builds it); OUTDIR: made empty, then holds one folder per
# program (P.d, its command, its -v output) and the summary.  Run as
# root from the tree's top, alone (one run at a time: 861 runs, about
# 4 minutes).  SCRIPTS: a folder of published D scripts (not in this
# tree: other projects' text, doc/SCRIPTS.md), each *.d under it
# censused instead of the tree's programs, as doc/SCRIPTS.md runs them
# (-C where its #! line asks, $1 "1" and $2 "main", $$1 "bash").
#
# The mechanism is the census's *Method*:
#  1. The programs.  Every tests/d script (tst.*.d, err.*.d) run as
#     run-d.sh runs it: from its folder, with its .flags, its .args and
#     its .trigger under -c (a trigger's first word names a program of
#     TRIGGERS), /bin/true where it has none.  And every D program
#     embedded in tests/run-*.sh, bench/*.sh, README.md and
#     provider-examples/**/*.md: quoted here-documents (<<'EOF',
#     <<"EOF", <<\EOF) and single-quoted strings that hold a probe
#     description followed by a clause ("a:b:c:d {" or "... /pred/"),
#     distinct texts once each, run with -c /bin/true (the decision is
#     made once, at the run's first program, before any probe is known).
#     The strings are those sh would see (sq_strings(): not within a
#     comment, a double-quoted string or a here-document's body; in a
#     .md file, within its fenced code blocks only): until 2026-12-03
#     any two apostrophes paired, so one in a comment ("kplan_str.c's")
#     hid the programs after it and made strings of shell text.
#  2. Each run: dtrace -v -Z [-w] [-C] FLAGS -s P.d -n CENSUS -c CMD,
#     where CENSUS is 'syscall::getppid:entry /0/ { @census__ =
#     count(); }' (a kernel probe's program, so the decision is made at
#     start; it is counted as a clause like any other), -w where P.d
#     names a destructive action, -C where it has '#' lines.
#  3. The count, from the program's text and -v's lines
#     (bpf_agg_cgen.c, bpf_agg_read.c).  Its traced clauses are counted
#     from the text: each clause at depth 0 with a description that is
#     not BEGIN, END, ERROR, dtrace::: or tick-N, plus the census's own
#     (-v's "N clauses aggregated in the kernel" counts only clauses
#     whose probes matched, and with -c /bin/true most match nothing).
#     In user space: each clause -v names, "clause N (...) runs in user
#     space" or "clause N speculates in user space" (a "clause" that
#     is a shell word the extraction let in, no ':' in its name and "no
#     statement", is skipped); every traced clause where -v says
#     "every clause runs in user space" or that only the generic
#     program writes a copyout().  Speculating with values in the
#     kernel: "N clauses with speculations printing values computed in
#     the kernel".  In the kernel: the rest.  A program is decided when
#     -v says any of these; the rest did not compile (on purpose,
#     fragments, bpftrace's) or loaded no program.
#  4. The reason: the text after "line N: " (or after the clause's
#     name); a tie to another clause's variable ("self->s is also read
#     by clause 3") is followed to that clause's reason, to the end (a
#     tie to a clause -v does not name, or a cycle of ties, in a
#     program with speculations is a speculation's); the row is the
#     first of ROWS (below) whose words the reason has: a heuristic,
#     so OUTDIR/clauses shows each clause's row beside its reason.
#
# Output: OUTDIR/summary (totals, by source), OUTDIR/reasons
# (clauses and programs a row), OUTDIR/clauses (source: [row] reason,
# one line a user-space clause).

set -u
[ $# -eq 3 ] || [ $# -eq 4 ] || {
	echo "usage: tests/census.sh DTRACE TRIGGERS OUTDIR [SCRIPTS]" >&2
	exit 2
}
scripts=${4:+$(readlink -f "$4")}
[ -z "${4:-}" ] || [ -d "$scripts" ] || {
	echo "census.sh: $4: not a folder" >&2
	exit 2
}
dtrace=$(readlink -f "$1")
trig=$(readlink -f "$2")
out=$3
top=$(pwd)
[ -x "$dtrace" ] || { echo "census.sh: $1: not executable" >&2; exit 2; }
[ -f "$top/tests/run-d.sh" ] || {
	echo "census.sh: run me from the tree's top" >&2
	exit 2
}
rm -rf "$out"
mkdir -p "$out"
out=$(readlink -f "$out")
# no helper: a trigger's pid probes need no registry (run-d.sh's way)
DTRACE_STATEDIR=$out/nostate
export DTRACE_STATEDIR
census='syscall::getppid:entry /0/ { @census__ = count(); }'

# the published scripts, one folder each: P.d, src (scripts/PATH), and
# the flags and operands doc/SCRIPTS.md gives it
if [ -n "$scripts" ]; then
	k=0
	find "$scripts" -name '*.d' -type f | LC_ALL=C sort |
		while IFS= read -r d; do
			k=$((k + 1))
			f=$(printf '%s/s%04d' "$out" "$k")
			mkdir -p "$f"
			cp "$d" "$f/P.d"
			echo "scripts/${d#"$scripts"/}" >"$f/src"
			: >"$f/flags"
			head -n 1 "$d" | grep -q '^#!.*[[:space:]]-[a-zA-Z]*C' &&
				echo -C >"$f/flags"
			if grep -q '\$\$1' "$d"; then
				echo bash >"$f/args"
			elif grep -q '\$[12]' "$d"; then
				echo '1 main' >"$f/args"
			fi
		done
fi

# the embedded programs, one folder each: P.d and src (file:line)
[ -n "$scripts" ] || python3 - "$out" "$top" <<'PY'
import glob, hashlib, os, re, sys
out, top = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(top + "/tests/run-*.sh")) + \
    sorted(glob.glob(top + "/bench/*.sh")) + [top + "/README.md"] + \
    sorted(glob.glob(top + "/provider-examples/**/*.md", recursive=True))
clause = re.compile(r"[\w$*-]*:[\w$*.-]*:[\w$*.-]*:[\w$*.-]*\s*(/|\{)")
seen = {}
n = 0
def keep(text, f, line):
    global n
    if not clause.search(text) or "{" not in text or text in seen:
        return
    seen[text] = 1
    n += 1
    d = "%s/e%04d" % (out, n)
    os.makedirs(d)
    open(d + "/P.d", "w").write(text if text.endswith("\n") else text + "\n")
    open(d + "/src", "w").write("%s:%d\n" % (os.path.relpath(f, top), line))
def sq_strings(src):
    # (offset, text) of each single-quoted string sh would see
    i, n, res = 0, len(src), []
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
        elif c == "'":
            j = src.find("'", i + 1)
            if j < 0:
                break
            res.append((i, src[i + 1:j]))
            i = j + 1
        elif c == '"':
            i += 1
            while i < n and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
            i += 1
        elif c == "#" and (i == 0 or src[i - 1] in " \t\n;|&("):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("<<", i):
            m = re.match(r"<<-?\s*(?:'(\w+)'|\"(\w+)\"|\\?(\w+))", src[i:])
            if not m:
                i += 2
                continue
            tag = m.group(1) or m.group(2) or m.group(3)
            # the rest of the line is code; the body ends at the tag
            eol = src.find("\n", i)
            if eol < 0:
                break
            at = i + len(m.group(0))
            res += [(at + a, t) for a, t in sq_strings(src[at:eol])]
            e = re.compile(r"^[ \t]*" + tag + r"[ \t]*$", re.M).search(src, eol + 1)
            i = n if not e else e.end()
        else:
            i += 1
    return res
for f in files:
    src = open(f, encoding="utf-8", errors="replace").read()
    lines = src.split("\n")
    # quoted here-documents
    i = 0
    while i < len(lines):
        m = re.search(r"<<-?\s*(?:'(\w+)'|\"(\w+)\"|\\(\w+))", lines[i])
        if m:
            tag = m.group(1) or m.group(2) or m.group(3)
            j = i + 1
            while j < len(lines) and lines[j].strip() != tag:
                j += 1
            # (a nested here-document's tag ends the program: a
            # script written by the test, not D)
            body = lines[i + 1:j]
            for e, b in enumerate(body):
                if re.match(r"\s*[A-Z][A-Z0-9_]*\s*$", b):
                    body = body[:e]
                    break
            keep("\n".join(body) + "\n", f, i + 2)
            i = j
        i += 1
    # single-quoted strings, as sh reads them: not an apostrophe of a
    # comment, of a double-quoted string or of a here-document's body
    # ("kplan_str.c's" in a comment would otherwise pair with the next
    # quote of the code and hide every string up to the next odd one),
    # and in a .md file only within its fenced code blocks
    if f.endswith(".md"):
        fence = False
        for e, b in enumerate(lines):
            if b.lstrip().startswith("```"):
                fence = not fence
                lines[e] = ""
            elif not fence:
                lines[e] = ""
        src = "\n".join(lines)
    for at, text in sq_strings(src):
        keep(text, f, src.count("\n", 0, at) + 1)
PY

# the tests/d scripts, one folder each: their path in src
k=0
[ -n "$scripts" ] ||
	find "$top/tests/d" -path "$top/tests/d/triggers" -prune -o \
	\( -name 'tst.*.d' -o -name 'err.*.d' \) -type f -print |
	LC_ALL=C sort | while IFS= read -r d; do
	k=$((k + 1))
	f=$(printf '%s/t%04d' "$out" "$k")
	mkdir -p "$f"
	echo "${d#"$top"/}" >"$f/src"
done

for f in "$out"/*/; do
	f=${f%/}
	src=$(cat "$f/src")
	w=
	case $src in
	tests/d/*)
		d=$top/$src
		here=$(dirname "$d")
		fl=
		[ -f "$d.flags" ] && fl=$(cat "$d.flags")
		args=
		[ -f "$d.args" ] && args=$(cat "$d.args")
		cmd=/bin/true
		if [ -f "$d.trigger" ]; then
			cmd=$(cat "$d.trigger")
			case $cmd in
			triggers/*) cmd="$trig/${cmd#triggers/}" ;;
			esac
		fi
		p=$d
		;;
	*)
		here=$f
		fl=
		args=
		cmd=/bin/true
		p=$f/P.d
		if [ -f "$f/flags" ]; then # a published script's
			fl=$(cat "$f/flags")
			[ ! -f "$f/args" ] || args=$(cat "$f/args")
		else
			grep -q '^[[:space:]]*#' "$p" && fl=-C
		fi
		;;
	esac
	grep -Eq '(copyout|copyoutstr|system|raise|stop|panic|chill|breakpoint)[[:space:]]*\(' "$p" && w=-w
	echo "dtrace -v -Z $w $fl -s $p -n '$census' -c '$cmd' $args" >"$f/cmd"
	# shellcheck disable=SC2086 # the flags and operands are words
	(cd "$here" && timeout -s KILL 20 "$dtrace" -v -Z $w $fl \
		-s "$p" -n "$census" -c "$cmd" $args \
		</dev/null >/dev/null 2>"$f/err")
done

# the count
TOP=$top/tests python3 - "$out" <<'PY'
import collections, glob, os, re, sys
out = sys.argv[1]
tot = collections.Counter()
by = collections.defaultdict(collections.Counter)
reasons = collections.Counter()
rprogs = collections.defaultdict(set)
cl = open(out + "/clauses", "w")
progs = 0
# the census's rows, first match wins (a heuristic over -v's words:
# OUTDIR/clauses shows each clause's row and reason, to check it by)
ROWS = [("speculations", r"speculat|commit\(\)|discard\(\)"),
        ("exit() not decided at the hit", r"not decided at the hit"),
        ("the clauses from an exit() the kernel decides on",
         r"calls exit\(\)"),
        ("progenyof()", r"progenyof"),
        ("vtimestamp", r"vtimestamp"),
        ("copyout()/copyoutstr()", r"copyout"),
        ("no statement", r"no statement"),
        ("user stacks", r"ustack|jstack|ufunc|usym|umod|uaddr|stack"),
        ("probe names as values", r"probefunc|probename|probemod|probeprov"),
        ("args[N] typed per probe", r"typed per probe"),
        ("a variable set and unset, or stores of two types",
         r"different types|unset|set and unset"),
        ("pointers and structs", r"pointer|struct|copyin\(\)|stringof|copyinto"),
        ("uregs[]", r"uregs"),
        ("more than 8 ifs", r"more than \d+ if"),
        ("other strings", r"string|substr|strjoin|basename|dirname|strstr|"
         r"strlen|copyinstr|execname|strtok|index|lltostr|toupper|tolower"),
        ("globals", r"global"),
        ("a tie -v does not follow", r"also \w+ by clause|another variable"),
        ("other", r"")]
def pf(src, d):
    return ("%s/../%s" % (os.environ["TOP"], src) if src.startswith("tests/d/")
            else d + "/P.d")
def traced(text):
    # comments and strings out, then each clause's body at depth 0:
    # its descriptions are the text before it (to a predicate's '/')
    text = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)
    text = re.sub(r"/\*.*?\*/|//[^\n]*|\"(\\.|[^\"\\\n])*\"", " ", text,
                  flags=re.S)
    n = depth = 0
    last = 0
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                head = text[last:i].strip()
                if "/" in head:
                    head = head[:head.index("/")]
                descs = [x.strip() for x in head.split(",") if x.strip()]
                if descs and not re.search(
                        r"\b(struct|union|enum|translator|typedef|inline)\b",
                        head) and any(
                        x not in ("BEGIN", "END", "ERROR") and
                        not x.startswith("dtrace:") and "tick-" not in x
                        for x in descs):
                    n += 1
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                last = i + 1
        elif ch == ";" and depth == 0:
            last = i + 1
    return n
for f in sorted(glob.glob(out + "/*/err")):
    d = os.path.dirname(f)
    src = open(d + "/src").read().strip()
    kind = ("scripts" if src.startswith("scripts/") else
            "tests/d" if src.startswith("tests/d/") else
            "tests/run" if src.startswith("tests/") else
            "bench" if src.startswith("bench/") else
            "README" if src.startswith("README") else "provider-examples")
    t = open(f, errors="replace").read()
    K = S = 0
    user = {}
    every = None
    for l in t.split("\n"):
        m = re.match(r"dtrace: (\d+) clauses? (aggregated|printing values computed) in the kernel$", l)
        if m:
            K += int(m.group(1))
        m = re.match(r"dtrace: (\d+) clauses? with speculations printing values computed in the kernel", l)
        if m:
            S += int(m.group(1))
        m = re.match(r"dtrace: clause (\d+) \((.*?)\) runs in user space, from its record: (?:line \d+: )?(.*)", l)
        if m and ":" not in m.group(2) and "no statement" in m.group(3):
            continue  # not D: a shell word the extraction let in
        if m:
            m = re.match(r"dtrace: clause (\d+) \(.*?\) runs in user space, from its record: (?:line \d+: )?(.*)", l)
            user.setdefault(m.group(1), m.group(2))
        m = re.match(r"dtrace: clause (\d+) speculates in user space, its predicate and values read from the record: (.*)", l)
        if m:
            user.setdefault(m.group(1), "speculation: " + m.group(2))
        m = re.match(r"dtrace: every clause runs in user space: (.*)", l)
        if m:
            every = m.group(1)
    if "which only the generic program writes" in t:
        every = "copyout(): the generic program runs every clause"
    if every:
        user = {"all": "every clause: " + every}
    U = len(user)
    if K + S + U == 0 and not every:
        continue  # undecided: did not compile (on purpose, a fragment,
                  # bpftrace's) or loaded no program
    # the traced clauses, from the text (with the census's own): -v
    # counts in the kernel only the clauses with a probe to attach
    n = traced(open(pf(src, d), errors="replace").read()) + 1
    if n == 1:
        continue  # no clause of a traced probe
    if every:
        user = {"all%d" % i: user["all"] for i in range(n)}
        U = n
    K = max(n - U - S, 0)
    progs += 1
    for c in (tot, by[kind]):
        c["programs"] += 1
        c["kernel"] += K
        c["spec"] += S
        c["user"] += U
    for c, r in user.items():
        # a tie to another clause's variable: that clause's reason,
        # followed to the end
        seen = {c}
        while True:
            m = re.search(r"is also \w+ by clause (\d+)", r)
            if m and m.group(1) not in user and (S or "speculations run in user space" in t):
                r = "speculation: tied to a clause that speculates"
                break
            if m and m.group(1) in seen and (
                    S or "speculations run in user space" in t):
                r = "speculation: tied to a clause that speculates"
                break
            if not m or m.group(1) in seen or m.group(1) not in user:
                break
            seen.add(m.group(1))
            r = user[m.group(1)]
        row = next(n for n, p in ROWS if re.search(p, r))
        reasons[row] += 1
        rprogs[row].add(d)
        cl.write("%s: [%s] %s\n" % (src, row, r))
cl.close()
with open(out + "/summary", "w") as s:
    def line(name, c):
        n = c["kernel"] + c["spec"] + c["user"]
        s.write("%-18s %4d programs %4d clauses: %4d kernel (%d%%), %3d "
                "speculating, values in the kernel, %4d user space (%d%%)\n"
                % (name, c["programs"], n, c["kernel"],
                   round(100 * c["kernel"] / n) if n else 0, c["spec"],
                   c["user"], round(100 * c["user"] / n) if n else 0))
    line("all", tot)
    for k in sorted(by):
        line(k, by[k])
with open(out + "/reasons", "w") as r:
    for k, v in reasons.most_common():
        r.write("%5d clauses %4d programs  %s\n" % (v, len(rprogs[k]), k))
PY
cat "$out/summary"
head -40 "$out/reasons"
