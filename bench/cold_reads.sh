#!/usr/bin/env bash
# What a point read costs when its row is in neither the block cache nor the
# page cache: loads ROWS rows (the side-by-side's shape) into a fresh node,
# lets its compactions finish, restarts it (its memtables are flushed; the
# tables' index and filter blocks are read at open), waits again, drops the
# kernel's page cache and reads READS random rows one at a time, then the
# same number again (now partly cached). Prints, per read: the bytes the node
# read from the disk (/proc/PID/io read_bytes), its pread64 calls (perf),
# and the bench's mean and p99 latency, beside the table's SST files.
# Needs root (drop_caches) and perf.
#
#   bash bench/cold_reads.sh [ROWS] [READS]
#        defaults:          1000000 5000
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
READS=${2:-5000}
BIN=$PWD/build-release/keywise
PARTITIONS=$(( (ROWS + 99) / 100 ))

die() { echo "cold_reads: $*" >&2; exit 1; }
[[ -x $BIN ]] || die "no $BIN (cmake --build build-release --target keywise)"
command -v perf >/dev/null || die "perf not found (apt-get install linux-perf)"
[[ -w /proc/sys/vm/drop_caches ]] || die "needs root: writes /proc/sys/vm/drop_caches"

WORK=$(mktemp -d /tmp/kw-cold-reads.XXXXXX)
PID=""
cleanup() {
  [[ -n $PID ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start() {
  "$BIN" server --data-dir "$WORK/data" --port "$PORT" >>"$WORK/server.log" 2>&1 &
  PID=$!
  local i
  for ((i = 0; i < 300; i++)); do
    "$BIN" shell 127.0.0.1 "$PORT" -e 'SELECT key FROM system.local' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "node did not start"
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""; }
# Until no flush or compaction has run for 3 s (their reads would count).
settle() {
  local quiet=0 i last="" now
  for ((i = 0; i < 300 && quiet < 3; i++)); do
    now=$(grep -cE '"event": "(flush|compaction)_(started|finished)"' "$WORK/data/LOG" || true)
    local started finished
    started=$(grep -cE '"event": "(flush|compaction)_started"' "$WORK/data/LOG" || true)
    finished=$(grep -cE '"event": "(flush|compaction)_finished"' "$WORK/data/LOG" || true)
    if [[ $now == "$last" && $started == "$finished" ]]; then quiet=$((quiet + 1)); else quiet=0; fi
    last=$now
    sleep 1
  done
}
bench() {  # extra args...
  "$BIN" bench --port "$PORT" --json --quiet --partitions "$PARTITIONS" \
    --rows-per-partition 100 --value-size 100 --workload read "$@"
}
io_read_bytes() { awk '$1 == "read_bytes:" {print $2}' "/proc/$PID/io"; }

# measure NAME: READS reads at concurrency 1, with the node's disk reads
measure() {
  local name=$1 b0 b1
  b0=$(io_read_bytes)
  perf stat -x, -e syscalls:sys_enter_pread64 -p "$PID" -o "$WORK/perf_$name" &
  local perf_pid=$!
  sleep 0.5
  bench --no-load --concurrency 1 --connections 1 --ops "$READS" \
    --seed "$RANDOM" >"$WORK/bench_$name.json"
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  b1=$(io_read_bytes)
  local preads
  preads=$(awk -F, '/pread64/ {print $1}' "$WORK/perf_$name")
  python3 - "$WORK/bench_$name.json" "$name" "$READS" "$b0" "$b1" "$preads" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
name, reads, b0, b1, preads = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
preads = int(preads) if preads.isdigit() else float("nan")
print("%-28s %6d reads: %7.0f bytes from disk and %.2f pread64 per read;"
      " latency mean %.3f ms, p99 %.3f ms, %d not found" % (
          name, reads, (b1 - b0) / reads, preads / reads, d["mean_ms"],
          d["p99_ms"], d.get("not_found", 0)))
PY
}

echo "cold_reads: $ROWS rows, $READS reads per pass ($(nproc) CPUs, $(date +%F))"
start
bench --concurrency 64 --duration 100ms >/dev/null  # the load
settle
stop                                                # flushes the memtables
start  # opening the tables reads their index and filter blocks
settle
echo "cold_reads: SST files: $(find "$WORK/data" -name '*.sst' | wc -l), $(du -sm "$WORK/data" | cut -f1) MB on disk"
sync
echo 3 >/proc/sys/vm/drop_caches
measure "cold (no cache at all)"
measure "again (some blocks cached)"
stop
