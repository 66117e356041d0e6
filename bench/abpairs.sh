#!/usr/bin/env bash
# Alternating pairs: the build before (jog-base) and this build (jog) take
# turns on one cell, each run on a fresh server and data dir, so a drift of
# the machine shows in both. Uses the binaries bench/compare.sh built into
# $JOG_BENCH_CACHE/bin (run it with BASE=<rev> PEERS="jog jog-base" first),
# or any two builds given as A and B.
#
#   bench/abpairs.sh SIZE CONCURRENCY PAIRS [WORKLOAD]     # e.g. 64KiB 16 3 get
#   A=/tmp/jog-x B=/tmp/jog-y DURATION=30s OBJECTS=5000 BENCH_ARGS="--keys warp --signing streaming" \
#     bench/abpairs.sh 1KiB 16 3 put
#   A=$BIN/jog B=$BIN/jog B_ARGS="--sse AES256" bench/abpairs.sh 1MiB 4 5 put
#                                  # one build, unencrypted against SSE-S3
#
# Prints one line per run: server, obj/s, server CPU ms per operation, and
# the server's peak RSS during the run in MiB (anonymous + file-backed,
# sampled every second from /proc).
set -euo pipefail
BIN=${JOG_BENCH_CACHE:-$HOME/.cache/jog-bench}/bin
A=${A:-$BIN/jog-base} B=${B:-$BIN/jog}
DURATION=${DURATION:-6s}
BENCH_ARGS=${BENCH_ARGS:-}
A_ARGS=${A_ARGS:-} B_ARGS=${B_ARGS:-} # more flags for A's runs, B's runs
size=$1 conc=$2 pairs=$3 wl=${4:-get}
PORT=${PORT:-19300}
AK=jogbenchaccess0001 SK=jogbenchsecret00000000000000000001
for _ in $(seq 1 "$pairs"); do
  for side in A B; do
    bin=${!side} side_args=$A_ARGS
    [ "$side" = B ] && side_args=$B_ARGS
    d=$(mktemp -d "${TMPDIR:-/tmp}/jog-ab.XXXXXX")
    "$bin" server --addr "127.0.0.1:$PORT" --data-dir "$d" --access-key "$AK" --secret-key "$SK" >"$d.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
    (
      peak=0 pa=0 pf=0
      while kill -0 "$pid" 2>/dev/null; do
        read -r r a f < <(awk '/^VmRSS:/ { r = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 } END { print r+0, a+0, f+0 }' "/proc/$pid/status" 2>/dev/null || echo 0 0 0)
        [ "$r" -gt "$peak" ] && peak=$r pa=$a pf=$f
        echo "$peak $pa $pf" >"$d.rss"
        sleep 1
      done
    ) &
    sampler=$!
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
    out=$("$B" bench "$wl" --size "$size" --concurrency "$conc" --duration "$DURATION" --objects "${OBJECTS:-200}" $BENCH_ARGS $side_args \
      --endpoint "http://127.0.0.1:$PORT" --access-key "$AK" --secret-key "$SK" --server-pid "$pid" --quiet)
    echo "$out" | awk -v n="$(basename "$bin")${side_args:+ $side_args}" -v rss="$(cat "$d.rss" 2>/dev/null)" '
      /CPU ms per op/ { cpu = $6 }
      /^ +(GET|PUT|MIXED) +[0-9]/ { sub(",", "", cpu); split(rss, m, " "); printf "%s %s %s rss %.1f (%.1f + %.1f)\n", n, $4, cpu, m[1] / 1024, m[2] / 1024, m[3] / 1024 }'
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    kill "$sampler" 2>/dev/null || true
    rm -rf "$d" "$d.log" "$d.rss"
  done
done
