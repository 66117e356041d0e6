#!/usr/bin/env bash
# The long crash-consistency run: kill -9 / restart cycles of a real
# `jog server` under concurrent writes to a plain bucket, a versioned one
# and one with object lock (see harness.go and versions.go for what is
# checked).
#
# Usage: test/crash/run-long.sh [cycles]        (default 50)
#
# Environment (all optional):
#   JOG_CRASH_CYCLES      kill/restart cycles (the argument wins)
#   JOG_CRASH_WORKERS     concurrent clients (8)
#   JOG_CRASH_KEYS        key space of the plain bucket (48; the versioned
#                         bucket has half as many, the locked one a quarter)
#   JOG_CRASH_MIN_RUN / JOG_CRASH_MAX_RUN  workload time before each kill (500ms / 4s)
#   JOG_CRASH_SEED        seed of the schedule and the content (time-based)
#   JOG_CRASH_FSCK_EVERY  run `jog fsck --deep` right after every n-th kill (2)
#   JOG_CRASH_KEEP        set to keep the data dir and server.log
#
# Prints one line per cycle and a RESULT line; exits non-zero on any lost
# or corrupt write, version or delete marker, a locked version deleted, or
# an unclean final fsck.
set -euo pipefail
cd "$(dirname "$0")/../.."
export JOG_CRASH_CYCLES="${1:-${JOG_CRASH_CYCLES:-50}}"
exec go test ./test/crash -run '^TestCrashConsistency$' -count=1 -v -timeout 0
