"""kill -9 under write load, round after round, on one node.

Each round: concurrent writers (the Python driver) insert fresh keys into
a log table and overwrite a few registers with increasing values, while
every acknowledged write is recorded; at a random moment the node gets
SIGKILL; it is started again on the same data directory; then every write
acknowledged in that round must read back (a log key with its value, a
register at least at its last acknowledged value and at most at the last
value written to it). Every few rounds, and after the last, every write
acknowledged since the first round is read back, partition by partition
(one SELECT per key, not a scan).

A write whose answer was lost in the kill (an error or no answer) may or
may not be there; only acknowledged writes are checked. The test
test_node_kill9.py runs a few rounds in CI; the long campaign is this
script (docs/reliability.md, "kill -9 under write load"):

    cd tests/python && KEYWISE_BIN=../../build/keywise \\
        /usr/bin/python3 kill9_campaign.py --rounds 100 --sync batch

Exits 0 when no acknowledged write was lost and the node restarted every
time; prints one line per round and a summary (also as JSON with --json).
"""

import argparse
import json
import random
import statistics
import sys
import threading
import time

from cassandra.concurrent import execute_concurrent_with_args

from conftest import Node, create_keyspace, driver_cluster

KEYSPACE = "kill9"
REGISTERS = 4


def value_of(key, size):
    """The value written to log key `key`: recognizable and `size` long."""
    text = "k%d:" % key
    return (text * (size // len(text) + 1))[:size]


class RoundLoad:
    """Writers of one round: `chains` chains of log inserts and one chain
    per register, each chain issuing its next write from the callback of
    the previous one (so `chains + REGISTERS` writes are in flight), until
    stop() is called. Records what was acknowledged."""

    def __init__(self, session, statements, first_key, registers, chains,
                 value_size):
        self.session = session
        self.insert, self.write_reg = statements
        self.value_size = value_size
        self.lock = threading.Lock()
        self.next_key = first_key
        self.acked_keys = []
        self.registers = registers  # register -> state dict, shared
        self.stopping = False
        self.running = 0
        self.idle = threading.Condition(self.lock)
        self.errors = 0
        self.errors_before_kill = []
        self.killed = False
        self.chains = chains

    def start(self):
        with self.lock:
            self.running = self.chains + len(self.registers)
        for _ in range(self.chains):
            self._next_insert()
        for r in self.registers:
            self._next_register(r)

    def killing(self):
        with self.lock:
            self.killed = True

    def stop(self, timeout):
        """Stops issuing writes and waits for the ones in flight to end
        (answered or failed). Returns False if some did not end in time."""
        deadline = time.time() + timeout
        with self.lock:
            self.stopping = True
            while self.running > 0:
                left = deadline - time.time()
                if left <= 0:
                    return False
                self.idle.wait(left)
        return True

    def _chain_ends(self):
        self.running -= 1
        if self.running == 0:
            self.idle.notify_all()

    def _next_insert(self):
        with self.lock:
            if self.stopping:
                self._chain_ends()
                return
            key = self.next_key
            self.next_key += 1
        future = self.session.execute_async(
            self.insert, (key, value_of(key, self.value_size)))
        future.add_callbacks(self._inserted, self._failed,
                             callback_args=(key,))

    def _inserted(self, _rows, key):
        with self.lock:
            self.acked_keys.append(key)
        self._next_insert()

    def _next_register(self, r):
        state = self.registers[r]
        with self.lock:
            if self.stopping:
                self._chain_ends()
                return
            state["written"] += 1
            value = state["written"]
        # The value is the write timestamp: a later value always wins.
        future = self.session.execute_async(self.write_reg, (r, value, value))
        future.add_callbacks(self._register_acked, self._failed,
                             callback_args=(r, value))

    def _register_acked(self, _rows, r, value):
        with self.lock:
            state = self.registers[r]
            state["acked"] = max(state["acked"], value)
        self._next_register(r)

    def _failed(self, error):
        # The write may or may not be there. The chain ends: after the
        # kill every write fails; before it, a failure is counted apart
        # (none is expected) and the chain ends too.
        with self.lock:
            if self.killed:
                self.errors += 1
            else:
                self.errors_before_kill.append(repr(error)[:200])
            self._chain_ends()


def connect(node):
    cluster = driver_cluster(node, request_timeout=20)
    session = cluster.connect()
    return cluster, session


def create_schema(session):
    create_keyspace(session, KEYSPACE)
    session.execute("CREATE TABLE IF NOT EXISTS %s.log "
                    "(k bigint PRIMARY KEY, v text)" % KEYSPACE)
    session.execute("CREATE TABLE IF NOT EXISTS %s.reg "
                    "(r int PRIMARY KEY, v bigint)" % KEYSPACE)


def prepare(session):
    insert = session.prepare(
        "INSERT INTO %s.log (k, v) VALUES (?, ?)" % KEYSPACE)
    write_reg = session.prepare(
        "INSERT INTO %s.reg (r, v) VALUES (?, ?) USING TIMESTAMP ?" % KEYSPACE)
    return insert, write_reg


def lost_keys(session, keys, value_size):
    """The keys among `keys` that do not read back with their value, one
    SELECT per key."""
    select = session.prepare("SELECT v FROM %s.log WHERE k = ?" % KEYSPACE)
    results = execute_concurrent_with_args(
        session, select, [(k,) for k in keys], concurrency=64,
        raise_on_first_error=True)
    lost = []
    for key, (ok, rows) in zip(keys, results):
        row = rows.one() if ok else None
        if row is None or row.v != value_of(key, value_size):
            lost.append(key)
    return lost


def bad_registers(session, registers):
    """Registers whose value is below the last acknowledged one or above
    the last one written: [(register, read, acked, written)]."""
    select = session.prepare("SELECT v FROM %s.reg WHERE r = ?" % KEYSPACE)
    bad = []
    for r, state in registers.items():
        row = session.execute(select, (r,)).one()
        value = row.v if row is not None else 0
        if not state["acked"] <= value <= state["written"]:
            bad.append((r, value, state["acked"], state["written"]))
    return bad


def wait_for_cql(node, deadline_s=60):
    """Starts the node's process and returns (cluster, session, seconds
    until a CQL query answered)."""
    began = time.time()
    node.start()
    while True:
        try:
            cluster, session = connect(node)
            session.execute("SELECT release_version FROM system.local")
            return cluster, session, time.time() - began
        except Exception:
            if time.time() - began > deadline_s or not node.alive():
                raise
            time.sleep(0.1)


def shutdown(cluster):
    try:
        cluster.shutdown()
    except Exception:
        pass


def run(rounds, sync="batch", seed=None, chains=16, min_load_s=0.3,
        max_load_s=2.0, value_size=1000, memtable_mb=1, full_check_every=10,
        log=print):
    """Runs the campaign; returns its summary (a dict). Raises if the node
    does not restart."""
    seed = seed if seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    config = "commitlog_sync: %s\n" % sync
    if memtable_mb:
        # Small memtables: flushes (and compactions) run during the load,
        # so kills land in them too.
        config += "memtable_size_in_mb: %d\n" % memtable_mb
    node = Node(config)
    summary = {"rounds": 0, "sync": sync, "seed": seed,
               "acknowledged_inserts": 0, "acknowledged_register_writes": 0,
               "failed_or_unanswered_writes": 0, "errors_before_kill": 0,
               "lost": 0,
               "bad_registers": 0, "restart_seconds": [],
               "load_seconds": [], "failures": []}
    registers = {r: {"written": 0, "acked": 0} for r in range(REGISTERS)}
    all_keys = []
    cluster = None
    try:
        cluster, session = connect(node)
        create_schema(session)
        statements = prepare(session)
        next_key = 0
        for rnd in range(1, rounds + 1):
            acked_before = {r: s["acked"] for r, s in registers.items()}
            load = RoundLoad(session, statements, next_key, registers, chains,
                             value_size)
            load_s = rng.uniform(min_load_s, max_load_s)
            load.start()
            time.sleep(load_s)
            load.killing()
            node.proc.kill()  # SIGKILL
            node.proc.wait()
            if not load.stop(timeout=30):
                raise RuntimeError("writes still in flight 30 s after the kill")
            shutdown(cluster)
            next_key = load.next_key
            all_keys.extend(load.acked_keys)

            cluster, session, restart_s = wait_for_cql(node)
            statements = prepare(session)
            full_check = rnd % full_check_every == 0 or rnd == rounds
            lost = lost_keys(session, all_keys if full_check
                             else load.acked_keys, value_size)
            bad = bad_registers(session, registers)
            register_acks = sum(registers[r]["acked"] - acked_before[r]
                                for r in registers)
            summary["rounds"] = rnd
            summary["acknowledged_inserts"] += len(load.acked_keys)
            summary["acknowledged_register_writes"] += register_acks
            summary["failed_or_unanswered_writes"] += load.errors
            summary["errors_before_kill"] += len(load.errors_before_kill)
            if load.errors_before_kill:
                log("round %d: errors before the kill: %s" % (
                    rnd, load.errors_before_kill[:3]))
            summary["lost"] += len(lost)
            summary["bad_registers"] += len(bad)
            summary["restart_seconds"].append(round(restart_s, 3))
            summary["load_seconds"].append(round(load_s, 3))
            if lost or bad:
                summary["failures"].append(
                    {"round": rnd, "lost_keys": lost[:20],
                     "lost_count": len(lost), "bad_registers": bad})
            log("round %d: load %.2f s, %d inserts + %d register writes "
                "acknowledged, %d unanswered, restart %.2f s, lost %d, "
                "bad registers %d" % (rnd, load_s, len(load.acked_keys),
                                      register_acks, load.errors, restart_s,
                                      len(lost), len(bad)))
        summary["keys_checked_at_end"] = len(all_keys)
    finally:
        if cluster is not None:
            shutdown(cluster)
        summary["node_log_tail"] = node.output()[-2000:]
        node.stop()
    times = summary["restart_seconds"]
    if times:
        summary["restart_min_median_max"] = [
            min(times), round(statistics.median(times), 3), max(times)]
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sync", choices=["batch", "periodic"],
                        default="batch", help="commitlog_sync")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--chains", type=int, default=16,
                        help="log inserts in flight")
    parser.add_argument("--min-load", type=float, default=0.3,
                        help="shortest load before the kill, seconds")
    parser.add_argument("--max-load", type=float, default=2.0,
                        help="longest load before the kill, seconds")
    parser.add_argument("--value-size", type=int, default=1000)
    parser.add_argument("--memtable-mb", type=int, default=1,
                        help="memtable_size_in_mb (0: the default)")
    parser.add_argument("--json", help="write the summary to this file")
    args = parser.parse_args()
    summary = run(args.rounds, args.sync, args.seed, args.chains,
                  args.min_load, args.max_load, args.value_size,
                  args.memtable_mb)
    tail = summary.pop("node_log_tail")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    times = summary.pop("restart_seconds")
    summary.pop("load_seconds")
    print(json.dumps(summary, indent=1))
    print("restart seconds: " + " ".join("%.2f" % t for t in times))
    ok = summary["lost"] == 0 and summary["bad_registers"] == 0
    if not ok:
        print("node log tail:\n" + tail)
    print("kill9_campaign: %s (%d rounds, sync %s, %d inserts and %d register "
          "writes acknowledged, %d lost, %d bad registers)" % (
              "PASS" if ok else "FAIL", summary["rounds"], summary["sync"],
              summary["acknowledged_inserts"],
              summary["acknowledged_register_writes"], summary["lost"],
              summary["bad_registers"]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
