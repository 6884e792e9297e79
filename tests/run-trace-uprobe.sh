#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-trace-uprobe.sh: every case of run-trace.sh again with
# DTRACE_BACKEND=uprobe (but one that runs on the in-process path, where
# the backend changes nothing: dtrace stopped past its heartbeat, 3 s of
# waiting; and those dtrace decides before it chooses a backend, D
# errors, a -c command or -p pid that does not exist, DTRACE_BACKEND and
# DTRACE_ACTIVATION themselves: run-trace.sh's backend_free, said in the
# log): hits as perf samples of the uprobe events, the
# path dtrace takes where BPF programs cannot be loaded (not root with
# CAP_BPF, a kernel without BPF, a dtrace built without libbpf).  The
# default run (run-trace.sh) uses the BPF backend where it loads; the
# same expected outputs hold for both.

DTRACE_BACKEND=uprobe
export DTRACE_BACKEND
# The enable/disable cycles (run-trace.sh: a traced multi-threaded
# process enabled and disabled while it runs): 8 here in make check,
# where run-trace.sh's BPF backend makes 20 (200 each in make
# check-long); dtrace's start, exit() and clean-up are the same code on
# both, the uprobe events' creation and removal this backend's own.  A
# cycle waits out the kernel's grace periods at attach and detach (about
# 3 s under load), the largest part of this test's time.
# (lib.sh's repeats, which run-trace.sh sources after this)
[ -n "${USDT_TEST_LONG:-}" ] && : "${TRACE_CYCLES:=200}"
: "${TRACE_CYCLES:=8}"
export TRACE_CYCLES
. "$top_srcdir/tests/run-trace.sh"
