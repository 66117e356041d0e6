#!/usr/bin/env bash
# Soak test: builds jog and the load driver (test/soak), starts jog with
# --fsync always on a free loopback port over a fresh data dir, and runs
# mixed S3 load (PUT/GET/HEAD/LIST/DELETE/copy/multipart, bodies up to a
# few MiB, 64 workers) for SOAK_DURATION (default 30m, at most 24h). Every
# response is checked; any 5xx, transport error or wrong byte is an
# unexpected error. The server's RSS is sampled every 10 s.
#
# Prints requests, unexpected errors and RSS at start / max / end; exits
# non-zero on any unexpected error, if RSS at the end exceeds the start by
# more than SOAK_MAX_RSS_GROWTH_MB (default 256), or if the server exits.
#
#   scripts/soak.sh                       # 30 minutes
#   SOAK_DURATION=3m scripts/soak.sh      # a short run
#   SOAK_WORKERS=128 SOAK_MAX_SIZE=8388608 scripts/soak.sh
#
# SOAK_DIR names the data dir (default: a new temp dir, removed afterwards
# unless SOAK_KEEP=1).
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${SOAK_DURATION:-30m}
workers=${SOAK_WORKERS:-64}
max_size=${SOAK_MAX_SIZE:-4194304}
growth=${SOAK_MAX_RSS_GROWTH_MB:-256}

work=$(mktemp -d)
data=${SOAK_DIR:-$work/data}
jog_pid=
cleanup() {
  if [ -n "$jog_pid" ] && kill -0 "$jog_pid" 2>/dev/null; then
    kill -TERM "$jog_pid" 2>/dev/null || true
    wait "$jog_pid" 2>/dev/null || true
  fi
  if [ "${SOAK_KEEP:-}" != 1 ]; then
    rm -rf "$work"
  else
    echo "kept $work"
  fi
}
trap cleanup EXIT

echo "== build"
go build -o "$work/jog" ./cmd/jog
go build -o "$work/soak" ./test/soak

port=$("$work/soak" -free-port)
access=SOAKACCESSKEY0000001
secret=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
mkdir -p "$data"

echo "== jog on 127.0.0.1:$port, data dir $data, fsync always"
"$work/jog" server --addr "127.0.0.1:$port" --data-dir "$data" --fsync always \
  --access-key "$access" --secret-key "$secret" --log-level warn --console=false >"$work/jog.log" 2>&1 &
jog_pid=$!

echo "== load for $duration ($workers workers, bodies up to $max_size bytes)"
rc=0
"$work/soak" -endpoint "http://127.0.0.1:$port" -access-key "$access" -secret-key "$secret" \
  -duration "$duration" -workers "$workers" -max-size "$max_size" -pid "$jog_pid" \
  -max-rss-growth "$growth" -wait-ready 30s || rc=$?

if ! kill -0 "$jog_pid" 2>/dev/null; then
  echo "FAIL: the server exited during the run"
  rc=1
fi
if [ -s "$work/jog.log" ]; then
  echo "== server warnings and errors ($(wc -l <"$work/jog.log") lines, last 20)"
  tail -n 20 "$work/jog.log"
fi
kill -TERM "$jog_pid" 2>/dev/null || true
if ! wait "$jog_pid"; then
  echo "FAIL: the server did not shut down cleanly"
  rc=1
fi
jog_pid=
du -sh "$data" | sed 's/^/data dir size: /'
exit "$rc"
