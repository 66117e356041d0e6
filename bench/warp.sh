#!/usr/bin/env bash
# The peer comparison as a new user would run it: MinIO's warp (the seed
# report's tool) against JOG, versitygw, rclone serve s3 and MinIO, all on
# loopback on this machine. Issue 41's table: six cells at concurrency 16,
# $DURATION (20 s) each, $ROUNDS (3) rounds with the servers' order rotated.
#
#   bench/warp.sh
#   PEERS="jog versitygw" ROUNDS=1 DURATION=10s bench/warp.sh
#   CELLS="get-1KiB put-1KiB" bench/warp.sh
#
# Cells (warp's own commands; objects prepared by warp where it needs them):
#   get-1KiB    warp get   --obj.size 1KiB --objects 2500
#   put-1KiB    warp put   --obj.size 1KiB
#   put-1MiB    warp put   --obj.size 1MiB
#   mixed-1MiB  warp mixed --obj.size 1MiB --objects 1000, GET 70 / PUT 30
#   get-1MiB    warp get   --obj.size 1MiB --objects 1000
#   list-5000   warp list  --obj.size 1KiB --objects 5000 (100-key pages,
#               warp's default; its obj/s counts listed keys)
# Each cell runs in its own bucket with --noclear (the data dir goes when the
# server stops), so warp's run ends with its measured phase. The server's CPU
# is sampled every second from /proc; CPU per operation is its mean over the
# cell's last $DURATION less 2 s at each end, over warp's obj/s.
#
# warp: built by this script into $JOG_BENCH_CACHE/bin from v1.4.1's module
# source (v1.4.0 and the proxy's go install path are refused here; its
# madmin-go v4.6.7 is replaced by v4.6.3, the nearest version served).
# Peers from bench/peers.sh, as in bench/compare.sh. Results: $OUT/results.tsv (one line per
# server, round and cell) and $OUT/SUMMARY.md (medians, ratios against the
# best peer, CPU per operation) and $OUT/warp-output.txt (warp's own report
# of every cell, one after another; per cell in $OUT/raw/ while it runs).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${JOG_BENCH_CACHE:-$HOME/.cache/jog-bench}
BIN=$CACHE/bin
PEERS=${PEERS:-jog versitygw rclone minio}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-20s} # seconds, with the s
CELLS=${CELLS:-get-1KiB put-1KiB put-1MiB mixed-1MiB get-1MiB list-5000}
OUT=${OUT:-bench/results/$(date -u +%Y-%m-%d)-warp}
PORT=${PORT:-19500}
AK=jogbenchaccess0001
SK=jogbenchsecret00000000000000000001
WARP_VERSION=v1.4.1
JOG_FSYNC=${JOG_FSYNC:-always}
log() { echo "== $*" >&2; }

# build_warp: warp $WARP_VERSION from the module cache, with the one
# dependency the proxy refuses replaced.
build_warp() {
  [ "$(cat "$BIN/warp.module" 2>/dev/null)" = "$WARP_VERSION" ] && [ -x "$BIN/warp" ] && return 0
  local src mod
  log "building warp $WARP_VERSION"
  mod=$(cd /tmp && GONOSUMDB=github.com/minio/warp go mod download -json "github.com/minio/warp@$WARP_VERSION" | awk -F'"' '$2 == "Dir" { print $4 }')
  src=$(mktemp -d "${TMPDIR:-/tmp}/warp-src.XXXXXX")
  cp -r "$mod/." "$src" && chmod -R u+w "$src"
  (cd "$src" && go mod edit -replace github.com/minio/madmin-go/v4=github.com/minio/madmin-go/v4@v4.6.3 &&
    GOFLAGS=-mod=mod GONOSUMDB=github.com/minio go build -o "$BIN/warp" .)
  rm -rf "$src"
  echo "$WARP_VERSION" >"$BIN/warp.module"
}

. bench/peers.sh
trap stop_server EXIT

# sample PID FILE: the process's CPU ticks (user + system) once a second.
sample() {
  while kill -0 "$1" 2>/dev/null; do
    echo "$(date +%s.%N) $(awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0)"
    sleep 1
  done >"$2"
}

# cell NAME: warp's arguments for one cell.
cell() {
  local c=(--concurrent 16 --duration "$DURATION" --noclear --no-color --bucket "w-${1,,}")
  case $1 in
    get-1KiB) echo get --obj.size 1KiB --objects 2500 "${c[@]}" ;;
    put-1KiB) echo put --obj.size 1KiB "${c[@]}" ;;
    put-1MiB) echo put --obj.size 1MiB "${c[@]}" ;;
    mixed-1MiB) echo mixed --obj.size 1MiB --objects 1000 --get-distrib 70 --put-distrib 30 \
      --stat-distrib 0 --delete-distrib 0 "${c[@]}" ;;
    get-1MiB) echo get --obj.size 1MiB --objects 1000 "${c[@]}" ;;
    list-5000) echo list --obj.size 1KiB --objects 5000 "${c[@]}" ;;
  esac
}

mkdir -p "$OUT/raw" "$BIN"
build_warp
log "building jog"
go build -o "$BIN/jog" ./cmd/jog
for name in $PEERS; do [ "$name" = jog ] || install "$name"; done
[ -f "$OUT/results.tsv" ] || printf 'server\tround\tcell\tobj_s\tcpu_ms_op\tp99_ms\tload\n' >"$OUT/results.tsv"
secs=${DURATION%s}
read -r -a order <<<"$PEERS"
for round in $(seq 1 "$ROUNDS"); do
  for name in "${order[@]}"; do
    data=$(mktemp -d "${TMPDIR:-/tmp}/jog-warp-$name.XXXXXX")
    log "round $round: $name"
    start "$name" "$data" || { rm -rf "$data"; continue; }
    for c in $CELLS; do
      raw=$OUT/raw/$name-$c-r$round.txt
      sample "$SERVER_PID" "$data.cpu" &
      spid=$!
      # shellcheck disable=SC2046 # cell's words are warp's arguments
      "$BIN/warp" $(cell "$c") --host "127.0.0.1:$PORT" --access-key "$AK" --secret-key "$SK" \
        --benchdata "$data.warp" >"$raw" 2>&1 || log "$name $c: warp failed, see $raw"
      end=$(date +%s.%N)
      kill "$spid" 2>/dev/null || true
      wait "$spid" 2>/dev/null || true
      # The measured phase: the last $DURATION before warp ended, less 2 s
      # at each end; the server's CPU (ticks are 1/100 s) over it.
      cpu=$(awk -v a="$end" -v d="$secs" 'BEGIN { lo = a - d + 2; hi = a - 2 }
        $1 >= lo && $1 <= hi { if (!n++) { t0 = $1; c0 = $2 } t1 = $1; c1 = $2 }
        END { if (n > 1 && t1 > t0) printf "%.4f", (c1 - c0) / 100 / (t1 - t0); else print 0 }' "$data.cpu")
      # The Total report for mixed, the operation's own otherwise.
      ops=$(awk '/^Report: /{ r = $2 } / \* Average: / { for (i = 1; i <= NF; i++) if ($i == "obj/s") { v = $(i - 1); if (r == "Total.") t = v } }
        END { print (t != "" ? t : v + 0) }' "$raw")
      p99=$(awk '/ \* Reqs: / { for (i = 1; i <= NF; i++) if ($i == "99%:") { v = $(i + 1); sub(/,$/, "", v); print v; exit } }' "$raw")
      ms=$(awk -v c="$cpu" -v o="$ops" 'BEGIN { if (o > 0) printf "%.3f", c * 1000 / o; else print "-" }')
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$round" "$c" "$ops" "$ms" "${p99:--}" "$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/results.tsv"
      log "$name $c: $ops obj/s, $ms ms CPU/op"
      rm -f "$data.warp"*
    done
    stop_server
    rm -rf "$data" "$data.cpu"
  done
  order=("${order[@]:1}" "${order[0]}")
done

# SUMMARY.md: per cell, each server's median obj/s and CPU per operation,
# JOG's ratio to the best peer per round and by median.
{
  echo "# warp $WARP_VERSION peer comparison, $(date -u +%Y-%m-%d)"
  echo
  echo "$(nproc) cores; concurrency 16, $DURATION per cell; jog $(git rev-parse --short HEAD)."
  for name in $PEERS; do
    [ "$name" = jog ] && continue
    echo "- $name: $(go version -m "$BIN/$name" 2>/dev/null | awk '$1 == "mod" { print $3; exit }')"
  done
  echo
  awk -F'\t' 'NR > 1 { print }' "$OUT/results.tsv" | python3 -c '
import sys, statistics as st
J = "jog"
rows = [l.rstrip("\n").split("\t") for l in sys.stdin]
cells = list(dict.fromkeys(r[2] for r in rows))
servers = list(dict.fromkeys(r[0] for r in rows))
print("| cell | " + " | ".join(f"{s} obj/s · CPU ms/op" for s in servers) + " | JOG ÷ best peer, per round | median ratio | CPU: best peer ÷ JOG |")
print("|---" * (len(servers) + 4) + "|")
for c in cells:
    med, cpu, byround = {}, {}, {}
    for s in servers:
        rs = [r for r in rows if r[0] == s and r[2] == c and float(r[3]) > 0]
        if not rs: continue
        med[s] = st.median(float(r[3]) for r in rs)
        cs = [float(r[4]) for r in rs if r[4] != "-"]
        cpu[s] = st.median(cs) if cs else float("nan")
        for r in rs: byround.setdefault(r[1], {})[s] = float(r[3])
    peers = [s for s in med if s != "jog"]
    if "jog" not in med or not peers: continue
    best = max(peers, key=lambda s: med[s])
    ratios = []
    for rnd, v in sorted(byround.items()):
        p = [v[s] for s in v if s != "jog"]
        if "jog" in v and p: ratios.append(v["jog"] / max(p))
    cols = " | ".join(f"{med[s]:,.0f} · {cpu[s]:.3f}" if s in med else "—" for s in servers)
    rr = " / ".join("%.2f" % x for x in ratios)
    print(f"| {c} | {cols} | {rr} | **{st.median(ratios):.2f}** (best: {best}) | {cpu[best] / cpu[J]:.2f} |")
'
} >"$OUT/SUMMARY.md"
# One file of warp's reports instead of one per cell (bench/results/README.md).
for f in "$OUT"/raw/*.txt; do
  echo "=== $(basename "$f" .txt)"
  grep -v '^$' "$f"
done >>"$OUT/warp-output.txt"
rm -rf "$OUT/raw"
log "done: $OUT/SUMMARY.md"
