#!/usr/bin/env bash
# Two builds of keywise side by side: BASE (e.g. the commit before a change,
# or a build with another option) and this tree's build-release/keywise,
# one node each in turn, ROUNDS times in one run (the machine's noise hits
# both alike): `keywise bench` writes, point reads and 100-row scans, with
# the server's CPU per operation, then per workload the medians of the
# tree's over the base's.
#
#   bash bench/binaries_ab.sh BASE_KEYWISE [DURATION_S] [CONCURRENCY] [ROUNDS]
#        defaults:                          10           64            5
#
# KEYWISE (default build-release/keywise, built when missing) is the tree's
# binary; it also runs the load. 1,000 partitions of 100 rows.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BASE=$(realpath "${1:?usage: binaries_ab.sh BASE_KEYWISE [DURATION_S] [CONCURRENCY] [ROUNDS]}")
DURATION=${2:-10}
CONCURRENCY=${3:-64}
ROUNDS=${4:-5}
PARTITIONS=1000
KEYWISE=${KEYWISE:-$ROOT/build-release/keywise}
WORK=$(mktemp -d /tmp/keywise-ab.XXXXXX)
TICK=$(getconf CLK_TCK)
trap 'stop_all; rm -rf "$WORK"' EXIT

log() { echo "binaries_ab: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

if [[ ! -x $KEYWISE ]]; then
  log "building $KEYWISE"
  build_release_keywise
fi
PORT=$(free_port 1)

declare -A OPS CPU
ROWS=()
for ((round = 1; round <= ROUNDS; round++)); do
  for variant in base tree; do
    dir=$WORK/node-$variant-$round
    mkdir -p "$dir"
    printf 'metrics_port: 0\n' >"$dir/keywise.yaml"
    binary=$KEYWISE
    [[ $variant == base ]] && binary=$BASE
    start_single "$dir/data" "$dir/keywise.yaml" "$binary"
    for workload in write read scan; do
      log "round $round, $variant: $workload"
      args=(--workload "$workload")
      [[ $workload == scan ]] && args+=(--scan-rows 100)
      f=($(measured "$WORK/$workload.json" "${args[@]}"))
      OPS[$workload-$variant]+="${f[0]} "
      CPU[$workload-$variant]+="${f[2]} "
      ROWS+=("| $round | $variant | $workload | ${f[0]} | ${f[1]} | ${f[2]} |")
    done
    stop_all
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "Command: bash bench/binaries_ab.sh BASE $DURATION $CONCURRENCY $ROUNDS ($(nproc) CPUs, $(date +%F), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| round | server | workload | ops/s | p99 ms | server CPU us/op |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
for workload in write read scan; do
  python3 -c "import sys; b, v, bc, vc = map(float, sys.argv[2:]); print('%s: median %.0f ops/s, %.1f%% of the base (%.0f); server CPU %.1f us/op, %.1f%% of the base (%.1f)' % (sys.argv[1], v, 100 * v / b, b, vc, 100 * vc / bc, bc))" \
    "$workload" "$(echo "${OPS[$workload-base]}" | median)" "$(echo "${OPS[$workload-tree]}" | median)" \
    "$(echo "${CPU[$workload-base]}" | median)" "$(echo "${CPU[$workload-tree]}" | median)"
done
