#!/usr/bin/env bash
# Bucket replication's cost on the source (issue 40): PUT 1 KiB and PUT
# 1 MiB at concurrency 16 into a versioned bucket on one source JOG, with a
# replication rule to a second JOG on this machine (on) and without one
# (off), taking turns (the first kind alternates from pair to pair). The
# CPU per operation is the two servers' together (the destination shares
# the cores). After each "on" run the script waits for the queue to drain
# and records the lag: p50/p99/max from queueing to the destination's
# answer over the last 4096 versions sent (jog_replication_lag_seconds),
# and how long the backlog took to drain after the load stopped.
#
#   bench/replication.sh                        # 2 pairs, 8 s per run
#   PAIRS=3 DURATION=10s bench/replication.sh
#
# Results: $OUT (bench/results/<date>-replication/) holds one JSON file
# per run, <kind>-put-<size>-p<pair>.json, and lag.tsv; `jog bench compare
# --baseline jog-repl-off $OUT/*.json` gives the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-2}
DURATION=${DURATION:-8s}
OUT=${OUT:-bench/results/$(date -u +%F)-replication}
SRC=127.0.0.1:${PORT:-9420}
DST=127.0.0.1:$(( ${PORT:-9420} + 10 )) # each console takes its port + 1
mkdir -p "$OUT"
export AWS_ACCESS_KEY_ID=benchkey AWS_SECRET_ACCESS_KEY=benchsecret AWS_DEFAULT_REGION=us-east-1
export JOG_REPLICATION_DR_ACCESS_KEY=$AWS_ACCESS_KEY_ID JOG_REPLICATION_DR_SECRET_KEY=$AWS_SECRET_ACCESS_KEY
tmp=$(mktemp -d)
bin=$tmp/jog
go build -o "$bin" ./cmd/jog
serve() { # addr dir [flags...]
	local addr=$1 dir=$2
	shift 2
	"$bin" server --addr "$addr" --data-dir "$dir" --access-key "$AWS_ACCESS_KEY_ID" \
		--secret-key "$AWS_SECRET_ACCESS_KEY" --lifecycle-interval 0 "$@" >"$dir.log" 2>&1 &
	echo $!
}
mkdir -p "$tmp/src" "$tmp/dst"
dpid=$(serve "$DST" "$tmp/dst")
spid=$(serve "$SRC" "$tmp/src" --replication-target "dr=http://$DST" --metrics-public)
trap 'kill $spid $dpid; wait $spid $dpid 2>/dev/null; rm -rf "$tmp"' EXIT
for a in $SRC $DST; do
	for _ in $(seq 100); do curl -s -o /dev/null "http://$a/" && break; sleep 0.1; done
done
s3() { aws --endpoint-url "http://$1" s3api "${@:2}" >/dev/null; }
metric() { # name quantile|"" : the source's value of a jog_replication_* series
	curl -s "http://$SRC/metrics" | awk -v n="$1" -v q="$2" '
		$1 ~ "^"n"[{]" && (q == "" || index($1, "quantile=\""q"\"")) { print $2; exit }'
}
s3 "$DST" create-bucket --bucket copy
s3 "$DST" put-bucket-versioning --bucket copy --versioning-configuration Status=Enabled
rules=$tmp/rules.json
cat >"$rules" <<'EOF'
{"Role": "arn:aws:iam::1:role/r", "Rules": [{"ID": "all", "Priority": 1, "Status": "Enabled", "Filter": {"Prefix": ""},
  "DeleteMarkerReplication": {"Status": "Enabled"}, "Destination": {"Bucket": "arn:jog:replication::dr:copy"}}]}
EOF
printf 'run\tops\tlag_p50_s\tlag_p99_s\tlag_max_s\tdrain_s\n' >"$OUT/lag.tsv"
n=0
run() { # kind size pair
	n=$((n + 1))
	local b="rb-$1-$3-$n" name="$1-put-$2-p$3"
	s3 "$SRC" create-bucket --bucket "$b"
	s3 "$SRC" put-bucket-versioning --bucket "$b" --versioning-configuration Status=Enabled
	if [ "$1" = on ]; then
		s3 "$SRC" put-bucket-replication --bucket "$b" --replication-configuration "file://$rules"
	fi
	"$bin" bench put --endpoint "http://$SRC" --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" \
		--bucket "$b" --size "$2" --concurrency 16 --duration "$DURATION" --label "jog-repl-$1" --no-cleanup \
		--server-pid "$spid,$dpid" --quiet --out "$OUT/$name.json" >/dev/null
	if [ "$1" = on ]; then
		local t0 drained
		t0=$(date +%s.%N)
		for _ in $(seq 1200); do
			[ "$(metric jog_replication_pending "")" = 0 ] && break
			sleep 0.1
		done
		drained=$(echo "$(date +%s.%N) - $t0" | bc)
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$(metric jog_replication_sent_total "")" \
			"$(metric jog_replication_lag_seconds 0.5)" "$(metric jog_replication_lag_seconds 0.99)" \
			"$(metric jog_replication_lag_seconds 1)" "$drained" >>"$OUT/lag.tsv"
	fi
	echo "$(date -u +%T) $name load $(cut -d' ' -f1 /proc/loadavg)"
}
for p in $(seq 1 "$PAIRS"); do
	kinds="off on"
	if [ $((p % 2)) = 0 ]; then kinds="on off"; fi
	for s in 1KiB 1MiB; do
		for k in $kinds; do run "$k" "$s" "$p"; done
	done
done
"$bin" bench compare --baseline jog-repl-off "$OUT"/*.json
column -t "$OUT/lag.tsv"
