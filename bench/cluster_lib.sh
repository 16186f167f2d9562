# Shared by the local-cluster benchmarks (sourced, not run): a port free on
# 127.0.0.1-N, the Release build of keywise, starting one node or a local
# 3-node cluster, and one measured `keywise bench` run with the servers' CPU.
# Callers set WORK (a scratch directory), KEYWISE, PORT, STORAGE_PORT,
# ETCD_PORT, TICK, CONCURRENCY, PARTITIONS and DURATION, and define die.

free_port() {  # [N]: a port free on 127.0.0.1-N (default 3)
  python3 - "${1:-3}" <<'PY'
import socket, sys
addresses = ["127.0.0.%d" % i for i in range(1, int(sys.argv[1]) + 1)]
for _ in range(200):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    ok = True
    for a in addresses:
        t = socket.socket()
        try:
            t.bind((a, p))
        except OSError:
            ok = False
        t.close()
    if ok and p < 65000:
        print(p); break
PY
}

build_release_keywise() {  # builds build-release/keywise, its log in $WORK
  { cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DKEYWISE_TESTS=OFF &&
    cmake --build build-release --target keywise -j2; } >"$WORK/build.log" 2>&1 ||
    { tail -50 "$WORK/build.log" >&2; die "building keywise failed"; }
}

cpu_ticks() {  # PID...: their user+system CPU so far, in clock ticks
  local total=0 pid
  for pid in "$@"; do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}

SINGLE_PID=${SINGLE_PID:-}
CLUSTER_DIR=${CLUSTER_DIR:-}

stop_all() {
  if [[ -n $SINGLE_PID ]]; then kill "$SINGLE_PID" 2>/dev/null || true; wait "$SINGLE_PID" 2>/dev/null || true; SINGLE_PID=""; fi
  if [[ -n $CLUSTER_DIR ]]; then "$KEYWISE" cluster stop --dir "$CLUSTER_DIR" >/dev/null 2>&1 || true; CLUSTER_DIR=""; fi
}

server_pids() {
  if [[ -n $SINGLE_PID ]]; then echo "$SINGLE_PID"; return; fi
  cat "$CLUSTER_DIR"/node*/pid
}
server_ticks() {
  # shellcheck disable=SC2046
  cpu_ticks $(server_pids)
}

start_single() {  # [DIR [CONFIG_FILE [BINARY]]]: a node with its data in DIR (default $WORK/single)
  local dir=${1:-$WORK/single} config=() binary=${3:-$KEYWISE}
  [[ -n ${2:-} ]] && config=(--config "$2")
  mkdir -p "$dir"
  "$binary" server "${config[@]}" --data-dir "$dir" --port "$PORT" --listen-address 127.0.0.1 \
    >"$dir.log" 2>&1 &
  SINGLE_PID=$!
  local i
  for ((i = 0; i < 200; i++)); do
    "$KEYWISE" shell 127.0.0.1 "$PORT" -e 'SELECT key FROM system.local' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "single node did not start"
}

start_cluster() {  # name
  CLUSTER_DIR=$WORK/$1
  "$KEYWISE" cluster start --nodes 3 --dir "$CLUSTER_DIR" --port "$PORT" \
    --storage-port "$STORAGE_PORT" --etcd-port "$ETCD_PORT" >&2
}

# bench JSON-output extra-args...: one measured run; prints "ops p99 cpu_us sent".
measured() {
  local out=$1; shift
  local before after
  before=$(server_ticks)
  "$KEYWISE" bench --port "$PORT" --json --quiet --concurrency "$CONCURRENCY" \
    --partitions "$PARTITIONS" --rows-per-partition 100 --duration "${DURATION}s" \
    "$@" >"$out"
  after=$(server_ticks)
  python3 - "$out" "$before" "$after" "$TICK" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ticks = int(sys.argv[3]) - int(sys.argv[2])
cpu_us = ticks / int(sys.argv[4]) / max(r["ops"], 1) * 1e6
sent = r.get("sent_per_host", {})
total = sum(sent.values()) or 1
shares = "/".join("%.0f" % (100.0 * v / total) for v in sent.values())
print("%.0f %.2f %.1f %.1f %s %d" % (r["ops_per_sec"], r["p99_ms"], cpu_us,
                                  r["cpu_per_op_us"], shares or "100", r["errors"]))
EOF
}
