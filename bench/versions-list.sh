#!/usr/bin/env bash
# Listing in a bucket full of versions (issue 20, item 6): a ListObjectsV2
# page must cost the same whether or not the bucket also holds noncurrent
# versions and keys whose latest version is a delete marker, and a
# ListObjectVersions page of 1,000 there must have p50 < 10 ms. One JOG
# server, two buckets, prepared once (`jog bench list --prepare-only`):
#
#   plain      LIVE keys (s/obj/<i>), one version each, versioning never set;
#   versioned  the same LIVE keys, each written NONCURRENT_PER_KEY+1 times
#              (so LIVE × NONCURRENT_PER_KEY noncurrent versions), and
#              MARKERS more keys among them written once and then deleted
#              (their latest version is a delete marker).
#
# Then PAIRS pairs, each: `jog bench list` (ListObjectsV2, 1,000-key pages,
# wrapping around) on plain and on versioned, taking turns (the first
# alternates from pair to pair), and `jog bench list-versions`
# (ListObjectVersions, 1,000 entries a page) on versioned; every run
# measures the prepared buckets (--prepared) and changes nothing.
#
#   bench/versions-list.sh          # 100,000 live, 1,000,000 noncurrent, 100,000 markers
#   LIVE=2000 NONCURRENT_PER_KEY=3 MARKERS=200 DURATION=3s PAIRS=2 bench/versions-list.sh  # a quick check
#
# CONCURRENCY (1) is the listing clients: one client measures what a page
# costs without queueing behind other requests; CONCURRENCY=16 measures
# pages/s with the server's cores busy. Results: $OUT
# (bench/results/<date>-versions-list/) holds one JSON file per run,
# <workload>-<bucket>-p<pair>.json; the table at the end gives the
# ListObjectsV2 pages/s ratio (versioned over plain) per pair and p50/p99
# of both, and ListObjectVersions p50/p99 against the 10 ms target. Needs
# jq.
set -euo pipefail
cd "$(dirname "$0")/.."
LIVE=${LIVE:-100000}
NONCURRENT_PER_KEY=${NONCURRENT_PER_KEY:-10}
MARKERS=${MARKERS:-100000}
PAIRS=${PAIRS:-3}
DURATION=${DURATION:-10s}
CONCURRENCY=${CONCURRENCY:-1}
OUT=${OUT:-bench/results/$(date -u +%F)-versions-list}
ADDR=127.0.0.1:${PORT:-9419}
mkdir -p "$OUT"
. bench/jogserver.sh
start_jog --lifecycle-interval 0
bench() { # workload bucket [flags...]
	local wl=$1 b=$2
	shift 2
	"$bin" bench "$wl" --endpoint "http://$ADDR" --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" \
		--bucket "$b" --prefix s/ --objects "$LIVE" --size 1 --quiet "$@" >/dev/null
}
shape=(--versions $((NONCURRENT_PER_KEY + 1)) --delete-markers "$MARKERS")

echo "$(date -u +%T) preparing plain: $LIVE keys"
bench list plain --prepare-only
echo "$(date -u +%T) preparing versioned: $LIVE keys × $((NONCURRENT_PER_KEY + 1)) versions, $MARKERS keys under a delete marker"
bench list versioned --prepare-only "${shape[@]}"
echo "$(date -u +%T) prepared; $(du -sh "$data" | cut -f1) on disk"

run() { # workload bucket pair
	local flags=()
	if [ "$2" = versioned ]; then flags=("${shape[@]}"); fi
	bench "$1" "$2" --prepared --list-max-keys 1000 --concurrency "$CONCURRENCY" --duration "$DURATION" \
		--label "jog-$2" --server-pid "$pid" --out "$OUT/$1-$2-p$3.json" "${flags[@]}"
	echo "$(date -u +%T) $1 $2 pair $3 load $(cut -d' ' -f1 /proc/loadavg)"
}
for p in $(seq 1 "$PAIRS"); do
	buckets="plain versioned"
	if [ $((p % 2)) = 0 ]; then buckets="versioned plain"; fi
	for b in $buckets; do run list "$b" "$p"; done
	run list-versions versioned "$p"
done

# field file op jq-path: one number from a result file.
field() { jq -r --arg op "$2" ".results[0].ops[] | select(.op == \$op) | $3" "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo
echo "$LIVE live keys; versioned also holds $((LIVE * NONCURRENT_PER_KEY)) noncurrent versions and $MARKERS keys under a delete marker;"
echo "1,000-entry pages, concurrency $CONCURRENCY, $DURATION per run, $PAIRS pairs"
echo
printf '| pair | ListObjectsV2 plain pages/s | versioned pages/s | ratio versioned/plain | plain p50 / p99 ms | versioned p50 / p99 ms | ListObjectVersions pages/s | p50 / p99 ms |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
ratios=() lv50=()
for p in $(seq 1 "$PAIRS"); do
	pl=$OUT/list-plain-p$p.json ve=$OUT/list-versioned-p$p.json lv=$OUT/list-versions-versioned-p$p.json
	pr=$(field "$pl" LIST .obj_per_sec) vr=$(field "$ve" LIST .obj_per_sec) lr=$(field "$lv" LIST-VERSIONS .obj_per_sec)
	ratio=$(awk -v a="$vr" -v b="$pr" 'BEGIN { printf "%.3f", a / b }')
	ratios+=("$ratio") lv50+=("$(field "$lv" LIST-VERSIONS .latency.p50_ms)")
	printf '| %d | %.1f | %.1f | %s | %.2f / %.2f | %.2f / %.2f | %.1f | %.2f / %.2f |\n' "$p" "$pr" "$vr" "$ratio" \
		"$(field "$pl" LIST .latency.p50_ms)" "$(field "$pl" LIST .latency.p99_ms)" \
		"$(field "$ve" LIST .latency.p50_ms)" "$(field "$ve" LIST .latency.p99_ms)" \
		"$lr" "${lv50[-1]}" "$(field "$lv" LIST-VERSIONS .latency.p99_ms)"
done
r=$(printf '%s\n' "${ratios[@]}" | median) l=$(printf '%s\n' "${lv50[@]}" | median)
echo
echo "median ListObjectsV2 pages/s ratio, versioned over plain: $r (target: the same cost, 1.0)"
awk -v l="$l" 'BEGIN { printf "median ListObjectVersions p50: %.2f ms (target < 10 ms: %s)\n", l, (l < 10 ? "met" : "not met") }'
