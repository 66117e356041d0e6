#!/usr/bin/env bash
# CPU profiles of a JOG server under each seed workload: for every workload
# a fresh server (fsync always) over a fresh data dir, `jog bench` for
# $CELL (20 s) at concurrency $CONCURRENCY (16), and a `pprof` CPU profile of
# the server taken from its --debug-addr over $PTIME (12 s), starting $PREP
# (5 s) into the run, so that preparing objects stays out of it.
#
#   bench/profile.sh                          # every workload below
#   WORKLOADS="mixed put-1MiB" bench/profile.sh
#   BENCH_ARGS="--keys warp --signing streaming" WORKLOADS=put-1KiB bench/profile.sh
#                                             # another client's traffic shape
#
# Workloads: mixed (GET 70 / PUT 30, 1 MiB), put-<size> and get-<size> for
# 1KiB 64KiB 1MiB 16MiB, list (1,000-key pages over 10,000 objects),
# multipart (64 MiB objects, 8 MiB parts, 4 × 4 in flight).
#
# Writes to $OUT (bench/results/<date>-profiles): <workload>.pprof (open
# with `go tool pprof -http : <file>`; the functions are named inside, no
# binary needed), <workload>.txt (the bench report, with the server's CPU
# per operation) and PROFILES.md: per workload the throughput, the CPU per
# operation and the functions with the most CPU of their own.
set -euo pipefail
cd "$(dirname "$0")/.."

CELL=${CELL:-20s}
PREP=${PREP:-5}
PTIME=${PTIME:-12}
CONCURRENCY=${CONCURRENCY:-16}
TOP=${TOP:-12}
PORT=${PORT:-19300}
DEBUG_PORT=$((PORT + 1))
OUT=${OUT:-bench/results/$(date -u +%Y-%m-%d)-profiles}
WORKLOADS=${WORKLOADS:-mixed put-1KiB put-64KiB put-1MiB put-16MiB get-1KiB get-64KiB get-1MiB get-16MiB list multipart}
AK=jogbenchaccess0001
SK=jogbenchsecret00000000000000000001

log() { echo "== $*" >&2; }

mkdir -p "$OUT"
bin=$(mktemp -d "${TMPDIR:-/tmp}/jog-profile-bin.XXXXXX")
go build -o "$bin/jog" ./cmd/jog
pid='' data=''
stop_server() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
  fi
  if [ -n "$data" ]; then
    rm -rf "$data" "$data.log"
    data=
  fi
}
trap 'stop_server; rm -rf "$bin"' EXIT

# shellcheck disable=SC2054 # get=70,put=30 is one argument
args_for() {
  case $1 in
    mixed) echo mixed --size 1MiB --objects 1000 --mix get=70,put=30 ;;
    put-*) echo put --size "${1#put-}" ;;
    get-16MiB) echo get --size 16MiB --objects 32 ;;
    get-*) echo get --size "${1#get-}" --objects 200 ;;
    list) echo list --size 1KiB --objects 10000 ;;
    multipart) echo multipart --size 64MiB --part-size 8MiB --part-concurrency 4 ;;
    *) return 1 ;;
  esac
}

{
  echo "# CPU profiles of the JOG server, $(date -u +%Y-%m-%d)"
  echo
  echo "jog $(git rev-parse --short HEAD), --fsync always; $(nproc) cores, $(uname -sm), $(go version | cut -d' ' -f3)."
  echo "Each workload: a fresh server, \`jog bench\` for $CELL at concurrency $CONCURRENCY, a CPU"
  echo "profile of the server over ${PTIME}s from ${PREP}s into the run. Load average before each run in"
  echo "brackets. \"Own\" is a function's CPU without the functions it calls, \"with callees\""
  echo "including them (time in system calls counts: a profile samples CPU time), both as a"
  echo "share of the profile's samples; the .pprof files hold the call graphs."
} >"$OUT/PROFILES.md"

# rows COL: `go tool pprof -top` lines as table rows: column COL (2, flat%;
# 5, cum%) and the function.
rows() {
  awk -v c="$1" '$1 ~ /^[0-9]/ && $2 ~ /%$/ && $5 ~ /%$/ && $c != "0%" { fn = $6; for (i = 7; i <= NF; i++) fn = fn " " $i; print "| " $c " | `" fn "` |" }'
}

for wl in $WORKLOADS; do
  a=$(args_for "$wl") || { log "unknown workload $wl"; exit 2; }
  read -r -a args <<<"$a"
  log "$wl"
  data=$(mktemp -d "${TMPDIR:-/tmp}/jog-profile-data.XXXXXX")
  load=$(cut -d' ' -f1 /proc/loadavg)
  "$bin/jog" server --addr "127.0.0.1:$PORT" --debug-addr "127.0.0.1:$DEBUG_PORT" --data-dir "$data" \
    --access-key "$AK" --secret-key "$SK" --log-level warn >"$data.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.2
  done
  "$bin/jog" bench "${args[@]}" --endpoint "http://127.0.0.1:$PORT" --access-key "$AK" --secret-key "$SK" \
    --concurrency "$CONCURRENCY" --duration "$CELL" --server-pid "$pid" --label jog --quiet ${BENCH_ARGS:-} \
    --out "$OUT/$wl.json" >"$OUT/$wl.txt" &
  bench=$!
  sleep "$PREP"
  curl -sf -o "$OUT/$wl.pprof" "http://127.0.0.1:$DEBUG_PORT/debug/pprof/profile?seconds=$PTIME"
  wait "$bench"
  stop_server
  {
    echo
    echo "## $wl [load $load]"
    echo
    grep -E '^ +(op +count|TOTAL|CPU ms per op)' "$OUT/$wl.txt" | sed -E 's/^ +/    /'
    echo
    echo "| own | function |"
    echo "|---:|---|"
    go tool pprof -top -nodecount="$TOP" "$OUT/$wl.pprof" 2>/dev/null | rows 2
    echo
    echo "| with callees | JOG function |"
    echo "|---:|---|"
    go tool pprof -top -cum -show='jogstore/jog/' -nodecount="$TOP" "$OUT/$wl.pprof" 2>/dev/null | rows 5
  } >>"$OUT/PROFILES.md"
done
log "done: $OUT/PROFILES.md"
