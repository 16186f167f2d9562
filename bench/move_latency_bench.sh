#!/usr/bin/env bash
# The p99 of a running workload while a node joins and while a node is
# decommissioned, next to its p99 before, on a local cluster (keywise
# cluster: etcd and nodes on 127.0.0.1-4):
#
#   bash bench/move_latency_bench.sh [RATE] [LOAD_S] [RUN_S]
#        defaults:                    2000   20       3
#
# Three nodes, replication_factor 3, QUORUM. `keywise bench` loads rows of
# 1 KB for LOAD_S seconds, then runs a fixed-rate mixed workload (RATE
# operations/s, half reads, half writes; each operation's latency counts
# from its intended start, so a stall shows in full) as back-to-back runs
# of RUN_S seconds through three phases:
#   steady        5 runs while nothing moves
#   join          `keywise cluster add` starts node 4; the balancer moves
#                 replicas onto it until the nodes hold as many as each
#                 other (within one), and tablets stop moving
#   decommission  `keywise cluster decommission 4`: its replicas move back,
#                 then it stops
# Reported: one line per run (phase, ops/s, p99, p99.9, errors), then per
# phase the runs, the median and worst p99, the worst against the steady
# median, and the phase's length. Streaming is throttled by
# stream_throughput_outbound_megabits_per_sec (the default, 200, unless
# CLUSTER_CONF sets it: CLUSTER_CONF="key=value ..." goes to every node's
# keywise.yaml). KEEP_WORK=1 keeps the scratch directory (node logs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RATE=${1:-2000}
LOAD_S=${2:-20}
RUN_S=${3:-3}
KEYWISE=$ROOT/build-release/keywise
WORK=$(mktemp -d /tmp/keywise-move-bench.XXXXXX)
CLUSTER_DIR=$WORK/cluster
trap '"$KEYWISE" cluster stop --dir "$CLUSTER_DIR" >/dev/null 2>&1 || true; [[ -n ${KEEP_WORK:-} ]] || rm -rf "$WORK"' EXIT

log() { echo "move_latency_bench: $*" >&2; }
die() { log "$*"; exit 1; }

source "$ROOT/bench/cluster_lib.sh"

log "building $KEYWISE"
build_release_keywise

PORT=$(free_port 4)
STORAGE_PORT=$(free_port 4)
ETCD_PORT=$(free_port 4)
CONF=()
for setting in ${CLUSTER_CONF:-}; do CONF+=(--conf "$setting"); done
"$KEYWISE" cluster start --nodes 3 --dir "$CLUSTER_DIR" --port "$PORT" \
  --storage-port "$STORAGE_PORT" --etcd-port "$ETCD_PORT" "${CONF[@]}" >&2

COMMON=(--host 127.0.0.1,127.0.0.2,127.0.0.3 --port "$PORT" --partitions 2000
        --rows-per-partition 100 --value-size 1000 --replication-factor 3
        --consistency QUORUM --concurrency 64 --quiet)
log "loading for ${LOAD_S}s"
"$KEYWISE" bench "${COMMON[@]}" --workload write --duration "${LOAD_S}s" >&2

held() {  # "address replicas" per up node, from keywise admin status
  "$KEYWISE" admin status --etcd "127.0.0.1:$ETCD_PORT" --cluster keywise |
    awk '/^U[NLJ] / { print $2, $(NF - 2) }'
}

# Waits until every up node holds within one replica of the others and the
# counts stay so for 3 s.
wait_balanced() {
  local last="" same=0 now
  for ((i = 0; i < 1200; i++)); do
    now=$(held | sort)
    if awk '{ if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 }
            END { exit !(NR >= 4 && max - min <= 1) }' <<<"$now" &&
       [[ $now == "$last" ]]; then
      same=$((same + 1))
      ((same >= 6)) && return 0
    else
      same=0
    fi
    last=$now
    sleep 0.5
  done
  die "the replicas did not even out: $now"
}

RUNS=$WORK/runs
: >"$RUNS"
run_once() {  # phase
  echo "$(date +%T.%3N) $1 run starts" >&2
  "$KEYWISE" bench "${COMMON[@]}" --workload mixed --read-ratio 0.5 --no-load \
    --rate "$RATE" --duration "${RUN_S}s" --json >"$WORK/run.json"
  python3 - "$1" "$WORK/run.json" >>"$RUNS" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
print(sys.argv[1], "%.0f" % r["ops_per_sec"], "%.2f" % r["p99_ms"],
      "%.2f" % r.get("p999_ms", float("nan")), r["errors"])
PY
  tail -1 "$RUNS" >&2
}

# phase ACTION...: runs the workload while ACTION runs in the background,
# and once more after it ends if it ended during the first run.
phase() {
  local name=$1; shift
  local start=$SECONDS
  "$@" >"$WORK/$name.log" 2>&1 &
  local pid=$! runs=0
  while kill -0 "$pid" 2>/dev/null || ((runs == 0)); do
    run_once "$name"
    runs=$((runs + 1))
  done
  wait "$pid" || { cat "$WORK/$name.log" >&2; die "$name failed"; }
  echo "$name $((SECONDS - start))" >>"$WORK/lengths"
}

log "steady"
for _ in 1 2 3 4 5; do run_once steady; done
log "node 4 joins"
join() {
  "$KEYWISE" cluster add --dir "$CLUSTER_DIR" && wait_balanced
}
phase join join
log "node 4 is decommissioned"
phase decommission "$KEYWISE" cluster decommission 4 --dir "$CLUSTER_DIR"

echo "| phase | run | ops/s | p99 ms | p99.9 ms | errors |"
echo "|---|---|---|---|---|---|"
awk '{ n[$1]++; printf "| %s | %d | %s | %s | %s | %s |\n", $1, n[$1], $2, $3, $4, $5 }' "$RUNS"
echo
echo "| phase | runs | seconds | median p99 ms | worst p99 ms | worst / steady median |"
echo "|---|---|---|---|---|---|"
python3 - "$RUNS" "$WORK/lengths" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    phase, ops, p99, p999, errors = line.split()
    runs.setdefault(phase, []).append(float(p99))
lengths = dict(l.split() for l in open(sys.argv[2]))
steady = statistics.median(runs["steady"])
for phase in ("steady", "join", "decommission"):
    p = runs.get(phase, [])
    if not p:
        continue
    print("| %s | %d | %s | %.2f | %.2f | %.2fx |" % (
        phase, len(p), lengths.get(phase, "-"), statistics.median(p),
        max(p), max(p) / steady))
PY
