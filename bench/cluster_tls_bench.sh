#!/usr/bin/env bash
# What TLS costs a local 3-node cluster (RF 3, QUORUM): the same cluster
# started plain and with `keywise cluster start --ssl` (TLS on the CQL
# port, between nodes and to etcd; docs/security.md 5), measured
# alternately in one run with `keywise bench` (over TLS for the --ssl
# cluster):
#
#   bash bench/cluster_tls_bench.sh [DURATION_S] [CONCURRENCY] [PARTITIONS] [ROUNDS]
#        defaults:                   10           64            1000         2
#
# Per round and mode: a write run, then (after an unmeasured load of every
# row) a read run.
# Prints ops/s, p99 and server CPU per operation (every keywise process;
# etcd not counted) per round, so the machine's drift shows beside the
# difference.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${1:-10}
CONCURRENCY=${2:-64}
PARTITIONS=${3:-1000}
ROUNDS=${4:-2}
KEYWISE=$ROOT/build-release/keywise
WORK=$(mktemp -d /tmp/keywise-tls-bench.XXXXXX)
TICK=$(getconf CLK_TCK)
trap 'stop_all; rm -rf "$WORK"' EXIT

log() { echo "cluster_tls_bench: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

log "building $KEYWISE"
build_release_keywise

PORT=$(free_port)
STORAGE_PORT=$(free_port)
ETCD_PORT=$(free_port)

ROWS=()
run_mode() {  # round plain|tls
  local round=$1 mode=$2 tls=()
  local name="r$round$mode"
  CLUSTER_DIR=$WORK/$name
  if [[ $mode == tls ]]; then
    "$KEYWISE" cluster start --ssl --nodes 3 --dir "$CLUSTER_DIR" --port "$PORT" \
      --storage-port "$STORAGE_PORT" --etcd-port "$ETCD_PORT" >&2
    tls=(--ssl --ssl-ca "$CLUSTER_DIR/tls/ca.pem"
         --ssl-cert "$CLUSTER_DIR/tls/client-cert.pem"
         --ssl-key "$CLUSTER_DIR/tls/client-key.pem")
  else
    start_cluster "$name"
  fi
  local common=(--host 127.0.0.1,127.0.0.2,127.0.0.3 --replication-factor 3
                --consistency QUORUM "${tls[@]}")
  local w r
  w=($(measured "$WORK/w.json" "${common[@]}" --workload write))
  # Load the rows for the reads, unmeasured, then read them.
  "$KEYWISE" bench --port "$PORT" --quiet --partitions "$PARTITIONS" --rows-per-partition 100 \
    --concurrency "$CONCURRENCY" --workload read --duration 0s "${common[@]}" >/dev/null
  r=($(measured "$WORK/r.json" "${common[@]}" --workload read --no-load))
  stop_all
  rm -rf "${WORK:?}/$name"
  ROWS+=("| $round | $mode | write | ${w[0]} | ${w[1]} | ${w[2]} | ${w[5]} |")
  ROWS+=("| $round | $mode | read | ${r[0]} | ${r[1]} | ${r[2]} | ${r[5]} |")
}

for ((round = 1; round <= ROUNDS; round++)); do
  run_mode "$round" plain
  run_mode "$round" tls
done

echo "Command: bash bench/cluster_tls_bench.sh $DURATION $CONCURRENCY $PARTITIONS $ROUNDS ($(nproc) CPUs, $(date +%F), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| round | mode | workload | ops/s | p99 ms | server CPU us/op | errors |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
