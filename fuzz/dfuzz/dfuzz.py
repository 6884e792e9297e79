#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dfuzz.py - the D differential fuzzer: random D programs, each run on
the same deterministic target twice, with the clauses compiled to BPF
per clause (the default) and with every clause run by dtrace's own
interpreter (DTRACE_KAGG=0), the two outputs compared byte for byte.

Why: dtrace runs a clause in the kernel only where it can do so
exactly, and otherwise in user space (d/run.c); the two must print the
same thing for every program.  The tests check each construct the code
generator takes on known cases; this walks the space between them:
integers of every width through casts and arithmetic, strings copied,
cut, joined and keyed, `?:`, variables of each scope, aggregations,
printf() formats, faults (a NULL string, a division by zero).  A
program the compiler refuses is counted and skipped; one the two runs
print differently is a bug, kept with both outputs under --keep.

The target (dfz.c, provider dfz.d) fires dfz:::ints, dfz:::strs and
dfz:::mix once a round and dfz:::done at the end, and writes a string
to /dev/null a round (syscall::write:entry, the kernel's provider),
with the same arguments every run; nothing the generator writes reads a clock, a
thread or process id, or anything else that differs between two runs.
A program marked FORKMARK (one in five) runs it as `dfz N fork`: a
child forked mid-run fires four rounds of its own before the parent
goes on, and some of its clauses are at dfz*, the probes of every
process, the child's among them.

	dfuzz.py --dtrace DTRACE --target DIR [--seed S] [--count N]
		 [--keep DIR] [--rounds R] [--activation user]

--activation user: the first run under DTRACE_ACTIVATION=user instead,
the USDT probes armed in the process (drti.o's recorder and its plans)
and the rest handed to the kernel path, against the same interpreter
run: where the two paths meet (a self-> stored at a probe the kernel
path took, read at one the process's recorder took) each variable must
have one copy.  A program the in-process activation refuses (a kernel
provider, vtimestamp, uid) is counted apart and skipped; the probe IDs
in error messages and the word on a fork child's semaphores are not
compared (inproc_norm()).

DIR holds the built target (`dfz`); fuzz/dfuzz/run.sh builds it.  Each
program is seed S + i, so a failure is reproduced with --seed S+i
--count 1.  Exit 0 when every program ran the same both ways, 1 when one
did not (or when most programs did not compile: the run is broken).
"""
import argparse
import os
import random
import re
import subprocess
import sys

# the probes' typed arguments: (name, D type) and which are strings
PROBES = {
    "ints": [("int", 0), ("long", 0), ("unsigned char", 0), ("short", 0),
             ("unsigned int", 0), ("char", 0)],
    "strs": [("char *", 1), ("char *", 1), ("int", 0)],
    "mix": [("long", 0), ("char *", 1), ("unsigned short", 0)],
    # a clause at two probes: the arguments both type alike (2: one a
    # string, the other not: the generator leaves it alone)
    # syscall::write:entry of the target (dfz.c writes one string a
    # round to /dev/null): the kernel provider's programs
    "wr": [("int", 0), ("char *", 1), ("size_t", 0)],
    "ints,mix": [("", 0), ("", 2), ("", 0)],
    "strs,mix": [("", 2), ("", 1), ("", 0)],
}
CASTS = ["char", "unsigned char", "short", "unsigned short", "int",
         "unsigned int", "long", "unsigned long", "int8_t", "uint8_t",
         "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
         "uint64_t"]
CONSTS = ["0", "1", "2", "3", "7", "-1", "-2", "100", "127", "128", "255",
          "256", "65535", "0x7fffffff", "0xffffffff", "0x100000000",
          "-2147483648", "1000000007", "0x7fffffffffffffff"]
LITS = ['""', '"a"', '"abc"', '"hello"', '"/usr/lib"', '"x/y"', '"ABC"',
        '"-"', '"<null>"', '"Hello World"']
FNS = ["count", "sum", "min", "max", "avg", "quantize", "lquantize",
       "stddev", "llquantize"]
# strings every hit of a probe has alike: what the kernel keys arrays by
# beside integers (the probe's names and literals)
NAMEKEYS = ["probename", "probefunc", "probemod", '"k"', '"key two"', '""']


class Gen:
    """One program: clauses over the dfz probes, with the variables each
    scope has been given so far (so reads mostly find a store)."""

    def __init__(self, rnd, seed=0):
        self.r = rnd
        # choices added since a seed's program was first written, drawn
        # from a generator of their own so that the programs of seeds
        # that do not take them stay as they were
        self.r3 = random.Random(seed * 31 + 7)
        self.ivars = {"this": set(), "self": set()}
        self.svars = {"this": set(), "self": set()}
        self.arrs = set()   # self->aN[int]
        self.garrs = set()  # gN[int]
        self.gsc = set()    # gsN, a global scalar
        self.narrs = set()  # self->bN[string], keyed by names
        self.ngarrs = set()  # hN[int, string]
        self.cuts = False   # this->c0, a copy cut at a length (at wr)
        self.aggs = {}      # @name -> (nkeys signature, fn)
        self.depth = 0
        # a lean program keeps to what the kernel runs (strings copied,
        # literal, joined, chosen by ?:; no if around strings), so that
        # most of its clauses are the kernel's and the comparison has
        # something to compare; the others roam the whole language
        self.lean = rnd.random() < 0.7
        # the target forks mid-run ("dfz N fork"), and some clauses are
        # at dfz*, every process's probes: the child's hits too, armed
        # at its fork or not at all (bpf_agg_cgen.c's "Forks")
        self.fork = rnd.random() < 0.2
        self.anyproc = False  # the clause being written is at dfz*

    def ch(self, xs):
        return self.r.choice(xs)

    def p(self, x):
        return self.r.random() < x

    def var(self, kind, other):
        """A this-> or self-> variable of kind ("i" or "s") stored so
        far, else one of other"""
        sc = self.ch(["this", "self"])
        vs = (self.ivars if kind == "i" else self.svars)[sc]
        if vs:
            return "%s->%s%d" % (sc, kind, self.ch(sorted(vs)))
        return self.ch(other)

    # integer expressions --------------------------------------------
    def ileaf(self, probe):
        args = PROBES[probe]
        k = self.r.random()
        if k < 0.35:
            ints = [i for i, a in enumerate(args) if a[1] == 0]
            i = self.ch(ints)
            return "args[%d]" % i if self.p(0.4 if self.lean else 0.6) \
                else "arg%d" % i
        if k < 0.55:
            return self.ch(CONSTS)
        if k < 0.75:
            return self.var("i", CONSTS)
        if k < 0.82 and (not self.lean or self.p(0.2)):
            return "strlen(%s)" % (self.sleaf(probe) if self.lean else
                                   self.sexpr(probe, 1))
        if k < 0.88 and self.arrs:
            return "self->a%d[%s]" % (self.ch(sorted(self.arrs)),
                                      self.ikey(probe))
        if k < 0.94 and self.garrs and self.gok():
            return "g%d[%s]" % (self.ch(sorted(self.garrs)),
                                self.ikey(probe))
        if k < 0.97 and self.gsc and not self.lean:
            return "gs0"
        if k < 0.985 and self.narrs:
            return "self->b%d[%s]" % (self.ch(sorted(self.narrs)),
                                      self.nkey(probe))
        if self.ngarrs and self.gok() and self.p(0.5):
            return "h%d[%s, %s]" % (self.ch(sorted(self.ngarrs)),
                                    self.ikey(probe), self.nkey(probe))
        return self.ch(CONSTS)

    def gok(self):
        # a global array where a lean program may have one: the kernel
        # keeps one only where no clause touches it at probes of any
        # process (dfz*), so a lean program has none there
        return not (self.lean and self.anyproc)

    def nkey(self, probe):
        # a string key: a name or literal (the kernel's), rarely a copy
        # (user space's: the array goes there whole)
        strs = [i for i, a in enumerate(PROBES[probe]) if a[1] == 1]
        if strs and self.p(0.1):
            return "copyinstr(arg%d)" % self.ch(strs)
        return self.ch(NAMEKEYS)

    def ikey(self, probe):
        # keys of arrays: small values, so elements meet again
        if self.p(0.5):
            return self.ch(["0", "1", "2", "3"])
        return "(%s) & 3" % self.iexpr(probe, 1)

    def iexpr(self, probe, d=2):
        if self.lean:
            d = min(d, 1)
        if d <= 0 or self.p(0.3):
            return self.ileaf(probe)
        k = self.r.random()
        a = self.iexpr(probe, d - 1)
        if k < 0.30:
            op = self.ch(["+", "-", "*", "&", "|", "^"])
            return "(%s %s %s)" % (a, op, self.iexpr(probe, d - 1))
        if k < 0.38:
            op = self.ch(["/", "%"])
            if self.p(0.85):
                b = self.ch(["1", "2", "3", "7", "-3", "100", "65536"])
            else:
                b = self.iexpr(probe, d - 1)  # may be 0: the fault
            return "(%s %s %s)" % (a, op, b)
        if k < 0.45:
            op = self.ch(["<<", ">>"])
            return "(%s %s %d)" % (a, op, self.r.randint(0, 40))
        if k < 0.60:
            op = self.ch(["==", "!=", "<", "<=", ">", ">="])
            return "(%s %s %s)" % (a, op, self.iexpr(probe, d - 1))
        if k < 0.75:
            return "((%s)%s)" % (self.ch(CASTS), a)
        if k < 0.82:
            return "(%s %s)" % (self.ch(["-", "~", "!"]), a)
        if k < 0.90:
            return "(%s ? %s : %s)" % (self.pred(probe, d - 1), a,
                                       self.iexpr(probe, d - 1))
        op = self.ch(["&&", "||", "^^"])
        return "(%s %s %s)" % (a, op, self.iexpr(probe, d - 1))

    def pred(self, probe, d=1):
        k = self.r.random()
        if k < 0.5:
            op = self.ch(["==", "!=", "<", "<=", ">", ">="])
            return "%s %s %s" % (self.iexpr(probe, d), op,
                                 self.iexpr(probe, d))
        if k < 0.7:
            op = self.ch(["==", "!=", "<", ">"])
            s = self.sleaf(probe) if self.lean else self.sexpr(probe, d)
            if self.p(0.25):
                # two strings of the hit (the kernel compares a copy
                # with execname, not with another copy or a name)
                return "%s %s %s" % (s, op, "execname" if self.lean
                                     else self.sleaf(probe))
            return "%s %s %s" % (s, op, self.ch(LITS))
        if k < 0.74 and self.svars["self"]:
            # a self-> string tested against NULL (the *_malloc.d
            # scripts' /self->name == NULL/)
            return "self->s%d %s NULL" % (self.ch(sorted(
                self.svars["self"])), self.ch(["==", "!="]))
        if k < 0.8:
            strs = [i for i, x in enumerate(PROBES[probe]) if x[1] == 1]
            return "arg%d != 0" % self.ch(strs) if strs else "arg0 != 0"
        return self.iexpr(probe, d)

    # string expressions ---------------------------------------------
    def sleaf(self, probe):
        args = PROBES[probe]
        strs = [i for i, a in enumerate(args) if a[1] == 1]
        k = self.r.random()
        if k < 0.45 and strs:
            return "copyinstr(arg%d)" % self.ch(strs)
        if k < 0.65:
            return self.ch(LITS)
        if k < 0.80:
            return self.var("s", LITS)
        if k < 0.9:
            return self.ch(["probename", "probefunc", "probemod",
                            "execname"])
        if k < 0.95 and strs:
            return "%s(copyinstr(arg%d))" % (self.ch(["basename",
                                                      "dirname"]),
                                             self.ch(strs))
        if k < 0.97 and self.cuts:
            return "this->c0"
        return self.ch(LITS)

    def sexpr(self, probe, d=2):
        if self.lean:
            return self.slean(probe)
        if d <= 0 or self.p(0.4):
            return self.sleaf(probe)
        k = self.r.random()
        a = self.sexpr(probe, d - 1)
        if k < 0.25:
            return "strjoin(%s, %s)" % (a, self.sexpr(probe, d - 1))
        if k < 0.40:
            if self.p(0.5):
                return "substr(%s, %s)" % (a, self.ch(["0", "1", "3",
                                                       "-2", "70"]))
            return "substr(%s, %s, %s)" % (a, self.ch(["0", "1", "-3"]),
                                           self.ch(["0", "2", "5", "-1"]))
        if k < 0.55:
            return "%s(%s)" % (self.ch(["basename", "dirname", "toupper",
                                        "tolower"]), a)
        if k < 0.75:
            nul = '"<null>"' if self.p(0.5) else '""'
            strs = [i for i, x in enumerate(PROBES[probe]) if x[1] == 1]
            if strs and self.p(0.6):
                i = self.ch(strs)
                return "(arg%d ? copyinstr(arg%d) : %s)" % (i, i, nul)
            return "(%s ? %s : %s)" % (self.pred(probe, 1), a,
                                       self.sexpr(probe, d - 1))
        if k < 0.85:
            return "lltostr(%s)" % self.iexpr(probe, 1)
        return a

    def slean(self, probe):
        k = self.r.random()
        if k < 0.55:
            return self.sleaf(probe)
        strs = [i for i, x in enumerate(PROBES[probe]) if x[1] == 1]
        if k < 0.75 and strs:
            i = self.ch(strs)
            nul = '"<null>"' if self.p(0.5) else '""'
            return "(arg%d ? copyinstr(arg%d) : %s)" % (i, i, nul)
        if k < 0.88:
            return "strjoin(%s, %s)" % (self.sleaf(probe), self.ch(LITS))
        return "(%s ? %s : %s)" % (self.pred(probe, 1), self.sleaf(probe),
                                   self.sleaf(probe))

    # statements -----------------------------------------------------
    def agg(self, probe):
        name = "ag%d" % self.r.randint(0, 3)
        if name in self.aggs:
            kinds, fn = self.aggs[name]
        else:
            kinds = [self.ch("is") for _ in range(self.r.randint(0, 3))]
            if self.p(0.05):
                # a user stack as a key (the kernel's walk or dtrace's
                # unwinding of a copy: the same frames)
                kinds.insert(self.r.randint(0, len(kinds)),
                             self.ch(["u1", "u3", "u"]))
            fn = self.ch(FNS)
            if self.r3.random() < 0.1:
                # three string variables as the keys, maybe beside an
                # integer (kplan.c's vkey_pair(), vkey_third())
                kinds = ["v", "v", "v"] + [k for k in kinds
                                           if k == "i"][:1]
            self.aggs[name] = (kinds, fn)
        keys = [self.iexpr(probe, 1) if k == "i" else
                self.sexpr(probe, 1) if k == "s" else
                self.var("s", LITS) if k == "v" else
                "ustack(%s)" % k[1:] for k in kinds]
        v = self.iexpr(probe, 2)
        if fn == "count":
            call = "count()"
        elif fn == "lquantize":
            call = "lquantize(%s, -10, 300, 10)" % v
        elif fn == "llquantize":
            call = "llquantize(%s, 10, 0, 6, 20)" % v
        else:
            call = "%s(%s)" % (fn, v)
        k = "[%s]" % ", ".join(keys) if keys else ""
        return "@%s%s = %s;" % (name, k, call)

    def printf(self, probe):
        fmts, args = [], []
        for _ in range(self.r.randint(1, 4)):
            if self.p(0.55):
                f = self.ch(["%d", "%i", "%u", "%x", "%X", "%o", "%5d",
                             "%-6d", "%ld", "%lld", "%c", "%lx", "%hd",
                             "%hhu"])
                fmts.append(f)
                # the type a sized conversion asks for (dtrace checks)
                cast = {"%c": "(char)", "%hd": "(short)",
                        "%hhu": "(unsigned char)", "%ld": "(long)",
                        "%lx": "(long)", "%lld": "(long long)"}.get(f, "")
                args.append(cast + self.iexpr(probe, 2))
            elif self.p(0.15):
                # a width from the hit (the toolkit's indents)
                fmts.append(self.ch(["%*s", "%-*s", "%*d"]))
                args.append("(%s) & 15" % self.iexpr(probe, 1))
                args.append(self.iexpr(probe, 1) if fmts[-1] == "%*d"
                            else self.sexpr(probe, 2))
            else:
                fmts.append(self.ch(["%s", "%10s", "%-8s", "%.3s", "%s"]))
                args.append(self.sexpr(probe, 2))
        return 'printf("%s\\n", %s);' % (" ".join(fmts), ", ".join(args))

    def stmt(self, probe, stores):
        k = self.r.random()
        sc = self.ch(["this", "self"])
        if k < 0.05:
            # ++, -- and op= on integers of every scope
            t = self.r.random()
            if t < 0.3 and self.arrs:
                v = "self->a%d[%s]" % (self.ch(sorted(self.arrs)),
                                       self.ikey(probe))
            elif t < 0.5 and self.garrs and self.gok():
                v = "g%d[%s]" % (self.ch(sorted(self.garrs)),
                                 self.ikey(probe))
            elif t < 0.7 and not self.lean:
                if not self.gsc:  # (D asks a store first)
                    st = "gs0 = %s;" % self.iexpr(probe, 1)
                    self.gsc.add(0)
                    return st
                v = "gs0"
            else:
                n = self.r.randint(0, 2)
                stores.append(("i", sc, n))
                v = "%s->i%d" % (sc, n)
            if self.p(0.5):
                return "%s%s;" % (v, self.ch(["++", "--"]))
            return "%s %s %s;" % (v, self.ch(["+=", "-=", "|=", "*="]),
                                  self.iexpr(probe, 1))
        if k < 0.18:
            n = self.r.randint(0, 2)
            v = "%s->i%d" % (sc, n)
            stores.append(("i", sc, n))
            if self.p(0.15) and sc == "self":
                return "%s = 0;" % v
            op = self.ch(["=", "=", "=", "+=", "-="]) \
                if n in self.ivars[sc] else "="
            return "%s %s %s;" % (v, op, self.iexpr(probe))
        if k < 0.33:
            n = self.r.randint(0, 2)
            stores.append(("s", sc, n))
            return "%s->s%d = %s;" % (sc, n, self.sexpr(probe))
        if k < 0.40:
            n = self.r.randint(0, 1)
            st = "self->a%d[%s] = %s;" % (n, self.ikey(probe),
                                          self.iexpr(probe))
            self.arrs.add(n)
            return st
        if k < 0.46 and self.gok():
            n = self.r.randint(0, 1)
            st = "g%d[%s] = %s;" % (n, self.ikey(probe),
                                    self.iexpr(probe))
            self.garrs.add(n)  # (read after its first store, as D asks)
            return st
        if k < 0.49:
            n = self.r.randint(0, 1)
            if self.p(0.5) or not self.gok():
                st = "self->b%d[%s] = %s;" % (n, self.nkey(probe),
                                              self.iexpr(probe))
                self.narrs.add(n)
            else:
                st = "h%d[%s, %s] = %s;" % (n, self.ikey(probe),
                                            self.nkey(probe),
                                            self.iexpr(probe))
                self.ngarrs.add(n)
            return st
        if k < 0.51 and probe == "wr":
            # a copy cut at a length (the hotspot scripts' idiom): the
            # buffer and its length, NULL and 0 once a round in three
            if self.p(0.5):
                self.cuts = True
                return ("this->c0 = stringof((char *)copyin(arg1, "
                        "arg2 + 1)); this->c0[arg2] = '\\0';")
            return ("this->p0 = (char *)copyin(arg1, arg2 + 1); "
                    "this->p0[arg2] = '\\0'; "
                    'printf("%s|\\n", stringof(this->p0));')
        if k < 0.70:
            return self.agg(probe)
        if k < 0.88:
            return self.printf(probe)
        if k < 0.93:
            if self.p(0.5):
                return "trace(%s);" % self.iexpr(probe)
            return "trace(%s);" % self.sexpr(probe)
        if k < 0.96 and self.svars["this"]:
            n = self.ch(sorted(self.svars["this"]))
            return "this->s%d[%d] = %s;" % (n, self.r.randint(0, 6),
                                            self.ch(["0", "'.'", "'Z'"]))
        if self.depth < 1 and (not self.lean or self.p(0.3)):
            self.depth += 1
            c = self.pred(probe)  # (first: it reads what came before)
            a = [self.stmt(probe, stores) for _ in
                 range(self.r.randint(1, 2))]
            s = "if (%s) { %s }" % (c, " ".join(a))
            if self.p(0.4):
                s += " else { %s }" % self.stmt(probe, stores)
            self.depth -= 1
            return s
        return self.printf(probe)

    def clause(self):
        probe = self.ch(list(PROBES))
        self.anyproc = False
        if probe == "wr":
            out = "syscall::write:entry\n"
            if self.p(0.4):
                out += "/pid == $target && (%s)/\n" % self.pred(probe)
            else:
                out += "/pid == $target/\n"
        else:
            prov = "dfz*" if self.fork and self.p(0.6) else "dfz$target"
            self.anyproc = prov == "dfz*"
            out = ",".join("%s:::%s" % (prov, x)
                           for x in probe.split(",")) + "\n"
            if self.p(0.4):
                out += "/%s/\n" % self.pred(probe)
        body, stores = [], []
        # this-> variables live for one firing: a clause's reads of them
        # see its own stores (the generator's sets are per program, so
        # a read in another clause may be of one unset: 0 and "" alike)
        for _ in range(self.r.randint(1, 5)):
            body.append(self.stmt(probe, stores))
            for kind, sc, n in stores:
                (self.ivars if kind == "i" else self.svars)[sc].add(n)
            stores.clear()
        return out + "{\n\t" + "\n\t".join(body) + "\n}\n"

    def spec_clauses(self):
        """A speculation per thread: opened at ints, printed into at
        mix, committed or discarded at strs by an argument."""
        self.anyproc = False
        out = ["dfz$target:::ints\n/!self->spec/\n{\n\t"
               "self->spec = speculation();\n}\n"]
        out.append("dfz$target:::mix\n/self->spec/\n{\n\t"
                   "speculate(self->spec);\n\t%s\n}\n" %
                   self.printf("mix"))
        if self.p(0.5):
            out.append("dfz$target:::ints\n/self->spec/\n{\n\t"
                       "speculate(self->spec);\n\t%s\n}\n" %
                       self.printf("ints"))
        k = self.ch(["2", "3", "5"])
        out.append("dfz$target:::strs\n/self->spec && arg2 %% %s == 0/\n"
                   "{\n\tcommit(self->spec);\n\tself->spec = 0;\n}\n" % k)
        out.append("dfz$target:::strs\n/self->spec/\n{\n\t"
                   "discard(self->spec);\n\tself->spec = 0;\n}\n")
        return "".join(out)

    def program(self):
        src = ["#pragma D option quiet\n"]
        if self.fork:
            src.append(FORKMARK + "\n")
        if self.p(0.3):
            src.append("#pragma D option strsize=%d\n" %
                       self.ch([8, 16, 32, 100]))
        for _ in range(self.r.randint(2, 6)):
            src.append(self.clause())
        spec = self.p(0.12)
        if spec:
            src.append(self.spec_clauses())
        if self.p(0.1):
            # exit() at a hit of the run, not its end: what the kernel
            # counted after it must be what user space ran before it
            src.append("dfz$target:::%s\n/arg%d == %s/\n{\n\texit(0);\n}\n"
                       % self.ch([("ints", 0, "127"), ("mix", 2, "255"),
                                  ("strs", 2, "9"), ("ints", 2, "0")]))
        if self.aggs and self.p(0.35):
            # what dtrace does with an aggregation at a traced probe
            acts = []
            for _ in range(self.r.randint(1, 3)):
                name = self.ch(sorted(self.aggs))
                t = self.r.random()
                if t < 0.4:
                    acts.append("printa(@%s);" % name)
                elif t < 0.6:
                    acts.append("normalize(@%s, %d);" %
                                (name, self.ch([2, 3, 1000])))
                elif t < 0.8:
                    acts.append("trunc(@%s, %d);" % (name,
                                                     self.r.randint(0, 3)))
                else:
                    acts.append("clear(@%s);" % name)
            src.append("dfz$target:::done\n{\n\t%s\n}\n" %
                       "\n\t".join(acts))
        if self.p(0.3):
            src.append("dfz$target:::done\n{\n\texit(0);\n}\n")
        # (not beside speculations or global arrays, which the kernel
        # may keep: a probe past a plan's room is refused there)
        if self.p(0.06) and not spec and not self.garrs:
            src.append(self.crowd())
        return "".join(src)

    def crowd(self):
        """More clauses keeping self-> at one probe than a plan holds
        (bpf_agg_cgen.c's "Unfit events": the processes firing it keep
        self-> in user space), each reading one a clause before stored;
        last, so that the programs before it are as they were."""
        # the integer arguments, cast to their types (the bits above
        # an int's may differ between runs; a variable the kernel keeps
        # takes no args[N], which is typed per probe)
        ints = {"ints": ["(int)arg0", "arg1", "(uint8_t)arg2",
                         "(short)arg3"],
                "mix": ["arg0", "(uint16_t)arg2"], "strs": ["(int)arg2"],
                "done": ["(int)arg0"]}
        probe = self.ch(["ints", "mix", "strs"])
        at = self.ch(["ints", "mix", "strs", "done"])
        out = ["dfz$target:::%s\n{\n\tself->c0 = %s;\n}\n" %
               (at, self.ch(ints[at]))]
        for i in range(1, self.r.randint(24, 36)):
            out.append("dfz$target:::%s\n{\n\tself->c%d = self->c%d + "
                       "%s;\n\t@c%d[%s & 3] = sum(self->c%d);\n}\n" %
                       (probe, i, i - 1, self.ch(ints[probe]), i,
                        self.ch(ints[probe]), i))
        return "".join(out)


PIDRE = re.compile(r"\b(dfz)\d+\b")
FORKMARK = "/* dfz forks */"


def run(dtrace, target, rounds, path, env, flags=()):
    e = dict(os.environ)
    e.update(env)
    with open(path) as f:
        fork = " fork" if FORKMARK in f.read() else ""
    try:
        p = subprocess.run([dtrace] + list(flags) + ["-s", path, "-c",
                            "./dfz %d%s" % (rounds, fork)], cwd=target,
                           env=e,
                           capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return (None, b"", b"timeout")
    err = PIDRE.sub(r"\1PID", p.stderr.decode("latin-1"))
    err = re.sub(r"pid \d+", "pid PID", err)
    return (p.returncode, p.stdout, err.encode("latin-1"))


def inproc_norm(r):
    """--activation's runs, compared without what differs by design: the
    probe IDs (each path numbers the probes it enables in its own order)
    and the in-process path's word on a fork child's semaphores."""
    err = re.sub(rb"\(ID \d+: ", b"(ID N: ", r[2])
    err = re.sub(rb"(?m)^dtrace: fork child \d+: .* semaphores its parent "
                 rb"raised stay up.*\n", b"", err)
    return (r[0], r[1], err)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dtrace", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=23)
    ap.add_argument("--keep", default=None)
    ap.add_argument("--stats", action="store_true",
                    help="a third run, with -v: how many clauses the "
                    "kernel ran")
    ap.add_argument("--activation", choices=["user"], default=None,
                    help="the first run under DTRACE_ACTIVATION=user")
    ap.add_argument("--print", action="store_true",
                    help="print the program of --seed and stop")
    a = ap.parse_args()
    a.target = os.path.abspath(a.target)
    work = os.path.abspath(a.keep or a.target)
    os.makedirs(work, exist_ok=True)
    same = differ = refused = kernel = user = inref = 0
    first = {"DTRACE_ACTIVATION": a.activation} if a.activation else {}
    first_err = b""
    for i in range(a.count):
        seed = a.seed + i
        src = Gen(random.Random(seed), seed).program()
        if a.print:
            sys.stdout.write(src)
            return 0
        path = os.path.join(work, "p%d.d" % seed)
        with open(path, "w") as f:
            f.write(src)
        got = run(a.dtrace, a.target, a.rounds, path, first)
        ref = run(a.dtrace, a.target, a.rounds, path, {"DTRACE_KAGG": "0"})
        if a.activation:
            got, ref = inproc_norm(got), inproc_norm(ref)
        if ref[0] != 0 and b"failed to compile" in ref[2]:
            refused += 1
            first_err = first_err or ref[2]
            os.unlink(path)
            continue
        if (a.activation and got[0] != 0 and ref[0] == 0 and
                b"-x activation=user" in got[2]):
            inref += 1  # what the in-process activation does not run
            os.unlink(path)
            continue
        if a.stats:
            v = run(a.dtrace, a.target, a.rounds, path, {}, ["-v"])[2]
            ku = re.findall(rb"(\d+) clauses? (?:aggregated|printing "
                            rb"values computed) in the kernel", v)
            kernel += sum(int(x) for x in ku)
            user += len(re.findall(rb"runs in user space", v))
        if got == ref:
            same += 1
            os.unlink(path)
            continue
        differ += 1
        print("dfuzz: seed %d: the two runs differ (%s)" % (seed, path),
              flush=True)
        for tag, r in (("kernel" if not a.activation else "inprocess",
                        got), ("user space", ref)):
            with open(path + "." + tag.replace(" ", "") + ".out",
                      "wb") as f:
                f.write(b"rc %r\n--- stdout\n" % (r[0],) + r[1] +
                        b"--- stderr\n" + r[2])
    print("dfuzz: %d programs from seed %d: %d the same both ways, "
          "%d differ, %d not compiled%s" %
          (a.count, a.seed, same, differ, refused,
           ", %d refused by -x activation=user" % inref
           if a.activation else ""))
    if a.stats:
        print("dfuzz: clauses the kernel ran: %d; in user space: %d" %
              (kernel, user))
    if refused * 2 > a.count:
        # the generator writes programs that compile: most refused says
        # the run is broken (a path, a target), not the programs
        print("dfuzz: most programs did not compile (the first: %s)" %
              first_err.decode("latin-1", "replace").strip())
        return 1
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
