#!/usr/bin/env bash
# What an index or a view costs a write in a local 3-node cluster
# (keywise cluster: an etcd and nodes on 127.0.0.1-3), measured in one run
# with `keywise bench --workload write` on keywise_bench.kv (pk, ck, v):
#
#   none          the table alone
#   index on ck   CREATE INDEX ON kv (ck): every write reads the row first
#                 on each base replica and writes one index entry, on the
#                 replica itself or sent to its paired index replica
#   view (ck, pk) CREATE MATERIALIZED VIEW ... SELECT * ... PRIMARY KEY
#                 (ck, pk): the same, with a copy of the row
#
# each at RF=1/ONE (the index or view replica is usually another node: one
# more message per write) and RF=3/QUORUM (every node holds every tablet:
# the pair is the replica itself).
#
#   bash bench/cluster_views_bench.sh [DURATION_S] [CONCURRENCY] [PARTITIONS]
#        defaults:                     8            64            1000
#
# Reported: ops/s, p99, server CPU per write (user+system of every keywise
# process) and its ratio to the same configuration without views. Writes
# the table into docs/performance.md between the cluster_views_bench
# markers.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${1:-8}
CONCURRENCY=${2:-64}
PARTITIONS=${3:-1000}
KEYWISE=$ROOT/build-release/keywise
WORK=$(mktemp -d /tmp/keywise-cluster-views-bench.XXXXXX)
TICK=$(getconf CLK_TCK)
CLUSTER_DIR=""
trap 'stop_cluster; rm -rf "$WORK"' EXIT

log() { echo "cluster_views_bench: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

log "building $KEYWISE"
build_release_keywise

PORT=$(free_port)
STORAGE_PORT=$(free_port)
ETCD_PORT=$(free_port)

stop_cluster() {
  if [[ -n $CLUSTER_DIR ]]; then
    "$KEYWISE" cluster stop --dir "$CLUSTER_DIR" >/dev/null 2>&1 || true
    CLUSTER_DIR=""
  fi
}

cql() { "$KEYWISE" shell 127.0.0.1 "$PORT" -e "$1" >/dev/null; }

ROWS=()
run() {  # label rf consistency schema-cql...
  local label=$1 rf=$2 cl=$3
  shift 3
  CLUSTER_DIR=$WORK/c$RANDOM
  "$KEYWISE" cluster start --nodes 3 --dir "$CLUSTER_DIR" --port "$PORT" \
    --storage-port "$STORAGE_PORT" --etcd-port "$ETCD_PORT" >/dev/null
  cql "CREATE KEYSPACE keywise_bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': $rf}"
  cql "CREATE TABLE keywise_bench.kv (pk bigint, ck bigint, v blob, PRIMARY KEY (pk, ck))"
  local s
  for s in "$@"; do cql "$s"; done
  local before after
  # shellcheck disable=SC2046
  before=$(cpu_ticks $(cat "$CLUSTER_DIR"/node*/pid))
  "$KEYWISE" bench --port "$PORT" --json --quiet --concurrency "$CONCURRENCY" \
    --host 127.0.0.1,127.0.0.2,127.0.0.3 --replication-factor "$rf" \
    --consistency "$cl" --partitions "$PARTITIONS" --rows-per-partition 100 \
    --duration "${DURATION}s" --workload write >"$WORK/out.json"
  # shellcheck disable=SC2046
  after=$(cpu_ticks $(cat "$CLUSTER_DIR"/node*/pid))
  stop_cluster
  ROWS+=("$(python3 - "$WORK/out.json" "$before" "$after" "$TICK" "$label" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
cpu_us = (int(sys.argv[3]) - int(sys.argv[2])) / int(sys.argv[4]) / max(r["ops"], 1) * 1e6
print("%s|%.0f|%.2f|%.1f|%d" % (sys.argv[5], r["ops_per_sec"], r["p99_ms"], cpu_us, r["errors"]))
EOF
)")
  log "$label: ${ROWS[-1]}"
}

INDEX="CREATE INDEX ON keywise_bench.kv (ck)"
VIEW="CREATE MATERIALIZED VIEW keywise_bench.kv_by_ck AS SELECT * FROM keywise_bench.kv WHERE pk IS NOT NULL AND ck IS NOT NULL PRIMARY KEY (ck, pk)"
for config in "1 ONE" "3 QUORUM"; do
  read -r rf cl <<<"$config"
  run "RF$rf $cl|none" "$rf" "$cl"
  run "RF$rf $cl|index on ck" "$rf" "$cl" "$INDEX"
  run "RF$rf $cl|view (ck, pk)" "$rf" "$cl" "$VIEW"
done

TABLE=$(python3 - "$DURATION" "$CONCURRENCY" "$PARTITIONS" "$(nproc)" "$(date +%F)" "$(cut -d' ' -f1-3 /proc/loadavg)" "${ROWS[@]}" <<'EOF'
import sys
duration, concurrency, partitions, cpus, day, load = sys.argv[1:7]
print("Command: bash bench/cluster_views_bench.sh %s %s %s (%s CPUs, %s, load average %s)"
      % (duration, concurrency, partitions, cpus, day, load))
print()
print("| configuration | maintained | writes/s | p99 ms | server CPU us/write | x none | errors |")
print("|---|---|---|---|---|---|---|")
base = {}
for row in sys.argv[7:]:
    config, what, ops, p99, cpu, errors = row.split("|")
    if what == "none":
        base[config] = float(cpu)
    ratio = float(cpu) / base[config] if base.get(config) else 0
    print("| %s | %s | %s | %s | %s | %.2f | %s |" % (config, what, ops, p99, cpu, ratio, errors))
EOF
)
echo "$TABLE"

DOC=$ROOT/docs/performance.md
if grep -q '^<!-- cluster_views_bench:begin -->$' "$DOC" && grep -q '^<!-- cluster_views_bench:end -->$' "$DOC"; then
  python3 - "$DOC" "$TABLE" <<'EOF'
import sys
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
begin, end = "<!-- cluster_views_bench:begin -->", "<!-- cluster_views_bench:end -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + "\n\n" + table + "\n\n" + end + tail)
EOF
  log "table written into docs/performance.md"
else
  log "no cluster_views_bench markers in docs/performance.md: not updated"
fi
