#!/usr/bin/env bash
# Memory of a JOG server under load: RSS sampled every $EVERY seconds while
# `jog bench` runs $WORKLOAD on 1 MiB objects at concurrency 64 for
# $DURATION (10 minutes), fsync on, over a fresh data dir.
#
#   bench/rss.sh                        # mixed GET 60 / PUT 20 / DELETE 20, 10 min
#   DURATION=2m MIX=get=70,put=30 bench/rss.sh
#   WORKLOAD=put SIZE=1KiB CONCURRENCY=16 BENCH_ARGS="--keys warp --signing streaming" bench/rss.sh
#                                       # small PUTs as warp sends them (issue 22)
#   SERVER=versitygw ... bench/rss.sh   # the same against versitygw, installed
#                                       # by bench/compare.sh in $JOG_BENCH_CACHE
#
# The default mix deletes as much as it writes, so the data set stays near
# its 1,000 prepared objects: a mix that only adds 1 MiB objects fills the
# disk within the run (300 PUTs/s are 175 GiB in 10 minutes).
#
# Writes $OUT/rss.csv (seconds, RSS KiB, of it anonymous and file-backed),
# the bench report and rss.md: the peak, and the mean of the first and the
# last minute (flat = the two agree).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10m}
WORKLOAD=${WORKLOAD:-mixed}
CONCURRENCY=${CONCURRENCY:-64}
SIZE=${SIZE:-1MiB}
MIX=${MIX:-get=60,put=20,delete=20}
EVERY=${EVERY:-5}
SERVER=${SERVER:-jog}
BENCH_ARGS=${BENCH_ARGS:-}
PORT=${PORT:-19200}
OUT=${OUT:-bench/results/rss-$(date -u +%Y-%m-%d)}
AK=jogbenchaccess0001
SK=jogbenchsecret00000000000000000001

mkdir -p "$OUT"
bin=$(mktemp -d "${TMPDIR:-/tmp}/jog-rss-bin.XXXXXX")
data=$(mktemp -d "${TMPDIR:-/tmp}/jog-rss-data.XXXXXX")
go build -o "$bin/jog" ./cmd/jog
if [ "$SERVER" = versitygw ]; then
  "${JOG_BENCH_CACHE:-$HOME/.cache/jog-bench}/bin/versitygw" --quiet --access "$AK" --secret "$SK" \
    --port "127.0.0.1:$PORT" posix "$data" >"$data.log" 2>&1 &
else
  "$bin/jog" server --addr "127.0.0.1:$PORT" --data-dir "$data" --access-key "$AK" --secret-key "$SK" \
    --log-level warn >"$data.log" 2>&1 &
fi
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$data" "$bin"' EXIT
for _ in $(seq 1 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.2
done

echo "seconds,rss_kib,anon_kib,file_kib" >"$OUT/rss.csv"
(
  t0=$(date +%s)
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ { r = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 } END { if (r) print r "," a "," f }' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(($(date +%s) - t0)),$rss" >>"$OUT/rss.csv"
    sleep "$EVERY"
  done
) &
sampler=$!

# shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
"$bin/jog" bench "$WORKLOAD" --endpoint "http://127.0.0.1:$PORT" --access-key "$AK" --secret-key "$SK" \
  --size "$SIZE" --concurrency "$CONCURRENCY" --duration "$DURATION" --mix "$MIX" --quiet $BENCH_ARGS \
  --label "$SERVER" --server-pid "$pid" --no-cleanup --out "$OUT/bench.json" >"$OUT/bench.txt"
kill $sampler 2>/dev/null || true

shape="$WORKLOAD $BENCH_ARGS"
[ "$WORKLOAD" = mixed ] && shape="$WORKLOAD $MIX $BENCH_ARGS"
awk -F, -v server="$SERVER" -v dur="$DURATION" -v wl="$shape" -v c="$CONCURRENCY" -v size="$SIZE" '
  NR == 1 { next }
  { t[NR] = $1; r[NR] = $2; if ($2 > peak) { peak = $2; pa = $3; pf = $4 }; last = $1; n = NR }
  END {
    for (i = 2; i <= n; i++) {
      if (t[i] <= 60) { fs += r[i]; fn++ }
      if (t[i] >= last - 60) { ls += r[i]; ln++ }
    }
    printf "# %s server RSS, %s %s at concurrency %d for %s\n\n", server, wl, size, c, dur
    printf "| peak (anonymous + file-backed) | mean, first minute | mean, last minute | samples |\n|---:|---:|---:|---:|\n"
    printf "| %.1f MiB (%.1f + %.1f) | %.1f MiB | %.1f MiB | %d |\n", peak / 1024, pa / 1024, pf / 1024, fs / fn / 1024, ls / ln / 1024, n - 1
  }' "$OUT/rss.csv" >"$OUT/rss.md"
cat "$OUT/rss.md"
