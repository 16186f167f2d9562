"""The pieces of the cluster fault test (test_cluster_faults.py): a
workload that records what the cluster acknowledged and what it answered,
the checks over those records, firewall rules that cut a node off on
loopback, and the faults themselves.

Workload: log writers insert fresh keys at QUORUM (each acknowledged key
must read back); register writers each own some registers and write
increasing values to them at QUORUM; readers read registers at QUORUM. A
read must return at least the highest value acknowledged before the read
began (no QUORUM read older than a write acknowledged before it began).
Every operation is counted as done or failed under the fault running when
it finished: availability per fault.
"""

import base64
import json
import os
import random
import shutil
import signal
import subprocess
import threading
import time
import urllib.request

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

REGISTERS = 16


def stale_reads(acked_writes, reads):
    """The reads that returned less than a value acknowledged before they
    began. acked_writes: {register: [(ack time, value)]}; reads: [(register,
    start time, end time, value or 0 when absent)]."""
    by_register = {r: sorted(w) for r, w in acked_writes.items()}
    stale = []
    for register, start, end, value in reads:
        floor = 0
        for acked_at, written in by_register.get(register, []):
            if acked_at >= start:
                break
            floor = max(floor, written)
        if value < floor:
            stale.append((register, start, end, value, floor))
    return stale


class Workload:
    """Log writers, register writers and readers on threads, against
    `session` and `keyspace` (tables log and reg, made by create())."""

    def __init__(self, session, keyspace, threads=2):
        self.session, self.keyspace = session, keyspace
        self.insert = session.prepare(
            "INSERT INTO %s.log (k, v) VALUES (?, ?)" % keyspace)
        self.write_reg = session.prepare(
            "INSERT INTO %s.reg (r, v) VALUES (?, ?)" % keyspace)
        self.read_reg = session.prepare(
            "SELECT v FROM %s.reg WHERE r = ?" % keyspace)
        for s in (self.insert, self.write_reg, self.read_reg):
            s.consistency_level = ConsistencyLevel.QUORUM
        self.lock = threading.Lock()
        self.acknowledged = {}  # log key -> value
        self.acked_writes = {r: [] for r in range(REGISTERS)}
        self.reads = []
        self.phase = "warm-up"
        self.counts = {}  # phase -> {"ok": n, "failed": n}
        self.stop = threading.Event()
        self.next_key = 0
        self.threads = []
        for i in range(threads):
            self.threads.append(threading.Thread(target=self.log_writer))
            owned = list(range(i, REGISTERS, threads))
            self.threads.append(
                threading.Thread(target=self.register_writer, args=(owned,)))
            self.threads.append(threading.Thread(target=self.reader,
                                                 args=(random.Random(i),)))

    @staticmethod
    def create(session, keyspace):
        session.execute(
            "CREATE KEYSPACE %s WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}" % keyspace)
        session.execute("CREATE TABLE %s.log (k int PRIMARY KEY, v text)" %
                        keyspace)
        session.execute("CREATE TABLE %s.reg (r int PRIMARY KEY, v int)" %
                        keyspace)

    def start(self):
        for t in self.threads:
            t.start()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            if t.ident is not None:  # started
                t.join()

    def count(self, ok):
        with self.lock:
            c = self.counts.setdefault(self.phase, {"ok": 0, "failed": 0})
            c["ok" if ok else "failed"] += 1

    def log_writer(self, session=None, stop=None):
        """Fresh keys through `session` (the workload's by default) until
        `stop` (the workload's) is set."""
        session = session or self.session
        stop = stop or self.stop
        while not stop.is_set():
            with self.lock:
                k = self.next_key
                self.next_key += 1
            try:
                session.execute(self.insert, (k, "v%d" % k))
            except Exception:
                self.count(False)  # not acknowledged: may or may not exist
                continue
            with self.lock:
                self.acknowledged[k] = "v%d" % k
            self.count(True)

    def writer_through(self, session):
        """Starts a log writer on `session` (one node's own client, say);
        returns a function that stops it."""
        stop = threading.Event()
        thread = threading.Thread(target=self.log_writer, args=(session, stop))
        thread.start()

        def finish():
            stop.set()
            thread.join()
        return finish

    def register_writer(self, owned):
        values = {r: 0 for r in owned}
        while not self.stop.is_set():
            for r in owned:
                values[r] += 1
                try:
                    self.session.execute(self.write_reg, (r, values[r]))
                except Exception:
                    self.count(False)
                    continue
                acked_at = time.monotonic()
                with self.lock:
                    self.acked_writes[r].append((acked_at, values[r]))
                self.count(True)

    def reader(self, rng):
        while not self.stop.is_set():
            r = rng.randrange(REGISTERS)
            start = time.monotonic()
            try:
                row = self.session.execute(self.read_reg, (r,)).one()
            except Exception:
                self.count(False)
                continue
            end = time.monotonic()
            with self.lock:
                self.reads.append((r, start, end, row.v if row else 0))
            self.count(True)

    def lost(self, consistency):
        """Acknowledged log keys that do not read back at `consistency`."""
        select = SimpleStatement(
            "SELECT k, v FROM %s.log" % self.keyspace,
            consistency_level=consistency, fetch_size=2000)
        rows = {r.k: r.v for r in self.session.execute(select)}
        return [k for k, v in self.acknowledged.items() if rows.get(k) != v]

    def availability(self, phase):
        c = self.counts.get(phase, {"ok": 0, "failed": 0})
        total = c["ok"] + c["failed"]
        return (c["ok"] / total if total else 1.0), total


class Firewall:
    """nft rules on loopback in a table of their own (inet keywise_faults),
    dropping packets in the output hook; cleared on exit. Needs root and
    the nft command (scripts/setup.sh installs nftables)."""

    TABLE = "keywise_faults"

    @staticmethod
    def why_unavailable():
        if os.geteuid() != 0:
            return "not root: cannot add firewall rules"
        if shutil.which("nft") is None:
            return "nft not installed (scripts/setup.sh installs nftables)"
        probe = subprocess.run(["nft", "add", "table", "inet",
                                "keywise_probe"], capture_output=True,
                               text=True)
        if probe.returncode != 0:
            return "nft refused a table: " + probe.stderr.strip()
        subprocess.run(["nft", "delete", "table", "inet", "keywise_probe"],
                       capture_output=True)
        return None

    def block(self, rules):
        self.clear()
        script = ("table inet %s {\n chain out {\n"
                  "  type filter hook output priority 0; policy accept;\n"
                  "%s\n }\n}\n" % (self.TABLE, "\n".join(
                      "  " + r for r in rules)))
        subprocess.run(["nft", "-f", "-"], input=script, text=True,
                       check=True, capture_output=True)

    def clear(self):
        subprocess.run(["nft", "delete", "table", "inet", self.TABLE],
                       capture_output=True)

    @staticmethod
    def partition_rules(address, peers, storage_port):
        """Messaging between `address` and `peers`, both ways."""
        others = "{ %s }" % ", ".join(peers)
        rules = []
        for direction in ("dport", "sport"):
            rules.append("ip saddr %s ip daddr %s tcp %s %d drop" %
                         (address, others, direction, storage_port))
            rules.append("ip saddr %s ip daddr %s tcp %s %d drop" %
                         (others, address, direction, storage_port))
        return rules

    @staticmethod
    def etcd_rules(address, etcd_port):
        """`address`'s connections to etcd on 127.0.0.1 (REQUIRES: address
        is not 127.0.0.1, which etcd and the test tools use too)."""
        return ["ip saddr %s ip daddr 127.0.0.1 tcp dport %d drop" %
                (address, etcd_port),
                "ip saddr 127.0.0.1 ip daddr %s tcp sport %d drop" %
                (address, etcd_port)]


def etcd_get(etcd_port, key):
    """The value of etcd key `key` (None when absent), through etcd's JSON
    gateway."""
    body = json.dumps({"key": base64.b64encode(key.encode()).decode()})
    request = urllib.request.Request(
        "http://127.0.0.1:%d/v3/kv/range" % etcd_port, data=body.encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as reply:
        kvs = json.loads(reply.read()).get("kvs", [])
    return base64.b64decode(kvs[0]["value"]).decode() if kvs else None


def node_pid(cluster, i):
    return int((open(os.path.join(cluster.dir, "node%d" % i, "pid"))
                .read().strip()))


def all_up(cluster, n):
    return cluster.run("status").count("UN  127.0.0.") == n


def address_of_host(cluster, host_id):
    """The address `keywise cluster status` lists for `host_id`."""
    for line in cluster.run("status").splitlines():
        if host_id in line:
            return line.split()[1]
    return None
