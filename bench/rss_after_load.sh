#!/usr/bin/env bash
# Server memory after a bulk load, with the default settings: starts a node
# (Release build) on a fresh data directory, loads ROWS rows of the bench
# table (pk bigint, ck bigint, v blob of 100 bytes, 100 rows per partition)
# through `keywise bench`, reads for a while, and prints the server's VmRSS
# and peak VmHWM, sampled every second during the load.
#
#   bash bench/rss_after_load.sh [ROWS] [CONCURRENCY]
#        defaults:               10000000  128
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-10000000}
CONCURRENCY=${2:-128}
ROWS_PER_PARTITION=100
PARTITIONS=$(( (ROWS + ROWS_PER_PARTITION - 1) / ROWS_PER_PARTITION ))
KEYWISE=${KEYWISE:-$PWD/build-release/keywise}  # another build to compare

die() { echo "rss_after_load: $*" >&2; exit 1; }
log() { echo "rss_after_load: $*" >&2; }

if [[ ! -x $KEYWISE ]]; then
  log "building $KEYWISE"
  cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DKEYWISE_TESTS=OFF >/dev/null
  cmake --build build-release --target keywise -j2 >/dev/null
fi

WORK=$(mktemp -d /tmp/kw-rss.XXXXXX)
PID=""
SAMPLER=""
cleanup() {
  set +e
  [[ -n $SAMPLER ]] && kill "$SAMPLER" 2>/dev/null
  [[ -n $PID ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$KEYWISE" server --data-dir "$WORK/data" --port "$PORT" >"$WORK/server.log" 2>&1 &
PID=$!
for ((i = 0; i < 300; i++)); do
  "$KEYWISE" shell 127.0.0.1 "$PORT" -e 'SELECT key FROM system.local' >/dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || { cat "$WORK/server.log" >&2; die "server exited"; }
  sleep 0.1
done

vm_kb() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$PID/status"; }
# Peak RSS seen by the sampler, in KiB (VmHWM also counts it, this shows when).
( peak=0; while kill -0 "$PID" 2>/dev/null; do
    r=$(vm_kb VmRSS); [[ ${r:-0} -gt $peak ]] && peak=$r && echo "$peak" >"$WORK/peak"
    sleep 1
  done ) &
SAMPLER=$!

log "loading $ROWS rows ($PARTITIONS partitions x $ROWS_PER_PARTITION, concurrency $CONCURRENCY)"
start=$(date +%s)
"$KEYWISE" bench --port "$PORT" --workload read --partitions "$PARTITIONS" \
  --rows-per-partition "$ROWS_PER_PARTITION" --value-size 100 \
  --concurrency "$CONCURRENCY" --duration 20s --json --quiet >"$WORK/read.json"
elapsed=$(( $(date +%s) - start ))
rss=$(( $(vm_kb VmRSS) / 1024 ))
hwm=$(( $(vm_kb VmHWM) / 1024 ))
disk=$(du -sm "$WORK/data" | cut -f1)
echo "Command: bash bench/rss_after_load.sh $ROWS $CONCURRENCY ($(nproc) CPUs, $(date -u +%Y-%m-%d))"
echo "Loaded $ROWS rows and read for 20 s in ${elapsed} s; server VmRSS $rss MB, peak VmHWM $hwm MB; data directory $disk MB."
echo "Read after the load: $(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print("%.0f ops/s, p99 %.2f ms" % (d["ops_per_sec"], d["p99_ms"]))' "$WORK/read.json")"
