#!/usr/bin/env bash
# jog cp against the raw disk and the usual clients (issue 23): one JOG
# server (fsync on, the default), one $SIZE file; per round the raw disk
# (dd with fsync; a direct read), then an upload and a download of the file
# by `jog cp`, `aws s3 cp` and `rclone copyto`, each with its defaults.
# Downloads start from a cold page cache when the kernel lets us drop it.
# `jog cp` fsyncs a download before renaming it into place, the peers do
# not; `jog cp --no-fsync` is the like-for-like row.
#
#   bench/cp.sh                       # 1 GiB, 3 rounds
#   SIZE=256MiB ROUNDS=1 bench/cp.sh  # a quick look
#
# Writes $OUT/cp.json (one record per round, tool and direction: seconds
# and bytes/s) and $OUT/SUMMARY.md (medians, ratios).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-1GiB}
ROUNDS=${ROUNDS:-3}
ADDR=${ADDR:-127.0.0.1:19310}
OUT=${OUT:-bench/results/$(date -u +%F)-cp}
EP=http://$ADDR

mkdir -p "$OUT"
. bench/jogserver.sh
start_jog --log-level warn
jog=$bin
work=$(mktemp -d "${TMPDIR:-/tmp}/jog-cp.XXXXXX")
trap 'kill $pid; wait $pid 2>/dev/null; rm -rf "$data" "$log" "${bin%/jog}" "$work"' EXIT
aws --endpoint-url "$EP" s3 mb s3://cpbench >/dev/null

export RCLONE_CONFIG=/dev/null RCLONE_CONFIG_JOG_TYPE=s3 RCLONE_CONFIG_JOG_PROVIDER=Other RCLONE_CONFIG_JOG_ENDPOINT=$EP \
  RCLONE_CONFIG_JOG_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID RCLONE_CONFIG_JOG_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY \
  RCLONE_CONFIG_JOG_REGION=us-east-1

bytes=$(numfmt --from=iec-i "${SIZE%B}")
head -c "$bytes" /dev/urandom >"$work/src"
src_md5=$(md5sum <"$work/src" | cut -d' ' -f1)

cold() {
  sync
  if ! echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then warm_only=1; fi
}
warm_only=0
records=()
record() { # round tool direction seconds
  records+=("$(awk -v r="$1" -v t="$2" -v d="$3" -v s="$4" -v b="$bytes" \
    'BEGIN { printf "{\"round\":%d,\"tool\":\"%s\",\"direction\":\"%s\",\"seconds\":%.3f,\"bps\":%.0f}", r, t, d, s, b / s }')")
}
timed() { # prints the wall seconds of "$@"
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null || return 1
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'
}
check() { # file: the download must be the source
  [ "$(md5sum <"$1" | cut -d' ' -f1)" = "$src_md5" ] || { echo "bench/cp.sh: $1 differs from the source" >&2; exit 1; }
  rm -f "$1"
}
upload() { # tool key
  case $1 in
  jog) "$jog" cp --endpoint "$EP" --quiet "$work/src" "s3://cpbench/$2" ;;
  aws) aws --endpoint-url "$EP" s3 cp --only-show-errors "$work/src" "s3://cpbench/$2" ;;
  rclone) env -u AWS_CA_BUNDLE rclone copyto "$work/src" "jog:cpbench/$2" ;;
  esac
}
download() { # tool key file
  case $1 in
  jog) "$jog" cp --endpoint "$EP" --quiet "s3://cpbench/$2" "$3" ;;
  jog-nofsync) "$jog" cp --endpoint "$EP" --quiet --no-fsync "s3://cpbench/$2" "$3" ;;
  aws) aws --endpoint-url "$EP" s3 cp --only-show-errors "s3://cpbench/$2" "$3" ;;
  rclone) env -u AWS_CA_BUNDLE rclone copyto "jog:cpbench/$2" "$3" ;;
  esac
}

for r in $(seq "$ROUNDS"); do
  # The raw disk, in the directory the server's data dir is in.
  d=$(mktemp -d "${TMPDIR:-/tmp}/jog-cp-dd.XXXXXX")
  t=$(timed dd if=/dev/zero of="$d/dd" bs=4M count=$((bytes / 4194304)) conv=fsync status=none)
  record "$r" dd write "$t"
  cold
  t=$(timed dd if="$d/dd" of=/dev/null bs=4M iflag=direct status=none)
  record "$r" dd read "$t"
  rm -rf "$d"
  for t in jog aws rclone; do
    s=$(timed upload "$t" "$t-$r")
    record "$r" "$t" upload "$s"
  done
  for t in jog jog-nofsync aws rclone; do
    k=${t%-nofsync}-$r
    cold
    s=$(timed download "$t" "$k" "$work/down")
    record "$r" "$t" download "$s"
    check "$work/down"
  done
  aws --endpoint-url "$EP" s3 rm --recursive --only-show-errors s3://cpbench/
  echo "round $r done" >&2
done

json_array "$OUT/cp.json" "${records[@]}"

# Medians per tool and direction, and the ratios the issue asks for.
sed -n 's/.*"tool":"\([a-z-]*\)","direction":"\([a-z]*\)","seconds":[0-9.]*,"bps":\([0-9]*\).*/\1 \2 \3/p' "$OUT/cp.json" |
  sort -k1,2 -k3n | awk -v size="$SIZE" -v rounds="$ROUNDS" -v warm="$warm_only" '
    { v[$1 " " $2] = v[$1 " " $2] " " $3 }
    END {
      for (k in v) { n = split(substr(v[k], 2), a, " "); m[k] = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      printf "# jog cp, %s, %d rounds (medians, MB/s)\n\n", size, rounds
      if (warm) print "The page cache could not be dropped: downloads and the direct read of dd are as measured, the server read from a warm cache.\n"
      print "| tool | upload | download |"
      print "|---|---|---|"
      printf "| dd (write with fsync; read with iflag=direct) | %.0f | %.0f |\n", m["dd write"] / 1e6, m["dd read"] / 1e6
      split("jog jog-nofsync aws rclone", ts, " ")
      for (i = 1; i <= 4; i++) {
        t = ts[i]; up = (t "" == "jog-nofsync") ? "" : sprintf("%.0f", m[t " upload"] / 1e6)
        printf "| %s | %s | %.0f |\n", t == "jog" ? "jog cp" : t == "jog-nofsync" ? "jog cp --no-fsync" : t, up, m[t " download"] / 1e6
      }
      print ""
      printf "- jog cp upload / dd write: %.2f\n", m["jog upload"] / m["dd write"]
      printf "- jog cp download (fsync) / dd write: %.2f; jog cp --no-fsync download / dd direct read: %.2f\n", m["jog download"] / m["dd write"], m["jog-nofsync download"] / m["dd read"]
      printf "- jog cp / aws s3 cp: upload %.2f×, download %.2f× (--no-fsync %.2f×)\n", m["jog upload"] / m["aws upload"], m["jog download"] / m["aws download"], m["jog-nofsync download"] / m["aws download"]
      printf "- jog cp / rclone copyto: upload %.2f×, download %.2f× (--no-fsync %.2f×)\n", m["jog upload"] / m["rclone upload"], m["jog download"] / m["rclone download"], m["jog-nofsync download"] / m["rclone download"]
    }' | tee "$OUT/SUMMARY.md"
echo "wrote $OUT/cp.json"
