#!/usr/bin/env bash
# The console's performance (issue 26, item 7). Run it on a quiet machine.
#
#   bench/console.sh                     # first page: 10,000 objects, 5 runs
#   OBJECTS=100000 RUNS=5 bench/console.sh
#   bench/console.sh latency             # S3 latency with and without the console
#   PAIRS=3 DURATION=30s SIZE=4KiB bench/console.sh latency
#
# firstpage: TestConsoleFirstPage (test/console) starts `jog server` built
# from this tree and headless Chromium, fills a bucket with $OBJECTS objects,
# signs in, then $RUNS times opens the bucket's page in a new tab and prints
# the time from navigation to the first object row being visible (also in
# the page's own clock, performance.now()), and the median. Target: < 1 s.
#
# latency: the same `jog bench mixed` run (64 KiB at concurrency 16 by
# default) against `jog server --console-addr same` (the console on the S3
# port, where each request pays its prefix check; by default it has a port of
# its own and the S3 port pays nothing) and `jog server --console=false`, the two
# taking turns $PAIRS times (the first alternates from pair to pair), each
# run on a fresh data directory. Results: $OUT (bench/results/<date>-console/)
# holds <label>-p<pair>.json; the script ends with
# `jog bench compare --baseline jog-noconsole`.
set -euo pipefail
cd "$(dirname "$0")/.."

firstpage() {
	JOG_CONSOLE_BENCH=1 JOG_CONSOLE_BENCH_OBJECTS=${OBJECTS:-10000} JOG_CONSOLE_BENCH_RUNS=${RUNS:-5} \
		go test ./test/console -run '^TestConsoleFirstPage$' -count=1 -v -timeout 60m
}

latency() {
	local pairs=${PAIRS:-2} duration=${DURATION:-20s} size=${SIZE:-64KiB}
	local out=${OUT:-bench/results/$(date -u +%F)-console}
	local addr=127.0.0.1:${PORT:-9418}
	mkdir -p "$out"
	export AWS_ACCESS_KEY_ID=benchkey AWS_SECRET_ACCESS_KEY=benchsecret AWS_DEFAULT_REGION=us-east-1
	bin=$(mktemp -d)/jog
	trap 'rm -rf "${bin%/jog}"' EXIT
	go build -o "$bin" ./cmd/jog
	run() { # label pair [server flags...]
		local label=$1 p=$2 data pid
		shift 2
		data=$(mktemp -d)
		"$bin" server --addr "$addr" --data-dir "$data" --access-key "$AWS_ACCESS_KEY_ID" \
			--secret-key "$AWS_SECRET_ACCESS_KEY" "$@" >"$data.log" 2>&1 &
		pid=$!
		for _ in $(seq 100); do curl -sf -o /dev/null "http://$addr/health/ready" && break; sleep 0.1; done
		"$bin" bench mixed --endpoint "http://$addr" --access-key "$AWS_ACCESS_KEY_ID" \
			--secret-key "$AWS_SECRET_ACCESS_KEY" --size "$size" --concurrency 16 --duration "$duration" \
			--label "$label" --server-pid "$pid" --quiet --out "$out/$label-p$p.json" >/dev/null
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		rm -rf "$data" "$data.log"
		echo "$(date -u +%T) $label pair $p load $(cut -d' ' -f1 /proc/loadavg)"
	}
	for p in $(seq "$pairs"); do
		if [ $((p % 2)) = 1 ]; then
			run jog-console "$p" --console-addr same
			run jog-noconsole "$p" --console=false
		else
			run jog-noconsole "$p" --console=false
			run jog-console "$p" --console-addr same
		fi
	done
	"$bin" bench compare --baseline jog-noconsole "$out"/*.json
}

case "${1:-firstpage}" in
firstpage) firstpage ;;
latency) latency ;;
*)
	echo "usage: bench/console.sh [firstpage|latency]" >&2
	exit 2
	;;
esac
