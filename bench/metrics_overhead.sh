#!/usr/bin/env bash
# What counting for /metrics costs (docs/metrics.md): one node, `keywise
# bench` writes then point reads, with metrics_enabled false and true in
# turn, ROUNDS times, in one run (the machine's noise hits both alike);
# while metrics are on, /metrics is scraped every second (Prometheus
# setups usually scrape every 15 s to 1 min).
#
#   bash bench/metrics_overhead.sh [DURATION_S] [CONCURRENCY] [ROUNDS]
#        defaults:                  10           64            3
#
# Prints each run's ops/s and server CPU per op, then per workload the
# median of the rounds with metrics on over off (the issue asks for at
# most 3% less throughput).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${1:-10}
CONCURRENCY=${2:-64}
ROUNDS=${3:-3}
PARTITIONS=1000
KEYWISE=$ROOT/build-release/keywise
WORK=$(mktemp -d /tmp/keywise-metrics-bench.XXXXXX)
TICK=$(getconf CLK_TCK)
SCRAPER=""
trap 'stop_scraper; stop_all; rm -rf "$WORK"' EXIT

log() { echo "metrics_overhead: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

stop_scraper() {
  if [[ -n $SCRAPER ]]; then kill "$SCRAPER" 2>/dev/null || true; wait "$SCRAPER" 2>/dev/null || true; SCRAPER=""; fi
}

start_node() {  # enabled(true|false)
  local dir=$WORK/node-$1-$RANDOM
  mkdir -p "$dir"
  METRICS_PORT=$(free_port 1)
  printf 'metrics_enabled: %s\nmetrics_port: %s\n' "$1" "$METRICS_PORT" >"$dir/keywise.yaml"
  start_single "$dir/data" "$dir/keywise.yaml"
}

log "building $KEYWISE"
build_release_keywise
PORT=$(free_port 1)

declare -A OPS
ROWS=()
for ((round = 1; round <= ROUNDS; round++)); do
  for enabled in false true; do
    start_node "$enabled"
    if [[ $enabled == true ]]; then
      python3 -c '
import sys, time, urllib.request
while True:
    try:
        urllib.request.urlopen(sys.argv[1], timeout=5).read()
    except OSError:
        pass
    time.sleep(1)' "http://127.0.0.1:$METRICS_PORT/metrics" &
      SCRAPER=$!
    fi
    for workload in write read; do
      log "round $round, metrics_enabled $enabled: $workload"
      f=($(measured "$WORK/$workload.json" --workload "$workload"))
      OPS[$workload-$enabled]+="${f[0]} "
      ROWS+=("| $round | $enabled | $workload | ${f[0]} | ${f[1]} | ${f[2]} |")
    done
    stop_scraper
    stop_all
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "Command: bash bench/metrics_overhead.sh $DURATION $CONCURRENCY $ROUNDS ($(nproc) CPUs, $(date +%F), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| round | metrics_enabled | workload | ops/s | p99 ms | server CPU us/op |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
for workload in write read; do
  off=$(echo "${OPS[$workload-false]}" | median)
  on=$(echo "${OPS[$workload-true]}" | median)
  python3 -c "import sys; off, on = float(sys.argv[2]), float(sys.argv[3]); print('%s: median %.0f ops/s off, %.0f on: %.1f%% of the throughput off' % (sys.argv[1], off, on, 100 * on / off))" "$workload" "$off" "$on"
done
