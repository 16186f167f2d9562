#!/usr/bin/env bash
# The tail latency of writes (or of a mixed workload) at a fixed rate on a
# fresh node, and what the storage did meanwhile: starts a node (Release
# build, default settings) on a fresh data directory, runs `keywise bench
# --workload write --rate RATE` for SECONDS (latency from each operation's
# intended start, 64 in flight, the side-by-side's row shape), and prints
# the bench's p50/p99/p99.9/max with the number of memtable flushes and
# compactions and RocksDB's cumulative write stall.
# RUNS runs alternate between the binaries given, so two builds compare in
# one sitting on the same machine.
#
#   bash bench/write_tail.sh [RATE] [SECONDS] [RUNS] [BINARY...]
#        defaults:           50000  20        2      build-release/keywise
#
# WORKLOAD=mixed (half reads, half writes; the rows are loaded first at
# the full rate) and PARTITIONS=N (default 2000, 100 rows each) change the
# workload; the longest request is the max column.
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${1:-50000}
SECONDS_=${2:-20}
RUNS=${3:-2}
WORKLOAD=${WORKLOAD:-write}
PARTITIONS=${PARTITIONS:-2000}
shift $(( $# < 3 ? $# : 3 ))
BINARIES=("$@")
[[ ${#BINARIES[@]} -gt 0 ]] || BINARIES=("$PWD/build-release/keywise")

die() { echo "write_tail: $*" >&2; exit 1; }
for b in "${BINARIES[@]}"; do [[ -x $b ]] || die "no binary $b (build-release: cmake --build build-release --target keywise)"; done

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

one_run() {  # binary
  local bin=$1 work port pid
  work=$(mktemp -d /tmp/kw-write-tail.XXXXXX)
  port=$(free_port)
  "$bin" server --data-dir "$work/data" --port "$port" >"$work/server.log" 2>&1 &
  pid=$!
  local i
  for ((i = 0; i < 100; i++)); do
    "$bin" shell 127.0.0.1 "$port" -e 'SELECT key FROM system.local' >/dev/null 2>&1 && break
    sleep 0.1
  done
  "$bin" bench --port "$port" --json --quiet --concurrency 64 --partitions "$PARTITIONS" \
    --rows-per-partition 100 --value-size 100 --workload "$WORKLOAD" \
    --duration "${SECONDS_}s" --rate "$RATE" >"$work/bench.json" ||
    { kill "$pid"; die "bench failed: $(cat "$work/bench.json")"; }
  local flushes compactions stall
  flushes=$(grep -c '"event": "flush_started"' "$work/data/LOG" || true)
  compactions=$(grep -c '"event": "compaction_started"' "$work/data/LOG" || true)
  stall=$(grep -h 'Cumulative stall' "$work/data/LOG" | tail -1 | sed 's/.*stall: //')
  kill "$pid"; wait "$pid" 2>/dev/null || true
  python3 - "$work/bench.json" "$bin" "$flushes/$compactions" "$stall" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("%s: %.0f ops/s  p50 %.2f ms  p99 %.2f ms  p99.9 %.2f ms  max %.2f ms"
      "  errors %d  flushes/compactions %s  stall %s" % (
          sys.argv[2], d["ops_per_sec"], d["p50_ms"], d["p99_ms"],
          d["p999_ms"], d["max_ms"], d["errors"], sys.argv[3],
          sys.argv[4] or "n/a"))
PY
  rm -rf "$work"
}

echo "write_tail: $WORKLOAD at $RATE ops/s for $SECONDS_ s, $PARTITIONS partitions, $RUNS runs per binary ($(nproc) CPUs, $(date +%F), load average $(cut -d' ' -f1-3 /proc/loadavg))"
for ((r = 0; r < RUNS; r++)); do
  for b in "${BINARIES[@]}"; do one_run "$b"; done
done
