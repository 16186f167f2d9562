#!/usr/bin/python3
"""Secondary indexes, materialized views and key changes on one node: what
an index saves on a lookup, what maintaining indexes and views costs a
write, how fast a backfill runs, and what an online key change does to the
p99 of a concurrent workload.

    /usr/bin/python3 bench/views_bench.py [--binary build-release/keywise]
        [--rows 1000000] [--matches 10] [--seconds 10]

1. Lookup: COPY loads --rows rows into keywise_bench.items (id bigint
   PRIMARY KEY, grp bigint, v text), grp = id % (rows / matches), so
   `grp = x` matches --matches rows. The query runs with ALLOW
   FILTERING (a full scan), then through an index on ck: rows read
   (EXPLAIN ANALYZE) and median latency of each (Python driver).
2. Backfill: the time CREATE INDEX takes to index the --rows rows.
3. Write cost: `keywise bench --workload write` for --seconds on a fresh
   table with 0, 1 and 3 indexes, and 1 and 3 views: ops/s and the
   server's CPU per write. With --cluster, the same on a local 3-node
   cluster (keywise cluster: its own etcd, nodes on 127.0.0.1-3) at RF=3
   (--rf), QUORUM writes sent token-aware to the three nodes, CPU summed
   over the three nodes. At RF=3 every node holds every view tablet, so
   view updates stay local; --rf 1 sends two in three to another node.
   --conf KEY=VALUE (repeatable) goes to every node's keywise.yaml, e.g.
   view_update_backlog_limit_in_mb=0 to make writes wait for their view
   updates.
4. Key change: a fixed-rate mixed workload (half reads, half writes) for
   2 x --seconds, once alone and once with ALTER TABLE ... WITH PRIMARY KEY
   run in its middle: p99 and max latency of each.
Figures go to stdout; docs/performance.md records them with this command.
"""

import argparse
import json
import os
import pathlib
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from cassandra.cluster import Cluster

ROOT = pathlib.Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def free_port(addresses=("127.0.0.1",), taken=()):
    """A port free on every address in `addresses`, not in `taken`."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port in taken or port >= 65000:
            continue
        try:
            for a in addresses:
                with socket.socket() as t:
                    t.bind((a, port))
            return port
        except OSError:
            continue


class Node:
    def __init__(self, binary):
        self.binary = binary
        self.dir = tempfile.mkdtemp(prefix="keywise-views-bench-")
        self.port = free_port()
        cfg = pathlib.Path(self.dir) / "keywise.yaml"
        cfg.write_text("read_request_timeout_in_ms: 120000\nrequest_timeout_in_ms: 120000\n")
        self.log = open(pathlib.Path(self.dir) / "node.log", "w")
        self.proc = subprocess.Popen(
            [binary, "server", "--config", str(cfg), "--data-dir",
             str(pathlib.Path(self.dir) / "data"), "--port", str(self.port),
             "--listen-address", "127.0.0.1"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                break
            except OSError:
                time.sleep(0.05)
        self.cluster = Cluster(["127.0.0.1"], port=self.port,
                               protocol_version=5, connect_timeout=10)
        self.session = self.cluster.connect()
        self.session.default_timeout = 600

    def cpu_ticks(self):
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def bench(self, *args):
        out = subprocess.run(
            [self.binary, "bench", "--port", str(self.port), "--json",
             "--quiet"] + list(args), capture_output=True, text=True,
            check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    def stop(self):
        self.cluster.shutdown()
        self.proc.terminate()
        self.proc.wait(60)
        shutil.rmtree(self.dir, ignore_errors=True)


class LocalCluster:
    """`keywise cluster start --nodes 3` in a temporary directory: the same
    interface as Node (session, cpu_ticks over every node, bench)."""

    ADDRESSES = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]

    def __init__(self, binary, rf=3, conf=()):
        self.binary = binary
        self.rf = rf
        self.dir = tempfile.mkdtemp(prefix="keywise-views-bench-cluster-")
        self.port = free_port(self.ADDRESSES)
        storage = free_port(self.ADDRESSES, taken=[self.port])
        etcd = free_port(taken=[self.port, storage, storage + 1])
        subprocess.run(
            [binary, "cluster", "start", "--nodes", "3", "--dir", self.dir,
             "--port", str(self.port), "--storage-port", str(storage),
             "--etcd-port", str(etcd)]
            + [arg for setting in conf for arg in ("--conf", setting)],
            check=True, capture_output=True)
        self.pids = [int((pathlib.Path(self.dir) / ("node%d" % i) / "pid")
                         .read_text()) for i in (1, 2, 3)]
        self.cluster = Cluster(self.ADDRESSES, port=self.port,
                               protocol_version=4, connect_timeout=10)
        self.session = self.cluster.connect()
        self.session.default_timeout = 600

    def cpu_ticks(self):
        total = 0
        for pid in self.pids:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        return total

    def bench(self, *args):
        out = subprocess.run(
            [self.binary, "bench", "--port", str(self.port), "--json",
             "--quiet", "--host", ",".join(self.ADDRESSES),
             "--replication-factor", str(self.rf), "--consistency", "QUORUM"]
            + list(args), capture_output=True, text=True, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    def stop(self):
        self.cluster.shutdown()
        subprocess.run([self.binary, "cluster", "stop", "--dir", self.dir],
                       capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def rows_read(session, query):
    for row in session.execute("EXPLAIN ANALYZE " + query):
        if row.step == "rows read":
            return int(row.detail)
    return -1


def median_ms(session, query, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        rows = list(session.execute(query))
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), len(rows)


def wait_index(session, name, timeout=3600):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if list(session.execute(
                "SELECT index_name FROM system.\"IndexInfo\" WHERE "
                "table_name = 'keywise_bench' AND index_name = %s", (name,))):
            return
        time.sleep(0.1)
    sys.exit("index %s not built" % name)


def lookup_and_backfill(args):
    node = Node(args.binary)
    s = node.session
    groups = args.rows // args.matches
    s.execute("CREATE KEYSPACE keywise_bench WITH replication = "
              "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    s.execute("CREATE TABLE keywise_bench.items (id bigint PRIMARY KEY, "
              "grp bigint, v text)")
    csv = pathlib.Path(node.dir) / "items.csv"
    with open(csv, "w") as f:
        for i in range(args.rows):
            f.write("%d,%d,value-%d\n" % (i, i % groups, i))
    t = time.perf_counter()
    subprocess.run([args.binary, "shell", "127.0.0.1", str(node.port), "-e",
                    "COPY keywise_bench.items (id, grp, v) FROM '%s'" % csv],
                   check=True, capture_output=True)
    load_s = time.perf_counter() - t
    query = "SELECT * FROM keywise_bench.items WHERE grp = %d" % (groups // 2)
    scan_rows = rows_read(s, query + " ALLOW FILTERING")
    scan_ms, n = median_ms(s, query + " ALLOW FILTERING", 3)
    t = time.perf_counter()
    s.execute("CREATE INDEX items_grp ON keywise_bench.items (grp)")
    wait_index(s, "items_grp")
    build_s = time.perf_counter() - t
    index_rows = rows_read(s, query)
    index_ms, m = median_ms(s, query, 101)
    node.stop()
    print("lookup, %d rows (loaded by COPY in %.0f s), grp = x matches %d: "
          "ALLOW FILTERING reads %d rows in %.1f ms (median of 3); the index "
          "reads %d rows in %.2f ms (median of 101): %.0fx fewer rows, %.0fx "
          "faster" % (args.rows, load_s, n, scan_rows, scan_ms, index_rows,
                      index_ms, scan_rows / max(index_rows, 1),
                      scan_ms / index_ms))
    assert n == m == args.matches, (n, m)
    print("backfill: CREATE INDEX over %d rows built in %.1f s: %.0f rows/s"
          % (args.rows, build_s, args.rows / build_s))


VIEWS = {
    "indexes": ["CREATE INDEX ON keywise_bench.kv (ck)",
                "CREATE INDEX ON keywise_bench.kv (v)",
                "CREATE INDEX kv_local ON keywise_bench.kv ((pk), v)"],
    "views": ["CREATE MATERIALIZED VIEW keywise_bench.by_ck AS SELECT * FROM "
              "keywise_bench.kv WHERE ck IS NOT NULL AND pk IS NOT NULL "
              "PRIMARY KEY (ck, pk)",
              "CREATE MATERIALIZED VIEW keywise_bench.by_v AS SELECT * FROM "
              "keywise_bench.kv WHERE v IS NOT NULL AND pk IS NOT NULL AND "
              "ck IS NOT NULL PRIMARY KEY (v, pk, ck)",
              "CREATE MATERIALIZED VIEW keywise_bench.by_pk_ck AS SELECT * "
              "FROM keywise_bench.kv WHERE ck IS NOT NULL AND pk IS NOT NULL "
              "PRIMARY KEY ((pk, ck))"],
}


def write_cost(args):
    where = ("3 nodes, RF=%d, QUORUM%s" % (
        args.rf, "".join(", " + c for c in args.conf))
        if args.cluster else "one node")
    print("write cost, %s, keywise bench --workload write --duration %ds "
          "--concurrency 64 (single-row INSERTs of new rows):"
          % (where, args.seconds))
    base = None
    for kind, count in [("none", 0), ("indexes", 1), ("indexes", 3),
                        ("views", 1), ("views", 3)]:
        node = (LocalCluster(args.binary, args.rf, args.conf) if args.cluster
                else Node(args.binary))
        s = node.session
        s.execute("CREATE KEYSPACE keywise_bench WITH replication = "
                  "{'class': 'SimpleStrategy', 'replication_factor': %d}"
                  % (args.rf if args.cluster else 1))
        s.execute("CREATE TABLE keywise_bench.kv (pk bigint, ck bigint, "
                  "v blob, PRIMARY KEY (pk, ck))")
        for ddl in VIEWS.get(kind, [])[:count]:
            s.execute(ddl)
        before = node.cpu_ticks()
        r = node.bench("--workload", "write", "--duration",
                       "%ds" % args.seconds, "--concurrency", "64",
                       "--warmup", "2s")
        cpu_us = (node.cpu_ticks() - before) / TICKS / max(r["ops"], 1) * 1e6
        node.stop()
        label = ("no views" if count == 0 else "1 " + kind[:-1] if count == 1
                 else "%d %s" % (count, kind))
        label = label.replace("1 indexe", "1 index")
        if base is None:
            base = (r["ops_per_sec"], cpu_us)
        print("  %-10s %8.0f writes/s  p99 %6.2f ms  server CPU %6.1f us/write"
              "  (%.2fx the CPU of no views)"
              % (label, r["ops_per_sec"], r["p99_ms"], cpu_us,
                 cpu_us / base[1]))


def key_change(args):
    print("key change, keywise bench --workload mixed --rate %d for %ds "
          "(1000 partitions x 100 rows):" % (args.rate, 2 * args.seconds))
    for alter in (False, True):
        node = Node(args.binary)
        node.bench("--workload", "read", "--duration", "100ms")  # load
        result = {}

        def run():
            result.update(node.bench(
                "--workload", "mixed", "--rate", str(args.rate), "--no-load",
                "--duration", "%ds" % (2 * args.seconds)))
        t = threading.Thread(target=run)
        t.start()
        took = 0.0
        if alter:
            time.sleep(args.seconds * 0.5)
            start = time.perf_counter()
            node.session.execute(
                "ALTER TABLE keywise_bench.kv WITH PRIMARY KEY ((ck), pk)")
            deadline = time.time() + 600
            while node.session.execute(
                    "SELECT kind FROM system_schema.columns WHERE "
                    "keyspace_name = 'keywise_bench' AND table_name = 'kv' "
                    "AND column_name = 'ck'").one().kind != "partition_key":
                if time.time() > deadline:
                    sys.exit("the key change did not complete")
                time.sleep(0.1)
            took = time.perf_counter() - start
        t.join()
        node.stop()
        print("  %-22s %7.0f ops/s  p99 %6.2f ms  max %7.2f ms  errors %d%s"
              % ("during a key change" if alter else "alone",
                 result["ops_per_sec"], result["p99_ms"], result["max_ms"],
                 result["errors"],
                 "  (switched %.1f s after the ALTER)" % took if alter else ""))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", default=str(ROOT / "build-release" / "keywise"))
    p.add_argument("--rows", type=int, default=1000000)
    p.add_argument("--matches", type=int, default=10)
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--rate", type=int, default=5000)
    p.add_argument("--only", choices=["lookup", "writes", "keychange"])
    p.add_argument("--cluster", action="store_true",
                   help="write cost on a local 3-node cluster at RF=3")
    p.add_argument("--rf", type=int, default=3, choices=[1, 2, 3],
                   help="the cluster's replication factor")
    p.add_argument("--conf", action="append", default=[],
                   help="KEY=VALUE for every cluster node's keywise.yaml")
    args = p.parse_args()
    print("Command: /usr/bin/python3 bench/views_bench.py --rows %d --matches %d "
          "--seconds %d --rate %d%s%s (%d CPUs, %s, load average %s)"
          % (args.rows, args.matches, args.seconds, args.rate,
             " --only " + args.only if args.only else "",
             (" --cluster --rf %d" % args.rf
              + "".join(" --conf " + c for c in args.conf))
             if args.cluster else "", os.cpu_count(),
             time.strftime("%Y-%m-%d"), open("/proc/loadavg").read().split()[0]))
    if args.only in (None, "lookup"):
        lookup_and_backfill(args)
    if args.only in (None, "writes"):
        write_cost(args)
    if args.only in (None, "keychange"):
        key_change(args)


if __name__ == "__main__":
    main()
