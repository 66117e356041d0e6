#!/usr/bin/env bash
# Versioned against unversioned buckets on one JOG server: PUT and GET of
# 1 KiB and 64 KiB objects at concurrency 16, the two kinds of bucket taking
# turns (the first kind alternates from pair to pair), each run on a fresh
# bucket created with the AWS CLI (versioning Enabled or never set).
#
#   bench/versioning.sh                      # 2 pairs, 8 s per run
#   PAIRS=3 DURATION=10s bench/versioning.sh
#   FIRST_PAIR=3 PAIRS=1 OUT=<dir> bench/versioning.sh   # one more pair
#
# Results: $OUT (bench/results/<date>-versioning/) holds one JSON file per
# run, <kind>-<workload>-<size>-p<pair>.json; `jog bench compare --baseline
# jog-unversioned $OUT/*.json` gives the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-2}
FIRST_PAIR=${FIRST_PAIR:-1}
DURATION=${DURATION:-8s}
OUT=${OUT:-bench/results/$(date -u +%F)-versioning}
ADDR=127.0.0.1:${PORT:-9417}
mkdir -p "$OUT"
. bench/jogserver.sh
start_jog --lifecycle-interval 0
n=0
run() { # kind workload size pair
	n=$((n + 1))
	local b="vb-$1-$4-$n"
	aws_s3 create-bucket --bucket "$b"
	if [ "$1" = versioned ]; then
		aws_s3 put-bucket-versioning --bucket "$b" --versioning-configuration Status=Enabled
	fi
	"$bin" bench "$2" --endpoint "http://$ADDR" --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" \
		--bucket "$b" --size "$3" --concurrency 16 --duration "$DURATION" --label "jog-$1" \
		--server-pid "$pid" --quiet --out "$OUT/$1-$2-$3-p$4.json" >/dev/null
	echo "$(date -u +%T) $1 $2 $3 pair $4 load $(cut -d' ' -f1 /proc/loadavg)"
}
for p in $(seq "$FIRST_PAIR" $((FIRST_PAIR + PAIRS - 1))); do
	kinds="unversioned versioned"
	if [ $((p % 2)) = 0 ]; then kinds="versioned unversioned"; fi
	for w in put get; do
		for s in 1KiB 64KiB; do
			for k in $kinds; do run "$k" "$w" "$s" "$p"; done
		done
	done
done
"$bin" bench compare --baseline jog-unversioned "$OUT"/*.json
