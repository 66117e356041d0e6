#!/usr/bin/env bash
# The lifecycle worker's effect on foreground latency, on one JOG server:
# a bucket holds N objects under exp/ and a foreground load (GET and PUT
# half and half, at a fixed request rate, on a bucket of its own) is
# measured twice, each run on a fresh foreground bucket:
#
#   idle     the worker makes its passes (every second) but the N objects'
#            bucket has no rule: nothing to do;
#   running  an Expiration rule (Days 1, prefix exp/; a lifecycle day is a
#            second here, so every object is due) is put on that bucket
#            just before the run: the worker expires the N objects while
#            the load runs.
#
# At a fixed rate both runs offer the same load, so their latencies compare;
# the worker must still be busy when the second run ends (the script says
# how many objects it expired meanwhile; raise N if it finished early).
#
#   bench/lifecycle.sh                               # N=300000, 20 s runs
#   N=1000000 DURATION=60s RATE=500 bench/lifecycle.sh
#   N=2000 DURATION=3s RATE=100 bench/lifecycle.sh   # a quick check
#
# Results: $OUT (bench/results/<date>-lifecycle/) holds idle.json and
# running.json, the worker's pass summaries are in passes.log; the table printed at the end gives
# p50/p99 of GET and PUT in both runs and their ratio. Needs the AWS CLI
# and jq.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-300000}
DURATION=${DURATION:-20s}
RATE=${RATE:-300}
SIZE=${SIZE:-4KiB}
CONCURRENCY=${CONCURRENCY:-16}
OUT=${OUT:-bench/results/$(date -u +%F)-lifecycle}
ADDR=127.0.0.1:${PORT:-9418}
mkdir -p "$OUT"
. bench/jogserver.sh
start_jog --lifecycle-day 1s --lifecycle-interval 1s # its log has a line per expired object: not kept
bench() { "$bin" bench "$@" --endpoint "http://$ADDR" --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" --quiet; }
expired() { grep -c 'lifecycle: object expired' "$log" || true; }

echo "$(date -u +%T) writing $N objects of 1 KiB under exp/"
aws_s3 create-bucket --bucket lc-expire
bench put --bucket lc-expire --prefix exp/ --size 1KiB --concurrency 16 --ops "$N" --no-cleanup >/dev/null
sleep 2 # every object older than a lifecycle day (a second), rounded up

fg() { # name
	bench mixed --mix get=1,put=1 --objects 500 --size "$SIZE" --concurrency "$CONCURRENCY" --rate "$RATE" \
		--duration "$DURATION" --label "jog-lifecycle-$1" --server-pid "$pid" --out "$OUT/$1.json" >/dev/null
	echo "$(date -u +%T) $1 run done, load $(cut -d' ' -f1 /proc/loadavg), objects expired so far $(expired)"
}
fg idle
before=$(expired)
aws_s3 put-bucket-lifecycle-configuration --bucket lc-expire --lifecycle-configuration \
	'{"Rules":[{"ID":"exp","Status":"Enabled","Filter":{"Prefix":"exp/"},"Expiration":{"Days":1}}]}'
fg running
# Expirations logged within the measured time of the running run (its
# objects are prepared first, unmeasured, while the worker already works).
from=$(date -d "$(jq -r '.results[0].start' "$OUT/running.json")" +%s%3N)
to=$(date -d "$(jq -r '.results[0].end' "$OUT/running.json")" +%s%3N)
times=$(grep 'lifecycle: object expired' "$log" | sed 's/^time=\([^ ]*\).*/\1/' | date -f - +%s%3N || true)
during=$(awk -v a="$from" -v b="$to" '$1 >= a && $1 <= b { n++ } END { print n + 0 }' <<<"$times")
last=$(tail -n 1 <<<"$times")
if [ "$(expired)" -ge "$((N + before))" ] && [ "${last:-0}" -lt "$to" ]; then
	echo "warning: the worker expired all $N objects before the running run ended; raise N for a clean measurement" >&2
fi
grep 'lifecycle pass' "$log" >"$OUT/passes.log" || true

echo
echo "foreground ${RATE} req/s (GET/PUT 1:1, $SIZE, up to $CONCURRENCY in flight), $DURATION per run;"
echo "the worker expired $during of $N objects during the running run's measured time ($(expired) in all)"
echo
printf '| op | idle p50 ms | idle p99 ms | running p50 ms | running p99 ms | p99 ratio | idle obj/s | running obj/s |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
for op in GET PUT; do
	q='.results[0].ops[] | select(.op == $op) | "\(.latency.p50_ms) \(.latency.p99_ms) \(.obj_per_sec)"'
	read -r i50 i99 iops < <(jq -r --arg op "$op" "$q" "$OUT/idle.json")
	read -r r50 r99 rops < <(jq -r --arg op "$op" "$q" "$OUT/running.json")
	awk -v op="$op" -v i50="$i50" -v i99="$i99" -v r50="$r50" -v r99="$r99" -v iops="$iops" -v rops="$rops" \
		'BEGIN { printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f |\n", op, i50, i99, r50, r99, (i99 > 0 ? r99 / i99 : 0), iops, rops }'
done
