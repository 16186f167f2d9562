# Shared by the local-cluster benchmarks (sourced, not run): a port free on
# 127.0.0.1-N, and the Release build of keywise. Callers set WORK (a
# scratch directory) and define die.

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
