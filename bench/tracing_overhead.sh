#!/usr/bin/env bash
# What request tracing costs when it is off (docs/tracing.md): one node,
# `keywise bench` writes then point reads against a keywise built without
# tracing (BASE, e.g. the commit before it) and against this tree's with
# trace_probability 0, in turn, ROUNDS times in one run (the machine's noise
# hits both alike); then, for scale, with trace_probability 0.01 (1% of
# requests traced and written to system_traces).
#
#   bash bench/tracing_overhead.sh BASE_KEYWISE [DURATION_S] [CONCURRENCY] [ROUNDS]
#        defaults:                              10           64            3
#
# KEYWISE (default build-release/keywise, built when missing) is the tree's
# binary; it also runs the load. Prints each run's ops/s, p99 and server CPU
# per op, then per workload the medians of each variant over the base's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BASE=$(realpath "${1:?usage: tracing_overhead.sh BASE_KEYWISE [DURATION_S] [CONCURRENCY] [ROUNDS]}")
DURATION=${2:-10}
CONCURRENCY=${3:-64}
ROUNDS=${4:-3}
PARTITIONS=1000
KEYWISE=${KEYWISE:-$ROOT/build-release/keywise}
WORK=$(mktemp -d /tmp/keywise-tracing-bench.XXXXXX)
TICK=$(getconf CLK_TCK)
trap 'stop_all; rm -rf "$WORK"' EXIT

log() { echo "tracing_overhead: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

start_variant() {  # base | p0 | p0.01
  local dir=$WORK/node-$1-$RANDOM binary=$KEYWISE
  mkdir -p "$dir"
  printf 'metrics_port: 0\n' >"$dir/keywise.yaml"
  case $1 in
    base) binary=$BASE ;;
    p0) printf 'trace_probability: 0\n' >>"$dir/keywise.yaml" ;;
    p0.01) printf 'trace_probability: 0.01\n' >>"$dir/keywise.yaml" ;;
  esac
  start_single "$dir/data" "$dir/keywise.yaml" "$binary"
}

if [[ ! -x $KEYWISE ]]; then
  log "building $KEYWISE"
  build_release_keywise
fi
PORT=$(free_port 1)

declare -A OPS
ROWS=()
VARIANTS=(base p0 p0.01)
for ((round = 1; round <= ROUNDS; round++)); do
  for variant in "${VARIANTS[@]}"; do
    start_variant "$variant"
    for workload in write read; do
      log "round $round, $variant: $workload"
      f=($(measured "$WORK/$workload.json" --workload "$workload"))
      OPS[$workload-$variant]+="${f[0]} "
      ROWS+=("| $round | $variant | $workload | ${f[0]} | ${f[1]} | ${f[2]} |")
    done
    stop_all
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "Command: bash bench/tracing_overhead.sh BASE $DURATION $CONCURRENCY $ROUNDS ($(nproc) CPUs, $(date +%F), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| round | server | workload | ops/s | p99 ms | server CPU us/op |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
for workload in write read; do
  base=$(echo "${OPS[$workload-base]}" | median)
  for variant in p0 p0.01; do
    v=$(echo "${OPS[$workload-$variant]}" | median)
    python3 -c "import sys; b, v = float(sys.argv[3]), float(sys.argv[4]); print('%s, %s: median %.0f ops/s, %.1f%% of the base (%.0f)' % (sys.argv[1], sys.argv[2], v, 100 * v / b, b))" "$workload" "trace_probability ${variant#p}" "$base" "$v"
  done
done
