#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-trace-uprobe.sh: every case of run-trace.sh again with
# DTRACE_BACKEND=uprobe (but one that runs on the in-process path, where
# the backend changes nothing: dtrace stopped past its heartbeat, 3 s of
# waiting): hits as perf samples of the uprobe events, the
# path dtrace takes where BPF programs cannot be loaded (not root with
# CAP_BPF, a kernel without BPF, a dtrace built without libbpf).  The
# default run (run-trace.sh) uses the BPF backend where it loads; the
# same expected outputs hold for both.

DTRACE_BACKEND=uprobe
export DTRACE_BACKEND
. "$top_srcdir/tests/run-trace.sh"
