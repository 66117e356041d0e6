#!/usr/bin/env bash
# The long crash-consistency runs: kill -9 / restart cycles of real
# `jog server` processes under concurrent writes to a plain bucket, a
# versioned one and one with object lock (see harness.go and versions.go
# for what is checked).
#
# Usage: test/crash/run-long.sh [--postgres] [--gateways N] [cycles]
#
#   (no option)    one server on the embedded SQLite store
#                  (TestCrashConsistency)
#   --postgres     one server, its metadata in a throwaway PostgreSQL
#                  cluster (TestCrashConsistencyPostgres)
#   --gateways N   N gateways (N >= 2) over one PostgreSQL database and one
#                  data dir; requests go to any of them, each cycle kills
#                  one at random or, in a quarter of the cycles, all
#                  (TestCrashConsistencyGateways); implies --postgres
#   cycles         kill/restart cycles (default 50)
#
# The figures in docs/RELIABILITY.md come from `run-long.sh 1000` and
# `run-long.sh --gateways 2 200`.
#
# Environment (all optional):
#   JOG_CRASH_CYCLES      kill/restart cycles (the argument wins)
#   JOG_CRASH_WORKERS     concurrent clients (8)
#   JOG_CRASH_KEYS        key space of the plain bucket (48; the versioned
#                         bucket has half as many, the locked one a quarter)
#   JOG_CRASH_MIN_RUN / JOG_CRASH_MAX_RUN  workload time before each kill (500ms / 4s)
#   JOG_CRASH_SEED        seed of the schedule and the content (time-based)
#   JOG_CRASH_FSCK_EVERY  run `jog fsck --deep` right after every n-th kill (2)
#   JOG_CRASH_KEEP        set to keep the data dir and the server logs
#   JOG_PG_BINDIR         where PostgreSQL's initdb and postgres are
#                         (default: the newest /usr/lib/postgresql/*/bin)
#
# Prints one line per cycle and a RESULT line; exits non-zero on any lost
# or corrupt write, version or delete marker, a locked version deleted, a
# file left in tmp/ that may not be there, or an unclean final fsck.
set -euo pipefail
cd "$(dirname "$0")/../.."
test=TestCrashConsistency
while [ $# -gt 0 ]; do
	case "$1" in
	--postgres) [ "$test" = TestCrashConsistencyGateways ] || test=TestCrashConsistencyPostgres ;;
	--gateways)
		[ "${2:-}" -ge 2 ] 2>/dev/null || { echo "run-long.sh: --gateways wants a number >= 2" >&2; exit 2; }
		test=TestCrashConsistencyGateways
		export JOG_CRASH_GATEWAYS="$2"
		shift ;;
	-*) echo "usage: $0 [--postgres] [--gateways N] [cycles]" >&2; exit 2 ;;
	*) export JOG_CRASH_CYCLES="$1" ;;
	esac
	shift
done
export JOG_CRASH_CYCLES="${JOG_CRASH_CYCLES:-50}"
# PostgreSQL must run: a missing installation fails instead of skipping.
export JOG_REQUIRE_POSTGRES=1
exec go test ./test/crash -run "^${test}\$" -count=1 -v -timeout 0
