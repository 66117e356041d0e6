#!/usr/bin/env bash
# Throughput reservations at full scale: the PapioS3 experiment (issue 23,
# docs/QOS.md), with request rates (issue 41). A JOG server with a
# configured capacity; five `jog cp` clients reserving 5:4:3:2:1 of
# $RESERVE_READ (reads) and $RESERVE_WRITE (writes), each moving one $SIZE
# object with $STREAMS parallel streams of $PART parts; two best-effort
# clients moving the same objects over and over until the reserved clients
# are done. Upload first, then download. Each client's achieved rate is its
# object's size over its transfer's wall time (the best-effort clients:
# everything they finished over the phase).
#
# During the download, for $SMALL_DURATION, `jog bench get` clients of
# $SMALL objects beside them: rq holds a reservation of $RESERVE_REQUESTS
# requests/s ($SMALL_CONC GETs in flight); twin does the same GETs without
# a reservation, as its own IAM user; mx holds a mixed reservation of
# $MIXED_READ bytes/s and $MIXED_REQUESTS requests/s, presented by small
# GETs ($SMALL_CONC in flight) and 1 MiB GETs (four in flight); g1 and g2
# are greedy best-effort small GETs ($GREEDY_CONC in flight each), one IAM
# user. Each one's achieved rate is what `jog bench` counted over its run.
# BYTE_REQUESTS=N gives r1-r5 N requests/s each too (mixed reservations),
# so their GETs' and PUTs' requests are not best effort (docs/QOS.md).
#
#   bench/qos.sh                                # 150/80 MB/s and 1,000 req/s capacity, 1 GiB objects
#   READ_CAPACITY=300MB/s RESERVE_READ=250000000 WRITE_CAPACITY=150MB/s RESERVE_WRITE=125000000 bench/qos.sh
#   SIZE=256MiB bench/qos.sh                    # smaller objects, less disk and time
#   READ_CAPACITY=1GB/s RESERVE_READ=900000000 WRITE_CAPACITY=400MB/s RESERVE_WRITE=360000000 bench/qos.sh
#   SIZE=8MiB PART=5MiB READ_CAPACITY=40MB/s RESERVE_READ=30000000 MIXED_READ=2000000 \
#     WRITE_CAPACITY=20MB/s RESERVE_WRITE=16000000 SMALL_DURATION=5s bench/qos.sh   # a smoke run
#
# Reservations may sum to 95% of the capacity (5% is best effort's
# guaranteed share): the defaults reserve 125 + 10 of 150 MB/s, 66 of 80
# and 150 of 1,000 requests/s (issue 41's capacities: on the 2-core machine
# with its thirteen client processes 300 MB/s of reads is more than those
# clients take, and the largest reservations forfeit; docs/QOS.md). Writes $OUT/qos.json (one record per client
# and direction: reserved and achieved bytes/s, and requests/s for the
# small clients) and prints `jog bench report --qos`'s table, which flags
# any reservation below 95% of its rate and rq below its twin. Then, per
# reservation and direction (the phase's bytes, and requests), how long its
# requests waited in the server's scheduler during its run (the change in
# jog_qos_reservation_*wait_seconds_total, from /metrics) and that as a
# share of its run (its transfer, or its `jog bench` run; summed over
# concurrent requests, so three streams always queued make 300%), and per
# second of its run its forfeit (jog_qos_reservation_forfeited_*_total:
# reserved units owed while none of its requests was queued) and what was
# unserved (…_unserved_*_total: owed while it asked), also written to
# $OUT/qos-wait.txt. Disk: the source file, seven objects and
# seven downloads of $SIZE.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-1GiB}
PART=${PART:-32MiB}
STREAMS=${STREAMS:-3}
READ_CAPACITY=${READ_CAPACITY:-150MB/s}
WRITE_CAPACITY=${WRITE_CAPACITY:-80MB/s}
RESERVE_READ=${RESERVE_READ:-125000000}  # bytes/s, split 5:4:3:2:1
RESERVE_WRITE=${RESERVE_WRITE:-66000000} # bytes/s, split 5:4:3:2:1
REQUEST_CAPACITY=${REQUEST_CAPACITY:-1000}  # requests/s
BYTE_REQUESTS=${BYTE_REQUESTS:-0}           # requests/s each of the five byte reservations also reserves
RESERVE_REQUESTS=${RESERVE_REQUESTS:-100}   # rq's requests/s
MIXED_READ=${MIXED_READ:-10000000}          # mx's bytes/s of reads
MIXED_REQUESTS=${MIXED_REQUESTS:-50}        # mx's requests/s
SMALL=${SMALL:-4KiB}
SMALL_CONC=${SMALL_CONC:-16}
GREEDY_CONC=${GREEDY_CONC:-8}
SMALL_DURATION=${SMALL_DURATION:-15s}
FSYNC=${FSYNC:-always}
ADDR=${ADDR:-127.0.0.1:19300}
OUT=${OUT:-bench/results/$(date -u +%F)-qos}
EP=http://$ADDR

mkdir -p "$OUT"
. bench/jogserver.sh
start_jog --fsync "$FSYNC" --qos-read-capacity "$READ_CAPACITY" --qos-write-capacity "$WRITE_CAPACITY" \
  --qos-request-capacity "$REQUEST_CAPACITY" --metrics-public --log-level warn
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
    --write "$((RESERVE_WRITE * k / 15))" --requests "$BYTE_REQUESTS" --duration 1h qos)
  ids+=("$(cut -f1 <<<"$out")")
done

# The small clients: a request-rate and a mixed reservation, and IAM users
# of their own for the twin and the greedy clients (best effort shares
# between principals).
rq=$("$jog" admin --endpoint "$EP" reservation create --requests "$RESERVE_REQUESTS" --duration 1h qos | cut -f1)
mx=$("$jog" admin --endpoint "$EP" reservation create --read "$MIXED_READ" --requests "$MIXED_REQUESTS" --duration 1h qos | cut -f1)
cat >"$work/policy.json" <<'JSON'
{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":["arn:aws:s3:::qos","arn:aws:s3:::qos/*"]}]}
JSON
"$jog" admin --endpoint "$EP" policy create qos-bench "$work/policy.json" >/dev/null
declare -A keys
for u in rq twin greedy; do
  "$jog" admin --endpoint "$EP" user create "qos-$u" >/dev/null
  "$jog" admin --endpoint "$EP" policy attach "qos-$u" qos-bench >/dev/null
  keys[$u]=$("$jog" admin --endpoint "$EP" --json key create "qos-$u" | jq -r '"\(.AccessKeyId)\t\(.SecretAccessKey)"')
done

# small NAME USER CONCURRENCY SIZE [flags]: a `jog bench get` client as
# USER ("" for the root) for $SMALL_DURATION, its result in $work/NAME.json.
small() {
  local name=$1 user=$2 conc=$3 size=$4 ak=$AK sk=$SK
  shift 4
  [ -n "$user" ] && IFS=$'\t' read -r ak sk <<<"${keys[$user]}"
  "$jog" bench get --endpoint "$EP" --access-key "$ak" --secret-key "$sk" --bucket qos \
    --prefix "small/$name/" --objects 32 --size "$size" --concurrency "$conc" \
    --duration "$SMALL_DURATION" --quiet --out "$work/$name.json" "$@" 2>&1 >/dev/null | grep -v '^wrote ' || true
}

# small_rates NAME...: the requests/s and bytes/s the clients' runs
# counted, summed.
small_rates() {
  local f
  for f in "$@"; do
    jq -r '.results[0] | "\(.total.count / .seconds) \(.total.bytes / .seconds) \(.total.errors)"' "$work/$f.json"
  done | awk '{ r += $1; b += $2; e += $3 } END { if (e > 0) print "errors: " e > "/dev/stderr"; printf "%.1f %.0f", r, b }'
}

# small_record NAME RESERVED_BPS RESERVED_RPS TWIN CLIENT...: the download
# record of the small clients CLIENT... (summed) as NAME.
small_record() {
  local name=$1 rbps=$2 rrps=$3 twin=$4 r b
  shift 4
  read -r r b <<<"$(small_rates "$@")"
  records+=("$(printf '{"direction":"download","client":"%s","reserved_bps":%d,"achieved_bps":%d,"reserved_rps":%d,"achieved_rps":%s%s}' \
    "$name" "$rbps" "$b" "$rrps" "$r" "${twin:+,\"twin\":\"$twin\"}")")
}

# waits FILE: the server's per-reservation wait, forfeit and unserved
# counters in FILE, one "reservation direction seconds forfeited unserved"
# a line (direction read, write or requests; the last two in its unit).
waits() {
  curl -fsS "$EP/metrics" | awk '/^jog_qos_reservation_(requests_)?(wait_seconds|(forfeited|unserved)_(bytes|requests))_total[{]/ {
    d = "requests"
    if (match($0, /direction="[a-z]+"/)) d = substr($0, RSTART + 11, RLENGTH - 12)
    match($0, /reservation="[^"]*"/)
    k = substr($0, RSTART + 13, RLENGTH - 14) " " d
    if ($0 ~ /forfeited/) f[k] = $NF; else if ($0 ~ /unserved/) u[k] = $NF; else w[k] = $NF
  }
  END { for (k in w) print k, w[k], f[k] + 0, u[k] + 0 }' >"$1"
}

# wait_lines PHASE NAME ID RUN DIRECTION...: how long reservation ID's
# (client NAME's) requests waited in PHASE, per DIRECTION it has a counter
# in, and that over its RUN seconds; appended to $work/waits.txt.
wait_lines() {
  local ph=$1 name=$2 id=$3 run=$4 d
  shift 4
  for d in "$@"; do
    awk -v ph="$ph" -v n="$name" -v id="$id" -v d="$d" -v run="$run" '
      FILENAME == ARGV[1] { if ($1 == id && $2 == d) { b = $3; fb = $4; ub = $5 }; next }
      $1 == id && $2 == d { w = $3 - b; f = $4 - fb; un = $5 - ub; seen = 1 }
      END {
        if (!seen) exit
        share = run > 0 ? 100 * w / run : 0
        u = d == "requests" ? "req/s" : "MB/s"
        k = d == "requests" ? 1 : 1e6
        fr = run > 0 ? f / k / run : 0
        ur = run > 0 ? un / k / run : 0
        printf "%-8s  %-5s  %-8s  waited %8.2f s  run %7.2f s  wait share %6.1f%%  forfeited %6.1f  unserved %6.1f %s\n", ph, n, d, w, run, share, fr, ur, u
      }' \
      "$work/wait.$ph.0" "$work/wait.$ph.1" >>"$work/waits.txt"
  done
}

cp_args=(--endpoint "$EP" --quiet --no-fsync --streams "$STREAMS" --part-size "$PART")
records=()
: >"$work/waits.txt"

# phase DIRECTION: the five reserved clients and the two best-effort ones;
# in the download, the small clients beside them (the phase ends when the
# reserved and the small clients are done).
phase() {
  local dir=$1 i
  local -a pids=()
  rm -f "$work/stop" "$work"/be-*.count
  waits "$work/wait.$dir.0"
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
  if [ "$dir" = download ]; then
    small rq rq "$SMALL_CONC" "$SMALL" --reservation "$rq" &
    pids+=($!)
    small twin twin "$SMALL_CONC" "$SMALL" &
    pids+=($!)
    small mx-small "" "$SMALL_CONC" "$SMALL" --reservation "$mx" &
    pids+=($!)
    small mx-large "" 4 1MiB --reservation "$mx" &
    pids+=($!)
    small g1 greedy "$GREEDY_CONC" "$SMALL" &
    pids+=($!)
    small g2 greedy "$GREEDY_CONC" "$SMALL" &
    pids+=($!)
  fi
  wait "${pids[@]:2}"
  touch "$work/stop"
  local t1
  t1=$(now)
  wait "${pids[@]:0:2}"
  waits "$work/wait.$dir.1"
  local total=$RESERVE_READ bytedir=read
  [ "$dir" = upload ] && total=$RESERVE_WRITE bytedir=write
  for i in 1 2 3 4 5; do
    read -r s e <"$work/r$i.$dir.time"
    wait_lines "$dir" "r$i" "${ids[$((i - 1))]}" "$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')" $bytedir requests
    records+=("$(awk -v d="$dir" -v c="r$i" -v r="$((total * (6 - i) / 15))" -v b="$bytes" -v s="$s" -v e="$e" \
      'BEGIN { printf "{\"direction\":\"%s\",\"client\":\"%s\",\"reserved_bps\":%d,\"achieved_bps\":%.0f}", d, c, r, b / (e - s) }')")
  done
  for i in 1 2; do
    n=$(cat "$work/be-$i.count" 2>/dev/null || echo 0)
    records+=("$(awk -v d="$dir" -v c="be$i" -v n="$n" -v b="$bytes" -v s="$t0" -v e="$t1" \
      'BEGIN { printf "{\"direction\":\"%s\",\"client\":\"%s\",\"reserved_bps\":0,\"achieved_bps\":%.0f}", d, c, n * b / (e - s) }')")
  done
  rm -f "$work"/*.down
  [ "$dir" = download ] || return 0
  small_record rq 0 "$RESERVE_REQUESTS" "" rq
  small_record twin 0 0 rq twin
  small_record mx "$MIXED_READ" "$MIXED_REQUESTS" "" mx-small mx-large
  small_record g1 0 0 "" g1
  small_record g2 0 0 "" g2
  wait_lines "$dir" rq "$rq" "$(jq -r '.results[0].seconds' "$work/rq.json")" read requests
  wait_lines "$dir" mx "$mx" "$(jq -s 'map(.results[0].seconds) | max' "$work/mx-small.json" "$work/mx-large.json")" read requests
}

# The best-effort clients' download sources.
"$jog" cp "${cp_args[@]}" "$work/src" s3://qos/be1
"$jog" cp "${cp_args[@]}" "$work/src" s3://qos/be2
phase upload
phase download

json_array "$OUT/qos.json" "${records[@]}"
"$jog" bench report --qos --out "$work/report" "$OUT/qos.json" | grep -v "^$work/"
{
  echo
  echo "scheduler wait per reservation (summed over its concurrent requests; wait share = waited / run),"
  echo "and per second of its run what it forfeited (reserved units owed while none of its requests was"
  echo "queued: its client did not ask faster) and what was unserved (owed while it asked: the scheduler"
  echo "held it back):"
  cat "$work/waits.txt"
} | tee "$OUT/qos-wait.txt"
echo "wrote $OUT/qos.json (charts: jog bench report --qos --out DIR $OUT/qos.json)"
