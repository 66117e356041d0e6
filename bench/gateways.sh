#!/usr/bin/env bash
# Several gateways over one PostgreSQL database and one data directory
# (issue 24, docs/SCALING.md): JOG on SQLite (one server) and JOG over
# PostgreSQL with 1, 2 and 3 gateways, each setup on a fresh data dir and
# database, measured by one `jog bench` spreading its requests over the
# setup's gateways in turn (--endpoint a,b,c: a round-robin balancer) and
# summing their CPU (--server-pid). PostgreSQL runs with its durable
# defaults (bench/pg.sh); its CPU is in the machine's figure.
#
#   bench/gateways.sh                              # every setup, every cell, 10 s each
#   SETUPS="sqlite pg1" CELLS="put:1KiB:16 get:1KiB:16" bench/gateways.sh
#   ROUNDS=3 DURATION=20s bench/gateways.sh
#   BASE_BIN=/tmp/jog-old SETUPS="sqlite pg1 pgbase" bench/gateways.sh   # pgbase: one gateway of another build
#   PG_CPUS=1 GW_CPUS=0 bench/gateways.sh   # PostgreSQL on CPU 1, gateways and client on CPU 0:
#                                           # the database on a machine of its own, in miniature
#
# Writes $OUT/<setup>-<workload>-<size>-c<concurrency>-r<round>.json and
# $OUT/SUMMARY.md (jog bench compare: medians over the rounds).
set -euo pipefail
cd "$(dirname "$0")/.."

SETUPS=${SETUPS:-sqlite pg1 pg2 pg3}
CELLS=${CELLS:-put:1KiB:16 get:1KiB:16 put:1KiB:64 get:1KiB:64 put:1MiB:16 get:1MiB:16}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-1}
OBJECTS=${OBJECTS:-2000}
PORT=${PORT:-19400}
OUT=${OUT:-bench/results/$(date -u +%F)-gateways}
AK=jogbenchaccess0001
SK=jogbenchsecret00000000000000000001

mkdir -p "$OUT"
. bench/pg.sh
pin=()
[ -n "${GW_CPUS:-}" ] && pin=(taskset -c "$GW_CPUS")
bin=$(mktemp -d)/jog
go build -o "$bin" ./cmd/jog
pids=()
stop_all() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
}
trap 'stop_all; pg_stop; rm -rf "${bin%/jog}"' EXIT
pg_start

# setup NAME DATA: start the setup's servers over DATA; sets $endpoints
# and $serverpids.
setup() {
	local name=$1 data=$2 n=1 meta=() i sbin=$bin
	case $name in
	sqlite) ;;
	pgbase) sbin=${BASE_BIN:?pgbase needs BASE_BIN}; meta=(--meta "$(pg_url "gw$(date +%s%N)")") ;;
	pg*) n=${name#pg}; meta=(--meta "$(pg_url "gw$(date +%s%N)")") ;;
	esac
	endpoints= serverpids=
	for i in $(seq 1 "$n"); do
		local addr=127.0.0.1:$((PORT + i))
		"${pin[@]}" "$sbin" server --addr "$addr" --data-dir "$data" "${meta[@]}" --access-key "$AK" --secret-key "$SK" \
			--log-level warn --console=false >>"$data.log" 2>&1 &
		pids+=($!)
		for _ in $(seq 100); do curl -sf -o /dev/null "http://$addr/health/ready" && break; sleep 0.1; done
		endpoints+=${endpoints:+,}http://$addr
		serverpids+=${serverpids:+,}$!
	done
}

read -r -a order <<<"$SETUPS"
for r in $(seq 1 "$ROUNDS"); do
	for s in "${order[@]}"; do
		data=$(mktemp -d "${TMPDIR:-/tmp}/jog-gw.XXXXXX")
		setup "$s" "$data"
		for cell in $CELLS; do
			IFS=: read -r wl size conc <<<"$cell"
			"${pin[@]}" "$bin" bench "$wl" --endpoint "$endpoints" --server-pid "$serverpids" --access-key "$AK" --secret-key "$SK" \
				--size "$size" --concurrency "$conc" --duration "$DURATION" --objects "$OBJECTS" --label "$s" --quiet \
				--out "$OUT/$s-$wl-$size-c$conc-r$r.json" >/dev/null
			echo "$(date -u +%T) round $r $s $cell load $(cut -d' ' -f1 /proc/loadavg)"
		done
		stop_all
		rm -rf "$data" "$data.log"
	done
	order=("${order[@]:1}" "${order[0]}") # rotate: no setup always runs first
done
"$bin" bench compare "$OUT"/*.json >"$OUT/SUMMARY.md"
cat "$OUT/SUMMARY.md"
