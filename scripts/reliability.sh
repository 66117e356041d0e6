#!/usr/bin/env bash
# The reliability runs at length (docs/RELIABILITY.md, "Crash consistency"):
# kill -9 cycles of the crash harness against one server on the embedded
# SQLite store, then against two gateways over one PostgreSQL database and
# one data dir (killing either, or both), every acknowledged write checked.
#
# Usage: scripts/reliability.sh [sqlite-cycles [gateway-cycles]]   (1000 and 200)
#
# JOG_CRASH_* variables (test/crash/run-long.sh) apply to both runs. Each
# run prints a line per cycle and a RESULT line; the script exits non-zero
# if either run found anything. Expect hours on two cores.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
test/crash/run-long.sh "${1:-1000}" || status=1
test/crash/run-long.sh --gateways 2 "${2:-200}" || status=1
exit "$status"
