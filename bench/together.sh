#!/usr/bin/env bash
# Two builds under the same load at the same time: each serves its own
# `jog bench` client (CONCURRENCY each) on its own fresh data dir, both runs
# start together and last as long, so whatever else the machine does in
# that minute falls on both alike. Server CPU per operation is the measure
# (a build that costs less per request also serves more of them when the
# two share the cores); a single pair of runs one after the other
# (bench/abpairs.sh) moves by ±10% on a shared machine, a pair run together
# by a few per cent. The builds swap ports each round.
#
#   A=/tmp/jog-old B=/tmp/jog-new bench/together.sh 1KiB 6 get --keys warp
#   A=… B=… DURATION=15s bench/together.sh 1MiB 4 put --keys warp --signing streaming
#
# Arguments: SIZE ROUNDS WORKLOAD [more jog bench flags]. The client is B's
# `jog bench`. Prints one line per build and round (obj/s, server CPU ms per
# operation) and, at the end, the mean CPU per operation of each and B ÷ A.
# Optional: DEBUG=1 gives each server --debug-addr (its S3 port + 60) for
# profiles taken while the runs go on.
set -euo pipefail
A=${A:?the first build} B=${B:?the second build}
size=$1 rounds=$2 wl=$3
shift 3
DURATION=${DURATION:-20s}
CONCURRENCY=${CONCURRENCY:-8}
PORT=${PORT:-19600}
AK=jogbenchaccess0001 SK=jogbenchsecret00000000000000000001
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jog-together.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
for r in $(seq 1 "$rounds"); do
  pids=() benches=()
  for side in A B; do
    flip=$((r % 2))
    if [ "$side" = B ]; then flip=$((1 - flip)); fi
    port=$((PORT + 100 * flip))
    d="$tmp/$side$r"
    mkdir -p "$d"
    dbg=()
    if [ -n "${DEBUG:-}" ]; then dbg=(--debug-addr "127.0.0.1:$((port + 60))"); fi
    "${!side}" server --addr "127.0.0.1:$port" --data-dir "$d/data" --access-key "$AK" --secret-key "$SK" "${dbg[@]}" >"$d/log" 2>&1 &
    pids+=($!)
    echo "$port" >"$d/port"
  done
  for side in A B; do
    port=$(cat "$tmp/$side$r/port")
    for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  done
  i=0
  for side in A B; do
    port=$(cat "$tmp/$side$r/port")
    "$B" bench "$wl" --size "$size" --concurrency "$CONCURRENCY" --duration "$DURATION" --objects "${OBJECTS:-200}" "$@" \
      --endpoint "http://127.0.0.1:$port" --access-key "$AK" --secret-key "$SK" --server-pid "${pids[$i]}" --quiet >"$tmp/$side$r/out" 2>&1 &
    benches+=($!)
    i=$((i + 1))
  done
  wait "${benches[@]}"
  kill "${pids[@]}"
  wait "${pids[@]}" 2>/dev/null || true
  for side in A B; do
    awk -v n="$side $(basename "${!side}")" '
      /CPU ms per op/ { cpu = $6 }
      /^ +(GET|PUT|MIXED) +[0-9]/ { sub(",", "", cpu); printf "%s %s obj/s %s ms/op\n", n, $4, cpu }' "$tmp/$side$r/out" | tee -a "$tmp/lines"
  done
  rm -rf "$tmp/A$r/data" "$tmp/B$r/data"
done
awk '{ n[$1]++; s[$1] += $5 } END { if (n["A"] && n["B"]) printf "mean CPU ms/op: A %.3f B %.3f, B ÷ A %.3f over %d rounds\n", s["A"] / n["A"], s["B"] / n["B"], (s["B"] / n["B"]) / (s["A"] / n["A"]), n["A"] }' "$tmp/lines"
