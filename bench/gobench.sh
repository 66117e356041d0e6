#!/usr/bin/env bash
# The Go benchmarks of the hot paths at two builds, compared with benchstat.
#
#   bench/gobench.sh [OLD [NEW]]
#
# OLD is a commit (default HEAD~1); NEW a commit, or the working tree when
# left out. Each build's test binaries are compiled once; then the builds
# take turns, COUNT runs each, so a slow minute of this shared machine
# falls on both. Benchmarks that exist in only one build are listed in its
# column alone.
#
#   PKGS       packages (default: signature verification, checksums, the
#              metadata store's listing and put paths)
#   BENCH      -test.bench regexp (default .)
#   COUNT      runs of each build (default 6; benchstat wants ≥ 6 for a
#              confidence interval)
#   BENCHTIME  -test.benchtime (default 1s)
#   OUT        result dir (default bench/results/<date>-gobench)
#
# Writes OUT/old.txt, OUT/new.txt (raw `go test -bench` output),
# OUT/benchstat.txt, and OUT/info.txt (the commits and the command).
set -euo pipefail
cd "$(dirname "$0")/.."

OLD=${1:-HEAD~1}
NEW=${2:-}
PKGS=${PKGS:-"./internal/sigv4 ./internal/checksum ./internal/meta/sqlite"}
BENCH=${BENCH:-.}
COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-1s}
OUT=${OUT:-bench/results/$(date -u +%F)-gobench}

work=$(mktemp -d)
cleanup() {
  for side in old new; do
    [ -d "$work/$side" ] && git worktree remove --force "$work/$side" >/dev/null 2>&1
  done
  rm -rf "$work"
}
trap cleanup EXIT

git worktree add -q --detach "$work/old" "$OLD"
newtree=$PWD
newdesc="working tree at $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + changes')"
if [ -n "$NEW" ]; then
  git worktree add -q --detach "$work/new" "$NEW"
  newtree=$work/new
  newdesc=$(git rev-parse --short "$NEW")
fi
olddesc=$(git rev-parse --short "$OLD")

# bin <side> <pkg>: the path of that build's test binary for the package.
bin() { echo "$work/bin/$1/$(echo "$2" | tr '/.' '__')"; }

# build <side> <tree>: one test binary per package that has benchmarks.
build() {
  local side=$1 tree=$2 p
  mkdir -p "$work/bin/$side"
  for p in $PKGS; do
    if [ ! -d "$tree/$p" ]; then
      echo "== $side: no $p" >&2
      continue
    fi
    (cd "$tree" && go test -c -o "$(bin "$side" "$p")" "$p")
  done
}
echo "== building $olddesc (old) and $newdesc (new)"
build old "$work/old"
build new "$newtree"

mkdir -p "$OUT"
: >"$OUT/old.txt"
: >"$OUT/new.txt"
for i in $(seq "$COUNT"); do
  for side in old new; do
    tree=$work/old
    [ "$side" = new ] && tree=$newtree
    echo "== run $i/$COUNT: $side"
    for p in $PKGS; do
      b=$(bin "$side" "$p")
      [ -x "$b" ] || continue
      # In the package's directory, as go test runs it (testdata).
      (cd "$tree/$p" && "$b" -test.run '^$' -test.bench "$BENCH" -test.benchtime "$BENCHTIME" \
        -test.benchmem -test.count 1) >>"$OUT/$side.txt"
    done
  done
done

{
  echo "old: $olddesc"
  echo "new: $newdesc"
  echo "command: PKGS=\"$PKGS\" BENCH=\"$BENCH\" COUNT=$COUNT BENCHTIME=$BENCHTIME bench/gobench.sh $*"
  echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version)"
} >"$OUT/info.txt"
# Built, not run with go tool, so it can run in OUT: the columns are then
# named old.txt and new.txt, not by their paths.
go build -o "$work/benchstat" golang.org/x/perf/cmd/benchstat
(cd "$OUT" && "$work/benchstat" old.txt new.txt) | tee "$OUT/benchstat.txt"
echo "== done: $OUT/benchstat.txt"
