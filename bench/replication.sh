#!/usr/bin/env bash
# Bucket replication's cost on the source (issue 40): PUT 1 KiB and PUT
# 1 MiB at concurrency 16 into a versioned bucket on one source JOG, with a
# replication rule to a second JOG on this machine (on) and without one
# (off), taking turns (the first kind alternates from pair to pair). The
# server CPU per operation jog bench reports is the source's; lag.tsv adds
# the destination's (it shares the cores), counted from the run's start
# until the backlog drained. After each "on" run the script waits for the queue to drain
# and records the lag of the run's versions, from queueing to the
# destination's answer: p50 and p99 as Prometheus's histogram_quantile
# computes them from the run's share of jog_replication_lag_seconds, and
# how long the backlog took to drain after the load stopped. Two more
# runs put at a steady rate below the saturating one (RATE_1KIB, RATE_1MIB
# requests/s) with replication on: the lag of a steady load.
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
serve() { # addr dir [flags...]: started server's PID in $last
	local addr=$1 dir=$2
	shift 2
	"$bin" server --addr "$addr" --data-dir "$dir" --access-key "$AWS_ACCESS_KEY_ID" \
		--secret-key "$AWS_SECRET_ACCESS_KEY" --lifecycle-interval 0 "$@" >"$dir.log" 2>&1 &
	last=$!
}
mkdir -p "$tmp/src" "$tmp/dst"
serve "$DST" "$tmp/dst"
dpid=$last
serve "$SRC" "$tmp/src" --replication-target "dr=http://$DST" --metrics-public
spid=$last
trap 'kill $spid $dpid; wait $spid $dpid 2>/dev/null || true; rm -rf "$tmp"' EXIT
for a in $SRC $DST; do
	for _ in $(seq 100); do curl -s -o /dev/null "http://$a/" && break; sleep 0.1; done
done
s3() { aws --endpoint-url "http://$1" s3api "${@:2}" >/dev/null; }
metric() { # name: the source's value of a jog_replication_* series of target dr
	curl -s "http://$SRC/metrics" | awk -v n="$1" '$1 ~ "^"n"[{]" { print $2; exit }'
}
lags() { curl -s "http://$SRC/metrics" | grep '^jog_replication_lag_seconds_bucket' >"$1"; }
quantiles() { # before after: p50 and p99 of the lags observed between two lags snapshots
	python3 - "$1" "$2" <<'PY'
import re, sys
def read(f):
    return {float(m.group(1)): float(v) for line in open(f) for m, v in [(re.search(r'le="([^"]+)"', line), line.split()[-1])] if m}
a, b = read(sys.argv[1]), read(sys.argv[2])
les = sorted(b)
d = [b[le] - a.get(le, 0) for le in les]
total = d[-1]
def q(p):
    if total == 0:
        return "-"
    rank, prev_le, prev = p * total, 0.0, 0.0
    for le, c in zip(les, d):
        if c >= rank:
            if le == float("inf"):
                return ">%g" % prev_le
            return "%.3f" % (prev_le + (le - prev_le) * (rank - prev) / max(c - prev, 1e-9))
        prev_le, prev = le, c
print(q(0.5), q(0.99))
PY
}
s3 "$DST" create-bucket --bucket copy
s3 "$DST" put-bucket-versioning --bucket copy --versioning-configuration Status=Enabled
rules=$tmp/rules.json
cat >"$rules" <<'EOF'
{"Role": "arn:aws:iam::1:role/r", "Rules": [{"ID": "all", "Priority": 1, "Status": "Enabled", "Filter": {"Prefix": ""},
  "DeleteMarkerReplication": {"Status": "Enabled"}, "Destination": {"Bucket": "arn:jog:replication::dr:copy"}}]}
EOF
printf 'run\tsent_total\tlag_p50_s\tlag_p99_s\tdrain_s\tdst_cpu_s\n' >"$OUT/lag.tsv"
cpu() { awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat"; } # user+system seconds (USER_HZ 100)
n=0
run() { # kind size pair [bench flags...]
	n=$((n + 1))
	local b="rb-$1-$3-$n" name="$1-put-$2-p$3" kind=$1 size=$2
	shift 3
	s3 "$SRC" create-bucket --bucket "$b"
	s3 "$SRC" put-bucket-versioning --bucket "$b" --versioning-configuration Status=Enabled
	if [ "$kind" != off ]; then
		s3 "$SRC" put-bucket-replication --bucket "$b" --replication-configuration "file://$rules"
	fi
	local c0
	c0=$(cpu "$dpid")
	lags "$tmp/lags0"
	"$bin" bench put --endpoint "http://$SRC" --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" \
		--bucket "$b" --size "$size" --concurrency 16 --duration "$DURATION" --label "jog-repl-$kind" --no-cleanup \
		--server-pid "$spid" --quiet --out "$OUT/$name.json" "$@" >/dev/null
	if [ "$kind" != off ]; then
		local t0 drained
		t0=$(date +%s.%N)
		for _ in $(seq 1200); do
			[ "$(metric jog_replication_pending)" = 0 ] && break
			sleep 0.1
		done
		drained=$(echo "$(date +%s.%N) - $t0" | bc)
		lags "$tmp/lags1"
		read -r p50 p99 < <(quantiles "$tmp/lags0" "$tmp/lags1")
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$(metric jog_replication_sent_total)" "$p50" "$p99" \
			"$drained" "$(echo "$(cpu "$dpid") - $c0" | bc)" >>"$OUT/lag.tsv"
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
# Paced: a steady rate the source sustains with replication on (about
# half of what c16 reaches without it), where the lag is what a
# steady load sees rather than a backlog growing under a saturating one.
run paced 1KiB 1 --rate "${RATE_1KIB:-400}"
run paced 1MiB 1 --rate "${RATE_1MIB:-40}"
"$bin" bench compare --baseline jog-repl-off "$OUT"/{on,off}-*.json
column -t "$OUT/lag.tsv"
