#!/usr/bin/env bash
# Peer comparison: JOG against other S3 servers that serve a local directory,
# measured with `jog bench`, all on loopback on this machine.
#
#   bench/compare.sh                 # the full seed workload set
#   QUICK=1 bench/compare.sh         # a short run to check the set-up
#   PEERS="jog minio" bench/compare.sh
#   BASE=<git rev> PEERS="jog jog-base" bench/compare.sh
#                                    # this build against an earlier one (the
#                                    # build before a change), same run
#   PEERS="jog jog-pg" bench/compare.sh
#                                    # this build on SQLite against the same
#                                    # build over PostgreSQL (--meta postgres://,
#                                    # a throwaway cluster from bench/pg.sh,
#                                    # durable commits; a fresh database per run)
#
# Peers are installed with `go install` into a cache dir ($JOG_BENCH_CACHE,
# default ~/.cache/jog-bench): versitygw v1.8.0, rclone v1.75.1 (`rclone serve
# s3`), MinIO latest. Each server starts on 127.0.0.1 with the same keys and a
# fresh data dir, runs the seed workloads, and is stopped. Results go to
# bench/results/<date>/ (one JSON file per server and workload, SUMMARY.md
# with the comparison tables, report-<set>/ with the charts; server logs stay
# in $TMPDIR). Running it
# again with PEERS=<one server> and the same OUT re-measures that server and
# rewrites the summary over every server's files; with FIRST_ROUND=3 and the
# same OUT it adds a third round (files *-r3.json) instead, and the summary
# takes the median over all of them:
#
#   FIRST_ROUND=3 ROUNDS=1 PEERS="rclone jog versitygw" OUT=bench/results/<date> bench/compare.sh
#
# The seed workload set (docs/BENCHMARKS.md), each a file <server>-<set>-r<round>.json:
#   mixed      GET 70 / PUT 30, 1 MiB objects, concurrency 16, $DURATION (30 s),
#              the workload of the seed comparison report (warp, same parameters);
#   sweep-put, sweep-get
#              concurrency $CONCURRENCY (4,16,64) × sizes $SIZES (1KiB,64KiB,1MiB),
#              $CELL (10 s) per cell, from the seed benchmark guide;
#   large-put, large-get
#              16 MiB objects at concurrency 16, $CELL;
#   list       ListObjectsV2 1,000-key pages over a 10,000-object bucket,
#              concurrency 16, $CELL;
#   multipart  64 MiB objects in 8 MiB parts, 4 uploads × 4 parts in flight, $CELL.
#   big-put    one 1 GiB object at a time as a multipart upload, 16 MiB parts,
#              8 in flight, $BIG_OPS (3) uploads: against the raw disk figures;
#   big-get    one 1 GiB object downloaded in 16 MiB ranges, 8 in flight,
#              $BIG_OPS downloads (the object was written just before, so the
#              first download may come partly from the page cache).
# The same cells in other clients' traffic shapes (`jog bench --keys --signing`),
# so that jog bench's own shape (sequential keys in one directory per worker,
# UNSIGNED-PAYLOAD bodies) cannot flatter a server:
#   warp-put, warp-mixed
#              PUT 1 KiB and 1 MiB ($CELL each), and the mixed cell ($DURATION),
#              at concurrency 16, as MinIO warp sends them over http: warp's
#              key names (--keys warp: <8 random chars>/<16 random chars>.rnd)
#              and minio-go's aws-chunked bodies with a signature per 64 KiB
#              chunk (--signing streaming);
#   sdk-put, sdk-mixed
#              the same cells with warp's key names and the AWS SDKs' default
#              bodies since 2025: aws-chunked, unsigned, a trailing CRC-32
#              (--signing trailer).
# Not in the default set (SETS="list-walk list-prefixes" PEERS=jog ...): they
# prepare $WALK_OBJECTS (1,000,000) objects, which takes peers a long time:
#   list-walk      one client walking 1,000-key pages, $CELL;
#   list-prefixes  the same objects spread over 10,000 prefixes, one client
#                  paging through them with the delimiter "/", $CELL.
# Servers take turns: every round runs each server once, in a rotated order,
# over a fresh data dir ($ROUNDS rounds, default 2); the summary shows each
# cell's median run and the spread between runs. The raw sequential disk
# throughput of the data dir's filesystem (dd, 1 GiB, fsync; read back with
# O_DIRECT) is measured before the first and after the last round, as the
# physical limit.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${JOG_BENCH_CACHE:-$HOME/.cache/jog-bench}
BIN=$CACHE/bin
PEERS=${PEERS:-jog versitygw rclone minio}
# BASE: the git revision the jog-base peer is built from.
BASE=${BASE:-}
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-bench/results/$DATE}
PORT=${PORT:-19100}
AK=jogbenchaccess0001
SK=jogbenchsecret00000000000000000001
ROUNDS=${ROUNDS:-2}
FIRST_ROUND=${FIRST_ROUND:-1}
DURATION=${DURATION:-30s}
CELL=${CELL:-10s}
CONCURRENCY=${CONCURRENCY:-4,16,64}
SIZES=${SIZES:-1KiB,64KiB,1MiB}
LIST_OBJECTS=${LIST_OBJECTS:-10000}
WALK_OBJECTS=${WALK_OBJECTS:-1000000}
BIG_OPS=${BIG_OPS:-3}
# JOG fsyncs every acknowledged write by default; set never to compare with
# servers that do not.
JOG_FSYNC=${JOG_FSYNC:-always}
if [ -n "${QUICK:-}" ]; then
  ROUNDS=1 DURATION=5s CELL=2s CONCURRENCY=16 SIZES=1KiB,1MiB LIST_OBJECTS=2000 WALK_OBJECTS=20000 BIG_OPS=1
fi
SETS=${SETS:-mixed sweep-put sweep-get large-put large-get list multipart big-put big-get warp-put warp-mixed sdk-put sdk-mixed}

# The traffic shapes of the warp-* and sdk-* sets: --keys and --signing.
declare -A SHAPE=(
  [warp]="--keys=warp --signing=streaming"
  [sdk]="--keys=warp --signing=trailer"
)

log() { echo "== $*" >&2; }

# build_base: build jog at $BASE into $BIN/jog-base, from a clean export of
# that revision (the work tree is not touched).
build_base() {
  local src
  [ -n "$BASE" ] || { log "jog-base needs BASE=<git revision>"; return 1; }
  src=$(mktemp -d "${TMPDIR:-/tmp}/jog-base.XXXXXX")
  log "building jog-base at $BASE"
  git archive "$BASE" | tar -x -C "$src" && (cd "$src" && go build -o "$BIN/jog-base" ./cmd/jog)
  local rc=$?
  rm -rf "$src"
  return $rc
}

. bench/pg.sh
. bench/peers.sh
trap 'stop_server; pg_stop' EXIT
case " $PEERS " in *" jog-pg "*) pg_start ;; esac

# describe NAME: one line for SUMMARY.md: version, settings, load.
describe() {
  local name=$1 version
  if [ "$name" = jog ]; then
    echo "- jog $(git rev-parse --short HEAD), --fsync $JOG_FSYNC; load ${LOAD[$name]}"
  elif [ "$name" = jog-pg ]; then
    echo "- jog-pg $(git rev-parse --short HEAD) over PostgreSQL $("$PGBIN/postgres" --version | awk '{ print $3 }') (fsync and synchronous_commit on; its CPU is in the machine's figure, not the server's), --fsync $JOG_FSYNC; load ${LOAD[$name]}"
  elif [ "$name" = jog-base ]; then
    echo "- jog-base $(git rev-parse --short "$BASE"), --fsync $JOG_FSYNC; load ${LOAD[$name]}"
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
loadavg() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }

# rawdisk: sequential write of 1 GiB with fsync, then read back bypassing
# the page cache, in the directory the servers' data dirs are made in; then
# the same 1 GiB as 4 parallel writers of 256 MiB, each fsyncing its file.
rawdisk() {
  local dir w r p t0 t1
  dir=$(mktemp -d "${TMPDIR:-/tmp}/jog-bench-disk.XXXXXX")
  w=$(dd if=/dev/zero of="$dir/dd.test" bs=4M count=256 conv=fsync 2>&1 | tail -1)
  r=$(dd if="$dir/dd.test" of=/dev/null bs=4M iflag=direct 2>&1 | tail -1)
  rm -f "$dir/dd.test"
  t0=$(date +%s.%N)
  for i in 1 2 3 4; do dd if=/dev/zero of="$dir/dd.$i" bs=4M count=64 conv=fsync status=none & done
  wait
  t1=$(date +%s.%N)
  p=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f MiB/s", 1024 / (b - a) }')
  rm -rf "$dir"
  echo "- $(date -u +%H:%M) UTC, load $(loadavg), $(df -T "${TMPDIR:-/tmp}" | awk 'NR==2 { print $2 }'): dd write 1 GiB with conv=fsync ${w#*copied, }; 4 writers × 256 MiB with fsync $p; read back with iflag=direct ${r#*copied, }"
}

# shellcheck disable=SC2054 # get=70,put=30 is one argument, not an array list
run_set() {
  local name=$1 set=$2 out=$3 args shape=()
  case $set in warp-* | sdk-*) read -r -a shape <<<"${SHAPE[${set%%-*}]}" ;; esac
  case $set in
    mixed) args=(mixed --size 1MiB --concurrency 16 --duration "$DURATION" --objects 1000 --mix get=70,put=30) ;;
    sweep-put | sweep-get)
      args=(sweep --workload "${set#sweep-}" --concurrency "$CONCURRENCY" --sizes "$SIZES" --duration "$CELL" --objects 200) ;;
    large-put | large-get)
      args=(sweep --workload "${set#large-}" --concurrency 16 --sizes 16MiB --duration "$CELL" --objects 32) ;;
    list) args=(list --size 1KiB --objects "$LIST_OBJECTS" --concurrency 16 --duration "$CELL") ;;
    multipart) args=(multipart --size 64MiB --part-size 8MiB --part-concurrency 4 --concurrency 4 --duration "$CELL") ;;
    big-put) args=(multipart --size 1GiB --part-size 16MiB --part-concurrency 8 --concurrency 1 --ops "$BIG_OPS") ;;
    big-get) args=(get --size 1GiB --objects 1 --range-size 16MiB --part-concurrency 8 --concurrency 1 --ops "$BIG_OPS") ;;
    # The data dir is removed after the server stops: no per-key cleanup.
    list-walk) args=(list --size 0 --objects "$WALK_OBJECTS" --concurrency 1 --duration "$CELL" --no-cleanup) ;;
    list-prefixes) args=(list --size 0 --objects "$WALK_OBJECTS" --list-prefixes 10000 --concurrency 1 --duration "$CELL" --no-cleanup) ;;
    warp-put | sdk-put)
      args=(sweep --workload put --concurrency 16 --sizes 1KiB,1MiB --duration "$CELL" "${shape[@]}") ;;
    warp-mixed | sdk-mixed)
      args=(mixed --size 1MiB --concurrency 16 --duration "$DURATION" --objects 1000 --mix get=70,put=30 "${shape[@]}") ;;
  esac
  bench "${args[@]}" --label "$name" --server-pid "$SERVER_PID" --quiet --out "$out.json" >"$out.txt"
}

declare -A LOAD=() INSTALLED=()
for name in $PEERS; do
  if [ "$name" = jog ] || install "$name"; then
    INSTALLED[$name]=1
  else
    log "skipping $name: install failed"
  fi
done
# A run that adds rounds to an earlier one keeps its disk figures and its
# servers' descriptions, and adds its own.
info=info
if [ "$FIRST_ROUND" -gt 1 ]; then
  info="from-r$FIRST_ROUND.info"
  rawdisk >>"$OUT/rawdisk.txt"
else
  rawdisk >"$OUT/rawdisk.txt"
fi
LAST_ROUND=$((FIRST_ROUND + ROUNDS - 1))
read -r -a order <<<"$PEERS"
for round in $(seq "$FIRST_ROUND" "$LAST_ROUND"); do
  for name in "${order[@]}"; do
    [ -n "${INSTALLED[$name]:-}" ] || continue
    data=$(mktemp -d "${TMPDIR:-/tmp}/jog-bench-$name.XXXXXX")
    log "round $round/$LAST_ROUND: $name over $data"
    if ! start "$name" "$data"; then
      rm -rf "$data"
      continue
    fi
    before=$(loadavg)
    for set in $SETS; do
      log "$name: $set"
      run_set "$name" "$set" "$OUT/$name-$set-r$round" || log "$name: $set failed, see $OUT/$name-$set-r$round.txt"
    done
    LOAD[$name]="${LOAD[$name]:+${LOAD[$name]}, }round $round $before → $(loadavg)"
    stop_server
    describe "$name" >"$OUT/$name.$info"
    rm -rf "$data"
    log "$name: server log in $data.log"
  done
  order=("${order[@]:1}" "${order[0]}") # the next round starts with the next server
done
rawdisk >>"$OUT/rawdisk.txt"

log "writing $OUT/SUMMARY.md and $OUT/report-*/"
# files SET: the result files of SET, every server and round (by server name:
# a glob on the set alone would take jog-warp-mixed-r1.json for set mixed).
files() {
  local p
  for p in jog jog-base jog-pg "${!MODULE[@]}"; do ls "$OUT/$p-$1-r"*.json 2>/dev/null || true; done
}
{
  echo "# jog bench peer comparison, $DATE"
  echo
  echo "Client and servers on one machine, loopback:"
  rounds=$(find "$OUT" -maxdepth 1 -name '*-r*.json' | sed 's/.*-r\([0-9]*\)\.json$/\1/' | sort -u | wc -l)
  echo "$(nproc) cores, $(uname -sm), $(go version | cut -d' ' -f3); $rounds round(s), servers taking"
  echo "turns in a rotated order, each over a fresh data dir. The 1-minute load average"
  echo "before → after each server's runs shows what else the machine was doing."
  echo
  cat "$OUT"/*.info
  echo
  echo "Raw sequential disk throughput of the data dirs' filesystem (the physical limit), before and after:"
  echo
  cat "$OUT/rawdisk.txt"
  echo
  echo "Each row is the median of the rounds; Runs gives their number and the spread"
  echo "(± half the range between the slowest and fastest run, of the median)."
  if [ -n "${INSTALLED[jog]:-}" ]; then
    echo
    echo "## JOG against the best peer, per cell (obj/s; list: pages of 1,000 keys/s)"
    echo
    # shellcheck disable=SC2046
    "$BIN/jog" bench compare --baseline jog $(for set in $SETS; do files "$set"; done)
  fi
  for set in $SETS; do
    echo
    case $set in
      mixed) echo "## Mixed GET 70 / PUT 30, 1 MiB, concurrency 16, $DURATION" ;;
      sweep-*) echo "## ${set#sweep-} sweep (concurrency $CONCURRENCY × $SIZES, $CELL per cell)" ;;
      large-*) echo "## ${set#large-} 16 MiB, concurrency 16, $CELL" ;;
      list) echo "## ListObjectsV2, 1,000-key pages over $LIST_OBJECTS objects, concurrency 16, $CELL" ;;
      multipart) echo "## Multipart upload, 64 MiB objects, 8 MiB parts, 4 × 4 in flight, $CELL" ;;
      big-put) echo "## 1 GiB multipart upload, 16 MiB parts, 8 in flight, $BIG_OPS uploads" ;;
      big-get) echo "## 1 GiB download in 16 MiB ranges, 8 in flight, $BIG_OPS downloads" ;;
      list-walk) echo "## ListObjectsV2 walk, one client, 1,000-key pages over $WALK_OBJECTS objects, $CELL" ;;
      list-prefixes) echo "## ListObjectsV2 with delimiter, one client, 1,000-prefix pages over 10,000 prefixes ($WALK_OBJECTS objects), $CELL" ;;
      warp-put) echo "## PUT 1 KiB and 1 MiB, concurrency 16, $CELL per cell, as warp sends them (${SHAPE[warp]})" ;;
      warp-mixed) echo "## Mixed GET 70 / PUT 30, 1 MiB, concurrency 16, $DURATION, as warp sends it (${SHAPE[warp]})" ;;
      sdk-put) echo "## PUT 1 KiB and 1 MiB, concurrency 16, $CELL per cell, warp's keys with the AWS SDKs' bodies (${SHAPE[sdk]})" ;;
      sdk-mixed) echo "## Mixed GET 70 / PUT 30, 1 MiB, concurrency 16, $DURATION, warp's keys with the AWS SDKs' bodies (${SHAPE[sdk]})" ;;
    esac
    echo
    # shellcheck disable=SC2046
    "$BIN/jog" bench compare $(files "$set")
  done
} >"$OUT/SUMMARY.md" 2>/dev/null || true
baseline=()
[ -n "${INSTALLED[jog]:-}" ] && baseline=(--baseline jog)
for set in mixed sweep-put sweep-get other shapes all; do
  case $set in
    shapes) in=$(files warp-put; files warp-mixed; files sdk-put; files sdk-mixed) ;;
    sweep-put) in=$(files sweep-put; files large-put) ;;
    sweep-get) in=$(files sweep-get; files large-get) ;;
    other) in=$(files list; files multipart; files big-put; files big-get; files list-walk; files list-prefixes) ;;
    all) in=$(for s in $SETS; do files "$s"; done) ;;
    *) in=$(files "$set") ;;
  esac
  [ -n "$in" ] || continue # a set this run did not measure
  # shellcheck disable=SC2086
  "$BIN/jog" bench report "${baseline[@]}" --title "jog bench peer comparison $DATE: $set" --out "$OUT/report-$set" $in >/dev/null || true
done
if command -v rsvg-convert >/dev/null; then
  for svg in "$OUT"/report-*/*.svg; do rsvg-convert -o "${svg%.svg}.png" "$svg" || true; done
fi
log "done: $OUT/SUMMARY.md, $OUT/report-*/index.html"
