#!/usr/bin/env bash
# Runs every Go fuzz target in the repository, one after another, each for
# FUZZTIME (default 30s), and fails if any of them finds a crash or a broken
# invariant. Targets are discovered with `go test -list 'Fuzz.*'` in every
# package, so new ones are picked up without editing this script.
#
#   scripts/fuzz.sh                      # every target, 30s each
#   FUZZTIME=5m scripts/fuzz.sh          # longer: with 2 workers (-parallel,
#                                        # FUZZ_PARALLEL, default: the cores),
#                                        # about 10 CPU-minutes per target
#   FUZZTIME=20s scripts/fuzz.sh ./internal/s3api   # only some packages
#   FUZZ_CPU=600 FUZZTIME=2m scripts/fuzz.sh   # each target in 2m rounds until
#                                        # it has had 600 CPU-seconds (a
#                                        # shared machine gives a time budget
#                                        # fewer CPU-seconds than it says)
#   FUZZ_ONLY='^Fuzz(ParseRange|ReadXML)$' scripts/fuzz.sh ./internal/s3api
#                                        # only the targets the regexp names
#
# A failing input is written by `go test` to the package's
# testdata/fuzz/<FuzzName>/ directory; commit it with the fix so it stays a
# regression test (plain `go test` runs every file there as a seed).
# Set FUZZ_SAVE_CORPUS=1 to also copy the inputs each run found interesting
# (from the Go build cache) into testdata/fuzz/<FuzzName>/ as seed corpus.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-30s}
FUZZ_PARALLEL=${FUZZ_PARALLEL:-$(nproc)}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  mapfile -t pkgs < <(go list ./...)
fi

cache=$(go env GOCACHE)/fuzz
failed=()
summary=()
total=0
for pkg in "${pkgs[@]}"; do
  if ! targets=$(go test -list '^Fuzz' "$pkg" 2>&1); then
    echo "== $pkg: cannot list tests:"; echo "$targets"
    failed+=("$pkg (build)")
    continue
  fi
  dir=$(go list -f '{{.Dir}}' "$pkg")
  importpath=$(go list -f '{{.ImportPath}}' "$pkg")
  for name in $(grep -E '^Fuzz' <<<"$targets" | grep -E "${FUZZ_ONLY:-.}"); do
    total=$((total + 1))
    echo "== $importpath $name ($FUZZTIME)"
    log=$(mktemp)
    start=$(date +%s)
    cpuf=$(mktemp)
    # The CPU time of the fuzzer and its workers (children of go test),
    # so a report can say how many CPU-minutes a target really had.
    # (Debian's package time; without it the column says "?").
    timer=()
    [ -x /usr/bin/time ] && timer=(/usr/bin/time -a -o "$cpuf" -f '%U %S')
    # Rounds: one unless FUZZ_CPU asks for more CPU-seconds than a round
    # gave. Each round starts from the corpus the rounds before it built
    # (go test keeps it in the build cache), so rounds add up.
    execs=0 rc=0 flakes=0
    seeds=$(ls "$dir/testdata/fuzz/$name" 2>/dev/null | wc -l)
    while :; do
      "${timer[@]}" go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZ_PARALLEL" "$pkg" 2>&1 | tee -a "$log" >"$log.round"
      rc=${PIPESTATUS[0]}
      cat "$log.round"
      e=$(grep -oE 'execs: [0-9]+' "$log.round" | tail -1 | grep -oE '[0-9]+' || echo 0)
      execs=$((execs + e))
      cpu=$(awk 'NF == 2 { c += $1 + $2; ok = 1 } END { if (ok) printf "%.0f", c; else print "?" }' "$cpuf")
      # Go's fuzz coordinator can fail a target with a bare "context
      # deadline exceeded" as -fuzztime ends, on a loaded machine, without
      # any failing input (golang/go#75804, fixed in Go 1.27): no new file
      # in testdata/fuzz, so it is not a finding. Count it and go on.
      if [ "$rc" -ne 0 ] && grep -q '^    context deadline exceeded$' "$log.round" &&
        [ "$(ls "$dir/testdata/fuzz/$name" 2>/dev/null | wc -l)" -eq "$seeds" ]; then
        flakes=$((flakes + 1)) rc=0
        echo "== $name: the coordinator's deadline race (golang/go#75804), no failing input: not a finding"
        [ "$flakes" -ge 3 ] && rc=1
      fi
      [ "$rc" -ne 0 ] && break
      [ -z "${FUZZ_CPU:-}" ] || [ "$cpu" = "?" ] || [ "$cpu" -ge "$FUZZ_CPU" ] && break
    done
    rm -f "$log.round"
    took=$(( $(date +%s) - start ))
    rm -f "$cpuf"
    corpus=$(grep -oE 'total: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
    if [ "$rc" -ne 0 ]; then
      failed+=("$importpath $name")
      summary+=("$(printf '%-58s %-32s FAIL  %10s execs %4ss cpu %5ss' "$importpath" "$name" "$execs" "$took" "$cpu")")
    else
      summary+=("$(printf '%-58s %-32s ok    %10s execs %4ss cpu %5ss corpus %s' "$importpath" "$name" "$execs" "$took" "$cpu" "$corpus")")
    fi
    echo "== done: ${summary[-1]}"
    if [ "${FUZZ_SAVE_CORPUS:-}" = 1 ] && [ -d "$cache/$importpath/$name" ]; then
      mkdir -p "$dir/testdata/fuzz/$name"
      cp -n "$cache/$importpath/$name"/* "$dir/testdata/fuzz/$name/" 2>/dev/null || true
    fi
    rm -f "$log"
  done
done

echo
echo "== fuzz summary ($total targets, $FUZZTIME each${FUZZ_CPU:+, rounds until ${FUZZ_CPU} CPU-s})"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo
  echo "FAILED:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
if [ "$total" -eq 0 ]; then
  echo "no fuzz targets found"
  exit 1
fi
echo "all fuzz targets passed"
