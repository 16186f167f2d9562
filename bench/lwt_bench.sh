#!/usr/bin/env bash
# Lightweight transactions and counters next to plain writes, on one node and
# on a local 3-node cluster (RF 3), measured in one run with `keywise bench`:
#
#   write       INSERT of a random row (the baseline; QUORUM in the cluster)
#   lwt-insert  INSERT ... IF NOT EXISTS of a random row (applied the first
#               time a row is drawn; every one is a compare-and-set round)
#   cas         UPDATE ... SET v = ? IF EXISTS of a loaded row (applies)
#   counter     UPDATE ... SET n = n + 1 of a random counter
#
#   bash bench/lwt_bench.sh [DURATION_S] [CONCURRENCY] [PARTITIONS]
#        defaults:           10           64            1000
#
# A round of one node takes the partition's lock, reads, decides and
# writes. In the cluster a round is Cassandra 4's Paxos (docs/lwt.md):
# prepare, a quorum read, propose, commit: four round trips from the
# coordinator to a quorum of replicas, where a plain write needs one.
# A counter increment is led by a replica, which reads and writes its own
# shard locally and then writes it to the others: one round trip, as a
# plain write (docs/counters.md). Reported: ops/s, p99,
# server CPU per operation (user+system of every keywise process, etcd not
# included), the bench's CPU per operation and errors. Writes the table into
# docs/performance.md between the lwt_bench:begin/end markers.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${1:-10}
CONCURRENCY=${2:-64}
PARTITIONS=${3:-1000}
KEYWISE=$ROOT/build-release/keywise
WORK=$(mktemp -d /tmp/keywise-lwt-bench.XXXXXX)
TICK=$(getconf CLK_TCK)
trap 'stop_all; rm -rf "$WORK"' EXIT

log() { echo "lwt_bench: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

log "building $KEYWISE"
build_release_keywise

PORT=$(free_port)
STORAGE_PORT=$(free_port)
ETCD_PORT=$(free_port)

ROWS=()
run_config() {  # label nodes rf consistency
  local label=$1 nodes=$2 rf=$3 cl=$4 hosts
  log "$label"
  if [[ $nodes == 1 ]]; then
    start_single; hosts=127.0.0.1
  else
    start_cluster "c$rf"; hosts=127.0.0.1,127.0.0.2,127.0.0.3
  fi
  local common=(--host "$hosts" --replication-factor "$rf" --consistency "$cl")
  local workload f
  for workload in write lwt-insert cas counter; do
    log "$label: $workload"
    f=($(measured "$WORK/$workload.json" "${common[@]}" --workload "$workload"))
    ROWS+=("| $label | $workload | ${f[0]} | ${f[1]} | ${f[2]} | ${f[3]} | ${f[5]} |")
  done
  stop_all
}

run_config "1 node" 1 1 ONE
run_config "3 nodes RF3 QUORUM" 3 3 QUORUM

TABLE=$(
  echo "Command: bash bench/lwt_bench.sh $DURATION $CONCURRENCY $PARTITIONS ($(nproc) CPUs, $(date +%F), load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "| configuration | workload | ops/s | p99 ms | server CPU us/op | bench CPU us/op | errors |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
)
echo "$TABLE"

DOC=$ROOT/docs/performance.md
if grep -q '^<!-- lwt_bench:begin -->$' "$DOC" && grep -q '^<!-- lwt_bench:end -->$' "$DOC"; then
  python3 - "$DOC" "$TABLE" <<'EOF'
import sys
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
begin, end = "<!-- lwt_bench:begin -->", "<!-- lwt_bench:end -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + "\n\n" + table + "\n\n" + end + tail)
EOF
  log "table written into docs/performance.md"
else
  log "no lwt_bench markers in docs/performance.md: not updated"
fi
