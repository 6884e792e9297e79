#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-trace-fork-uprobe.sh: run-trace-fork.sh on the uprobe-events
# backend (perf ring buffers instead of the BPF program): a forked
# child's hits count exactly once there too.

DTRACE_BACKEND=uprobe
export DTRACE_BACKEND
. "$top_srcdir/tests/run-trace-fork.sh"
