#!/usr/bin/env bash
# Throughput reservations at full scale: the PapioS3 experiment (issue 23,
# docs/QOS.md). A JOG server with a configured capacity; five `jog cp`
# clients reserving 5:4:3:2:1 of $RESERVE_READ (reads) and $RESERVE_WRITE
# (writes), each moving one $SIZE object with $STREAMS parallel streams of
# $PART parts; two best-effort clients moving the same objects over and
# over until the reserved clients are done. Upload first, then download.
# Each client's achieved rate is its object's size over its transfer's
# wall time (the best-effort clients: everything they finished over the
# phase).
#
#   bench/qos.sh                                # 300/150 MB/s capacity, 1 GiB objects
#   SIZE=256MiB bench/qos.sh                    # smaller objects, less disk and time
#   READ_CAPACITY=1GB/s RESERVE_READ=900000000 WRITE_CAPACITY=400MB/s RESERVE_WRITE=360000000 bench/qos.sh
#   SIZE=8MiB PART=5MiB READ_CAPACITY=40MB/s RESERVE_READ=32000000 \
#     WRITE_CAPACITY=20MB/s RESERVE_WRITE=16000000 bench/qos.sh   # a smoke run, seconds
#
# Reservations may sum to 95% of the capacity (5% is best effort's
# guaranteed share); the defaults reserve 250 of 300 MB/s and 125 of 150.
# Writes $OUT/qos.json (one record per client and direction: reserved and
# achieved bytes/s) and prints the table. Disk: the source file, seven
# objects and seven downloads of $SIZE.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-1GiB}
PART=${PART:-32MiB}
STREAMS=${STREAMS:-3}
READ_CAPACITY=${READ_CAPACITY:-300MB/s}
WRITE_CAPACITY=${WRITE_CAPACITY:-150MB/s}
RESERVE_READ=${RESERVE_READ:-250000000}   # bytes/s, split 5:4:3:2:1
RESERVE_WRITE=${RESERVE_WRITE:-125000000} # bytes/s, split 5:4:3:2:1
FSYNC=${FSYNC:-always}
ADDR=${ADDR:-127.0.0.1:19300}
OUT=${OUT:-bench/results/$(date -u +%F)-qos}
EP=http://$ADDR

mkdir -p "$OUT"
. bench/jogserver.sh
start_jog --fsync "$FSYNC" --qos-read-capacity "$READ_CAPACITY" --qos-write-capacity "$WRITE_CAPACITY" --log-level warn
jog=$bin
work=$(mktemp -d "${TMPDIR:-/tmp}/jog-qos.XXXXXX")
trap 'kill $pid; wait $pid 2>/dev/null; rm -rf "$data" "$log" "${bin%/jog}" "$work"' EXIT
AK=$AWS_ACCESS_KEY_ID SK=$AWS_SECRET_ACCESS_KEY
curl -fsS -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AK:$SK" \
  -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "$EP/qos" >/dev/null

bytes=$(numfmt --from=iec-i "${SIZE%B}")
head -c "$bytes" /dev/urandom >"$work/src"
now() { date +%s.%N; }

# Five reservations for both directions, for an hour from now.
ids=()
for k in 5 4 3 2 1; do
  out=$("$jog" admin --endpoint "$EP" reservation create --read "$((RESERVE_READ * k / 15))" \
    --write "$((RESERVE_WRITE * k / 15))" --duration 1h qos)
  ids+=("$(cut -f1 <<<"$out")")
done

cp_args=(--endpoint "$EP" --quiet --no-fsync --streams "$STREAMS" --part-size "$PART")
records=()

# phase DIRECTION: the five reserved clients and the two best-effort ones.
phase() {
  local dir=$1 i
  local -a pids=()
  rm -f "$work/stop" "$work"/be-*.count
  for i in 1 2; do
    (
      n=0
      while [ ! -e "$work/stop" ]; do
        if [ "$dir" = upload ]; then
          "$jog" cp "${cp_args[@]}" "$work/src" "s3://qos/be$i"
        else
          "$jog" cp "${cp_args[@]}" "s3://qos/be$i" "$work/be$i.down"
        fi
        n=$((n + 1))
        echo "$n" >"$work/be-$i.count"
      done
    ) &
    pids+=($!)
  done
  local t0
  t0=$(now)
  for i in 0 1 2 3 4; do
    (
      s=$(now)
      if [ "$dir" = upload ]; then
        "$jog" cp "${cp_args[@]}" --reservation "${ids[$i]}" "$work/src" "s3://qos/r$((i + 1))"
      else
        "$jog" cp "${cp_args[@]}" --reservation "${ids[$i]}" "s3://qos/r$((i + 1))" "$work/r$((i + 1)).down"
      fi
      echo "$s $(now)" >"$work/r$((i + 1)).$dir.time"
    ) &
    pids+=($!)
  done
  wait "${pids[@]:2}"
  touch "$work/stop"
  local t1
  t1=$(now)
  wait "${pids[@]:0:2}"
  local total=$RESERVE_READ
  [ "$dir" = upload ] && total=$RESERVE_WRITE
  for i in 1 2 3 4 5; do
    read -r s e <"$work/r$i.$dir.time"
    records+=("$(awk -v d="$dir" -v c="r$i" -v r="$((total * (6 - i) / 15))" -v b="$bytes" -v s="$s" -v e="$e" \
      'BEGIN { printf "{\"direction\":\"%s\",\"client\":\"%s\",\"reserved_bps\":%d,\"achieved_bps\":%.0f}", d, c, r, b / (e - s) }')")
  done
  for i in 1 2; do
    n=$(cat "$work/be-$i.count" 2>/dev/null || echo 0)
    records+=("$(awk -v d="$dir" -v c="be$i" -v n="$n" -v b="$bytes" -v s="$t0" -v e="$t1" \
      'BEGIN { printf "{\"direction\":\"%s\",\"client\":\"%s\",\"reserved_bps\":0,\"achieved_bps\":%.0f}", d, c, n * b / (e - s) }')")
  done
  rm -f "$work"/*.down
}

# The best-effort clients' download sources.
"$jog" cp "${cp_args[@]}" "$work/src" s3://qos/be1
"$jog" cp "${cp_args[@]}" "$work/src" s3://qos/be2
phase upload
phase download

json_array "$OUT/qos.json" "${records[@]}"
printf "%-9s %-6s %14s %14s %7s\n" direction client "reserved MB/s" "achieved MB/s" "%"
sed -n 's/.*"direction":"\([a-z]*\)","client":"\([a-z0-9]*\)","reserved_bps":\([0-9]*\),"achieved_bps":\([0-9]*\).*/\1 \2 \3 \4/p' "$OUT/qos.json" |
  awk '{ pct = $3 > 0 ? sprintf("%.1f", 100 * $4 / $3) : "-"; printf "%-9s %-6s %14.1f %14.1f %7s\n", $1, $2, $3 / 1e6, $4 / 1e6, pct }'
echo "wrote $OUT/qos.json"
