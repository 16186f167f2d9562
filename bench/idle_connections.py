#!/usr/bin/python3
"""Memory of idle CQL connections: a node's resident memory before, with N
connections open (each past STARTUP, then idle) and after they close.

    /usr/bin/python3 bench/idle_connections.py [--binary build-release/keywise]
        [--connections 10000] [--rounds 2]

Starts a fresh node (its own data directory, a free port, 127.0.0.1),
opens --connections raw connections (protocol v4 STARTUP, READY read), reads
the server's VmRSS from /proc, closes them all, waits for the server to see
the closes, reads VmRSS again; --rounds times, so a second round shows
whether memory given back is reused. Figures go to stdout; docs/performance.md
records them with this command. Needs ulimit -n above --connections + 100.
"""

import argparse
import os
import pathlib
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    for line in pathlib.Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def startup_frame():
    body = struct.pack(">H", 1)
    for text in (b"CQL_VERSION", b"3.0.0"):
        body += struct.pack(">H", len(text)) + text
    return struct.pack(">BBhBi", 4, 0, 0, 1, len(body)) + body


def open_ready(port, frame):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(frame)
    header = b""
    while len(header) < 9:
        chunk = s.recv(9 - len(header))
        if not chunk:
            raise RuntimeError("closed before READY")
        header += chunk
    if header[4] != 0x02:  # READY
        raise RuntimeError("not READY: opcode %d" % header[4])
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--binary", default="build-release/keywise")
    p.add_argument("--connections", type=int, default=10000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--settle", type=float, default=5,
                   help="seconds between the closes and the last RSS reading")
    a = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = a.connections + 200
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    data = tempfile.TemporaryDirectory(prefix="keywise-idle-")
    port = free_port()
    config = pathlib.Path(data.name) / "keywise.yaml"
    config.write_text("metrics_enabled: false\n")
    node = subprocess.Popen(
        [a.binary, "server", "--config", str(config), "--data-dir",
         os.path.join(data.name, "data"), "--port", str(port),
         "--listen-address", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        frame = startup_frame()
        # One connection first, so that lazily built state is there.
        open_ready(port, frame).close()
        time.sleep(1)
        base = rss_kib(node.pid)
        print("connections %d, rounds %d" % (a.connections, a.rounds))
        print("server RSS at start: %.1f MiB" % (base / 1024))
        for r in range(1, a.rounds + 1):
            before = rss_kib(node.pid)
            started = time.time()
            sockets = [open_ready(port, frame) for _ in range(a.connections)]
            opened = time.time() - started
            time.sleep(1)
            held = rss_kib(node.pid)
            for s in sockets:
                s.close()
            time.sleep(a.settle)
            after = rss_kib(node.pid)
            print("round %d: opened in %.1f s; RSS %.1f -> %.1f MiB open "
                  "(%.1f KiB per connection) -> %.1f MiB closed "
                  "(%.1f MiB above the round's start)" %
                  (r, opened, before / 1024, held / 1024,
                   (held - before) / a.connections, after / 1024,
                   (after - before) / 1024))
        if node.poll() is not None:
            print("the node exited", file=sys.stderr)
            return 1
    finally:
        node.terminate()
        node.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
