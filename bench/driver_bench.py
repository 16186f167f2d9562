#!/usr/bin/python3
"""Prepared single-row INSERT and point SELECT through the DataStax Python
driver (Debian's python3-cassandra) at a fixed concurrency: throughput,
p50/p99 latency, and the CPU the server and the client used.

    /usr/bin/python3 bench/driver_bench.py [--binary build-release/keywise]
        [--ops 50000] [--concurrency 128] [--protocol 5] [--compression lz4]

Without --port it starts its own node (the binary, a fresh data directory
in /tmp, a free port) and stops it afterwards; with --port it uses a running
node (its CPU is then read from --pid, if given).

The Python driver spends far more CPU per request than the server: the
figure it gives is a floor set by the client (see the client CPU column),
not the server's capacity.
"""

import argparse
import os
import pathlib
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import DCAwareRoundRobinPolicy, TokenAwarePolicy

ROOT = pathlib.Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_node(binary):
    workdir = tempfile.mkdtemp(prefix="keywise-driver-bench-")
    port = free_port()
    config = pathlib.Path(workdir) / "keywise.yaml"
    config.write_text("")
    log = open(pathlib.Path(workdir) / "node.log", "w")
    proc = subprocess.Popen(
        [binary, "server", "--config", str(config), "--data-dir",
         str(pathlib.Path(workdir) / "data"), "--port", str(port),
         "--listen-address", "127.0.0.1"], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit("keywise exited early; see " + log.name)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port, workdir
        except OSError:
            time.sleep(0.05)
    sys.exit("keywise did not start")


def cpu_seconds(pid):
    if pid is None:
        return 0.0
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15 (1-based) of the whole line.
    return (int(fields[11]) + int(fields[12])) / TICKS


def client_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run(session, statement, args_for, ops, concurrency):
    """A window of `concurrency` execute_async calls; each completion starts
    the next. Returns (seconds, sorted latencies in seconds, errors)."""
    latencies = [0.0] * ops
    errors = []
    lock = threading.Lock()
    done = threading.Event()
    state = {"next": 0, "finished": 0}

    def start_one():
        with lock:
            i = state["next"]
            if i >= ops:
                return
            state["next"] = i + 1
        t0 = time.perf_counter()
        future = session.execute_async(statement, args_for(i))
        future.add_callbacks(finish, failed, callback_args=(i, t0),
                             errback_args=(i, t0))

    def finish(_rows, i, t0):
        latencies[i] = time.perf_counter() - t0
        complete()

    def failed(exc, i, t0):
        latencies[i] = time.perf_counter() - t0
        errors.append(exc)
        complete()

    def complete():
        with lock:
            state["finished"] += 1
            last = state["finished"] == ops
        if last:
            done.set()
        else:
            start_one()

    begin = time.perf_counter()
    for _ in range(min(concurrency, ops)):
        start_one()
    done.wait()
    elapsed = time.perf_counter() - begin
    return elapsed, sorted(latencies), errors


def percentile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * p))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_binary = os.environ.get("KEYWISE_BIN") or str(ROOT / "build-release" / "keywise")
    parser.add_argument("--binary", default=default_binary)
    parser.add_argument("--port", type=int)
    parser.add_argument("--pid", type=int, help="server pid, with --port")
    parser.add_argument("--ops", type=int, default=50000)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--protocol", type=int, default=5)
    parser.add_argument("--compression", default=None)
    parser.add_argument("--value-size", type=int, default=100)
    opts = parser.parse_args()

    proc = workdir = None
    if opts.port:
        port, pid = opts.port, opts.pid
    else:
        proc, port, workdir = start_node(opts.binary)
        pid = proc.pid
    profile = ExecutionProfile(load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy()),
                               request_timeout=30)
    cluster = Cluster(["127.0.0.1"], port=port, protocol_version=opts.protocol,
                      compression=opts.compression or False,
                      execution_profiles={EXEC_PROFILE_DEFAULT: profile})
    try:
        session = cluster.connect()
        session.execute("CREATE KEYSPACE IF NOT EXISTS driver_bench WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        session.execute("DROP TABLE IF EXISTS driver_bench.kv")
        session.execute("CREATE TABLE driver_bench.kv (k bigint PRIMARY KEY, v blob)")
        insert = session.prepare("INSERT INTO driver_bench.kv (k, v) VALUES (?, ?)")
        select = session.prepare("SELECT v FROM driver_bench.kv WHERE k = ?")
        value = os.urandom(opts.value_size)
        n = opts.ops
        # Warm up connections and code paths.
        run(session, insert, lambda i: (-1 - i, value), 2000, opts.concurrency)

        print("Python driver %s, protocol v%d, compression %s, concurrency %d, %d ops, "
              "value %d B" % (__import__("cassandra").__version__, opts.protocol,
                              opts.compression or "none", opts.concurrency, n,
                              opts.value_size))
        print("| operation | ops/s | p50 ms | p99 ms | server CPU (cores) | client CPU (cores) | errors |")
        print("|---|---|---|---|---|---|---|")
        for name, stmt, args_for in [
                ("prepared INSERT (1 row)", insert, lambda i: (i, value)),
                ("prepared point SELECT", select, lambda i: ((i * 7919) % n,))]:
            s0, c0 = cpu_seconds(pid), client_cpu_seconds()
            elapsed, lat, errors = run(session, stmt, args_for, n, opts.concurrency)
            s1, c1 = cpu_seconds(pid), client_cpu_seconds()
            print("| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %d |" % (
                name, n / elapsed, percentile(lat, 0.50) * 1e3, percentile(lat, 0.99) * 1e3,
                (s1 - s0) / elapsed, (c1 - c0) / elapsed, len(errors)))
        rows = session.execute("SELECT count(*) FROM driver_bench.kv").one()[0]
        if rows != n + 2000:
            print("warning: %d rows, expected %d" % (rows, n + 2000))
    finally:
        cluster.shutdown()
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
