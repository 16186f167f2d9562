#!/usr/bin/env bash
# Routing by learned tablets against routing by the advertised tokens alone,
# on a local 3-node cluster (keywise cluster: etcd and nodes on
# 127.0.0.1-3, replication_factor 1) whose bench table has split into many
# tablets that the balancer spread over the nodes, so the tokens the nodes
# advertise (for the initial tablets) no longer say where most rows are:
#
#   bash bench/tablet_routing_bench.sh [DURATION_S] [CONCURRENCY]
#        defaults:                      8            64
#
# Loads 3000 partitions x 50 rows through a 256 KiB split size, waits until
# every node holds at least 20 tablets, then alternates point-read runs:
# `keywise bench --no-tablet-routing` (as the DataStax drivers route) and
# `keywise bench` (learning tablets-routing-v1 routes), twice each.
# Reported per run: ops/s, p99, server CPU per operation (user+system of
# the keywise processes), and the share of requests that reached a node
# holding no replica (which forwards them), counted by the bench from the
# replies carrying a route.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${1:-8}
CONCURRENCY=${2:-64}
KEYWISE=$ROOT/build-release/keywise
WORK=$(mktemp -d /tmp/keywise-routing-bench.XXXXXX)
TICK=$(getconf CLK_TCK)
CLUSTER_DIR=$WORK/cluster
trap '"$KEYWISE" cluster stop --dir "$CLUSTER_DIR" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

log() { echo "tablet_routing_bench: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

log "building $KEYWISE"
build_release_keywise

PORT=$(free_port)
ETCD_PORT=$(free_port)
STORAGE_PORT=$(free_port)
"$KEYWISE" cluster start --nodes 3 --dir "$CLUSTER_DIR" --port "$PORT" \
  --storage-port "$STORAGE_PORT" --etcd-port "$ETCD_PORT" \
  --conf tablet_split_size_in_kb=256 --conf tablet_split_requests_per_second=0 \
  --conf initial_tablets=2 --conf tablet_load_report_interval_in_ms=300 \
  --conf tablet_balancer_interval_in_ms=100 >&2

HOSTS=127.0.0.1,127.0.0.2,127.0.0.3
COMMON=(--host "$HOSTS" --port "$PORT" --partitions 3000 --rows-per-partition 50
        --concurrency "$CONCURRENCY" --quiet)
log "loading"
"$KEYWISE" bench "${COMMON[@]}" --workload write --duration 10s --value-size 200 >&2

held_min() {
  "$KEYWISE" admin status --etcd "127.0.0.1:$ETCD_PORT" --cluster keywise |
    awk '/^[UD][NLJX] / { n = $(NF - 2); if (min == "" || n < min) min = n } END { print min + 0 }'
}
for ((i = 0; i < 120; i++)); do
  (( $(held_min) >= 20 )) && break
  sleep 1
done
(( $(held_min) >= 20 )) || die "the tablets did not spread (fewest on a node: $(held_min))"
LISTING=$("$KEYWISE" admin tablets keywise_bench --etcd "127.0.0.1:$ETCD_PORT" --cluster keywise)
TABLETS=$(sed -n 1p <<<"$LISTING" | grep -o '[0-9]* tablets')
log "table split into $TABLETS"

echo "| routing | ops/s | p99 ms | server CPU us/op | reached a non-replica | tablets learned |"
echo "|---|---|---|---|---|---|"
for round in 1 2; do
  for mode in tokens tablets; do
    extra=()
    [[ $mode == tokens ]] && extra=(--no-tablet-routing)
    before=$(server_ticks)
    "$KEYWISE" bench "${COMMON[@]}" --workload read --no-load \
      --duration "${DURATION}s" --json "${extra[@]}" >"$WORK/run.json"
    after=$(server_ticks)
    python3 - "$WORK/run.json" "$before" "$after" "$TICK" "$mode" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cpu_us = (int(sys.argv[3]) - int(sys.argv[2])) / int(sys.argv[4]) / max(r["ops"], 1) * 1e6
label = "advertised tokens" if sys.argv[5] == "tokens" else "learned tablets"
learned = r["learned_tablets"] if r["tablet_aware"] else "-"
print("| %s | %.0f | %.2f | %.1f | %.2f%% | %s |" % (
    label, r["ops_per_sec"], r["p99_ms"], cpu_us,
    100.0 * r["routed_replies"] / max(r["ops"] + r["errors"], 1), learned))
if r["errors"]:
    sys.exit("errors: %d (first: %s)" % (r["errors"], r["first_error"]))
PY
  done
done
log "done ($TABLETS)"
