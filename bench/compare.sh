#!/usr/bin/env bash
# Peer comparison: JOG against other S3 servers that serve a local directory,
# measured with `jog bench`, all on loopback on this machine.
#
#   bench/compare.sh                 # the full seed workload set
#   QUICK=1 bench/compare.sh         # a short run to check the set-up
#   PEERS="jog minio" bench/compare.sh
#
# Peers are installed with `go install` into a cache dir ($JOG_BENCH_CACHE,
# default ~/.cache/jog-bench): versitygw v1.8.0, rclone v1.75.1 (`rclone serve
# s3`), MinIO latest. Each server starts on 127.0.0.1 with the same keys and a
# fresh data dir, runs the seed workloads, and is stopped. Results go to
# bench/results/<date>/ (one JSON file per server and workload, SUMMARY.md
# with the comparison tables, report-<set>/ with the charts; server logs stay
# in $TMPDIR). Running it
# again with PEERS=<one server> and the same OUT re-measures that server and
# rewrites the summary over every server's files.
#
# The seed workload set (docs/BENCHMARKS.md):
#   1. mixed GET 70 / PUT 30, 1 MiB objects, concurrency 16, $DURATION (60 s),
#      the workload of the seed comparison report (warp, same parameters);
#   2. a PUT sweep and 3. a GET sweep: concurrency 1,4,16,64 × sizes
#      1KiB,64KiB,1MiB, $CELL (20 s) per cell, from the seed benchmark guide.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${JOG_BENCH_CACHE:-$HOME/.cache/jog-bench}
BIN=$CACHE/bin
PEERS=${PEERS:-jog versitygw rclone minio}
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-bench/results/$DATE}
PORT=${PORT:-19100}
AK=jogbenchaccess0001
SK=jogbenchsecret00000000000000000001
DURATION=${DURATION:-60s}
CELL=${CELL:-20s}
CONCURRENCY=${CONCURRENCY:-1,4,16,64}
SIZES=${SIZES:-1KiB,64KiB,1MiB}
# JOG fsyncs every acknowledged write by default; set never to compare with
# servers that do not.
JOG_FSYNC=${JOG_FSYNC:-always}
if [ -n "${QUICK:-}" ]; then
  DURATION=5s CELL=2s CONCURRENCY=1,16 SIZES=1KiB,1MiB
fi

declare -A MODULE=(
  [versitygw]=github.com/versity/versitygw/cmd/versitygw@v1.8.0
  [rclone]=github.com/rclone/rclone@v1.75.1
  [minio]=github.com/minio/minio@latest
)

log() { echo "== $*" >&2; }

# install NAME: go install the peer into $BIN unless it is there already.
install() {
  local name=$1 mod=${MODULE[$1]}
  if [ -x "$BIN/$name" ] && [ "$(cat "$BIN/$name.module" 2>/dev/null)" = "$mod" ]; then
    return 0
  fi
  log "installing $mod"
  GOBIN=$BIN go install "$mod" && echo "$mod" >"$BIN/$name.module"
}

SERVER_PID=
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
}
trap stop_server EXIT

# start NAME DIR: start a server on 127.0.0.1:$PORT over DIR, wait until it
# accepts connections.
start() {
  local name=$1 dir=$2 addr=127.0.0.1:$PORT
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    log "port $PORT is already in use"
    return 1
  fi
  # exec: $! is then the server itself, which stop_server can kill.
  (
    case $name in
      jog) exec "$BIN/jog" server --addr "$addr" --data-dir "$dir" --access-key "$AK" --secret-key "$SK" --fsync "$JOG_FSYNC" ;;
      versitygw) exec "$BIN/versitygw" --quiet --access "$AK" --secret "$SK" --port "$addr" posix "$dir" ;;
      rclone) exec "$BIN/rclone" serve s3 --quiet --addr "$addr" --auth-key "$AK,$SK" "$dir" ;;
      minio) MINIO_ROOT_USER=$AK MINIO_ROOT_PASSWORD=$SK exec "$BIN/minio" server --quiet \
        --address "$addr" --console-address "127.0.0.1:$((PORT + 1))" "$dir" ;;
    esac
  ) >"$dir.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 240); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
      sleep 1 # let it finish starting behind the socket
      return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.5
  done
  log "$name did not start; see $dir.log"
  stop_server
  return 1
}

# describe NAME: one line for SUMMARY.md: version, settings, load.
describe() {
  local name=$1 version
  if [ "$name" = jog ]; then
    echo "- jog $(git rev-parse --short HEAD), --fsync $JOG_FSYNC; load ${LOAD[$name]}"
  else
    # The version go install resolved (for @latest).
    version=$(go version -m "$BIN/$name" 2>/dev/null | awk '$1 == "mod" { print $3; exit }')
    echo "- $name ${version:-${MODULE[$name]#*@}} (${MODULE[$name]%@*}); load ${LOAD[$name]}"
  fi
}

bench() { "$BIN/jog" bench "$@" --endpoint "http://127.0.0.1:$PORT" --access-key "$AK" --secret-key "$SK"; }

mkdir -p "$OUT" "$BIN"
log "building jog"
go build -o "$BIN/jog" ./cmd/jog
declare -A LOAD=()
loadavg() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }
for name in $PEERS; do
  if [ "$name" != jog ] && ! install "$name"; then
    log "skipping $name: install failed"
    continue
  fi
  data=$(mktemp -d "${TMPDIR:-/tmp}/jog-bench-$name.XXXXXX")
  log "$name: starting over $data"
  if ! start "$name" "$data"; then
    rm -rf "$data"
    continue
  fi
  LOAD[$name]=$(loadavg)
  log "$name: mixed 70/30, 1 MiB, concurrency 16, $DURATION"
  bench mixed --size 1MiB --concurrency 16 --duration "$DURATION" --objects 1000 \
    --mix get=70,put=30 --label "$name" --quiet --out "$OUT/$name-mixed.json" >"$OUT/$name-mixed.txt" || true
  for wl in put get; do
    log "$name: $wl sweep, concurrency $CONCURRENCY × sizes $SIZES, $CELL per cell"
    bench sweep --workload "$wl" --concurrency "$CONCURRENCY" --sizes "$SIZES" --duration "$CELL" \
      --objects 200 --label "$name" --quiet --out "$OUT/$name-sweep-$wl.json" >"$OUT/$name-sweep-$wl.txt" || true
  done
  LOAD[$name]="${LOAD[$name]} → $(loadavg)"
  stop_server
  describe "$name" >"$OUT/$name.info"
  rm -rf "$data"
  log "$name: server log in $data.log"
done

log "writing $OUT/SUMMARY.md and $OUT/report-*/"
{
  echo "# jog bench peer comparison, $DATE"
  echo
  echo "Client and servers on one machine, loopback:"
  echo "$(nproc) cores, $(uname -sm), $(go version | cut -d' ' -f3). The 1-minute load average"
  echo "before → after each server's runs shows what else the machine was doing."
  echo
  cat "$OUT"/*.info
  echo
  echo "## Mixed GET 70 / PUT 30, 1 MiB, concurrency 16, $DURATION"
  echo
  "$BIN/jog" bench compare "$OUT"/*-mixed.json
  for wl in put get; do
    echo
    echo "## ${wl^^} sweep (concurrency $CONCURRENCY × $SIZES, $CELL per cell)"
    echo
    "$BIN/jog" bench compare "$OUT"/*-sweep-"$wl".json
  done
} >"$OUT/SUMMARY.md" 2>/dev/null || true
for set in mixed sweep-put sweep-get; do
  "$BIN/jog" bench report --title "jog bench peer comparison $DATE: $set" --out "$OUT/report-$set" "$OUT"/*-"$set".json >/dev/null || true
done
log "done: $OUT/SUMMARY.md, $OUT/report-*/index.html"
