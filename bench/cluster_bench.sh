#!/usr/bin/env bash
# Keywise as one node and as a local 3-node cluster (keywise cluster: an etcd
# and nodes on 127.0.0.1-3), measured in one run with `keywise bench`:
#
#   single       one node, no etcd (the embedded default)
#   3n RF1 ONE   3 nodes, replication_factor 1, consistency ONE
#   3n RF3 ONE   3 nodes, replication_factor 3, consistency ONE
#   3n RF3 QUORUM
#
#   bash bench/cluster_bench.sh [DURATION_S] [CONCURRENCY] [PARTITIONS]
#        defaults:               20           64            1000
#
# Per configuration: a write run (random row of PARTITIONS x 100 rows), then
# a point-read run over rows loaded beforehand (the load is not measured).
# The bench sends each request to the node owning its token (token-aware,
# from system.local/peers). Reported: ops/s, p99, server CPU per operation
# (user+system of every keywise process, etcd not included), the bench's
# own CPU per operation, each node's share of the requests, and the share of
# partitions a coordinator was itself a replica of, and the node-to-node
# messages per socket write over the configuration's whole run (both from
# the nodes' logs).
# Writes the table into docs/performance.md between the
# cluster_bench:begin/end markers.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${1:-20}
CONCURRENCY=${2:-64}
PARTITIONS=${3:-1000}
KEYWISE=$ROOT/build-release/keywise
WORK=$(mktemp -d /tmp/keywise-cluster-bench.XXXXXX)
TICK=$(getconf CLK_TCK)
trap 'stop_all; rm -rf "$WORK"' EXIT

log() { echo "cluster_bench: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

log "building $KEYWISE"
build_release_keywise

PORT=$(free_port)
STORAGE_PORT=$(free_port)
ETCD_PORT=$(free_port)
replica_share() {  # from the nodes' "Coordinated N ..., M of them ..." lines
  if [[ -z $CLUSTER_DIR ]]; then echo "n/a"; return; fi
  cat "$CLUSTER_DIR"/node*/keywise.log |
    grep -o 'Coordinated [0-9]* partition reads and writes, [0-9]*' |
    awk '{ n += $2; m += $7 } END { if (n) printf "%.1f%%", 100 * m / n; else print "?" }'
}

frames_per_write() {  # from the nodes' "Wrote N messages in M socket writes"
  if [[ -z $CLUSTER_DIR ]]; then echo "n/a"; return; fi
  cat "$CLUSTER_DIR"/node*/keywise.log |
    grep -o 'Wrote [0-9]* messages in [0-9]* socket writes' |
    awk '{ n += $2; m += $5 } END { if (m) printf "%.2f", n / m; else print "?" }'
}

ROWS=()
run_config() {  # label nodes rf consistency
  local label=$1 nodes=$2 rf=$3 cl=$4 hosts
  log "$label"
  if [[ $nodes == 1 ]]; then
    start_single; hosts=127.0.0.1
  else
    start_cluster "c$rf$cl"; hosts=127.0.0.1,127.0.0.2,127.0.0.3
  fi
  local common=(--host "$hosts" --replication-factor "$rf" --consistency "$cl")
  local w r
  w=$(measured "$WORK/w.json" "${common[@]}" --workload write)
  # Load the rows for the reads, unmeasured, then read them.
  "$KEYWISE" bench --port "$PORT" --quiet --partitions "$PARTITIONS" --rows-per-partition 100 \
    --concurrency "$CONCURRENCY" --workload read --duration 0s "${common[@]}" >/dev/null
  r=$(measured "$WORK/r.json" "${common[@]}" --workload read --no-load)
  stop_all_keep_logs "$label" "$w" "$r"
}

stop_all_keep_logs() {  # label write-figures read-figures
  local label=$1 dir=$CLUSTER_DIR
  stop_all
  CLUSTER_DIR=$dir
  local share frames
  share=$(replica_share)
  frames=$(frames_per_write)
  CLUSTER_DIR=""
  local w=($2) r=($3)
  ROWS+=("| $label | write | ${w[0]} | ${w[1]} | ${w[2]} | ${w[3]} | ${w[4]} | ${w[5]} | $share | $frames |")
  ROWS+=("| $label | read | ${r[0]} | ${r[1]} | ${r[2]} | ${r[3]} | ${r[4]} | ${r[5]} | | |")
}

run_config "1 node" 1 1 ONE
run_config "3 nodes RF1 ONE" 3 1 ONE
run_config "3 nodes RF3 ONE" 3 3 ONE
run_config "3 nodes RF3 QUORUM" 3 3 QUORUM

TABLE=$(
  echo "Command: bash bench/cluster_bench.sh $DURATION $CONCURRENCY $PARTITIONS ($(nproc) CPUs, $(date +%F), load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "| configuration | workload | ops/s | p99 ms | server CPU us/op | bench CPU us/op | requests per node % | errors | coordinator was a replica | messages per socket write |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
)
echo "$TABLE"

DOC=$ROOT/docs/performance.md
if grep -q '^<!-- cluster_bench:begin -->$' "$DOC" && grep -q '^<!-- cluster_bench:end -->$' "$DOC"; then
  python3 - "$DOC" "$TABLE" <<'EOF'
import sys
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
begin, end = "<!-- cluster_bench:begin -->", "<!-- cluster_bench:end -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + "\n\n" + table + "\n\n" + end + tail)
EOF
  log "table written into docs/performance.md"
else
  log "no cluster_bench markers in docs/performance.md: not updated"
fi
