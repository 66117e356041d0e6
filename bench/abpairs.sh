#!/usr/bin/env bash
# Alternating pairs: the build before (jog-base) and this build (jog) take
# turns on one cell, each run on a fresh server and data dir, so a drift of
# the machine shows in both. Uses the binaries bench/compare.sh built into
# $JOG_BENCH_CACHE/bin (run it with BASE=<rev> PEERS="jog jog-base" first).
#
#   bench/abpairs.sh SIZE CONCURRENCY PAIRS [WORKLOAD]     # e.g. 64KiB 16 3 get
#
# Prints one line per run: server, obj/s, server CPU ms per operation.
set -euo pipefail
BIN=${JOG_BENCH_CACHE:-$HOME/.cache/jog-bench}/bin
size=$1 conc=$2 pairs=$3 wl=${4:-get}
PORT=${PORT:-19300}
AK=jogbenchaccess0001 SK=jogbenchsecret00000000000000000001
for _ in $(seq 1 "$pairs"); do
  for name in jog-base jog; do
    d=$(mktemp -d "${TMPDIR:-/tmp}/jog-ab.XXXXXX")
    "$BIN/$name" server --addr "127.0.0.1:$PORT" --data-dir "$d" --access-key "$AK" --secret-key "$SK" >"$d.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
    "$BIN/jog" bench "$wl" --size "$size" --concurrency "$conc" --duration 6s --objects 200 \
      --endpoint "http://127.0.0.1:$PORT" --access-key "$AK" --secret-key "$SK" --server-pid "$pid" --quiet |
      awk -v n="$name" '/CPU ms per op/ { cpu = $6 } /^ +(GET|PUT) +[0-9]/ { sub(",", "", cpu); print n, $4, cpu }'
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rm -rf "$d" "$d.log"
  done
done
