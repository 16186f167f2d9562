"""Linearizability of lightweight transactions on a 3-node cluster (RF=3,
its own etcd, nodes on 127.0.0.1-3), checked on the history of a random
workload by a checker of our own (linearizability.py), as Jepsen's Knossos
and Porcupine check histories.

Workload: client threads, each with a driver bound to one coordinator
(round-robin over the three nodes), run a random mix on a few keys of
lin.r (k int PRIMARY KEY, v int): INSERT ... IF NOT EXISTS, UPDATE ...
SET v = new IF v = expected (expected: the value the thread saw last for
the key, or one of the last values written to it, or a random one) and
SELECT v at SERIAL. Every write carries a value never written before.
Keys are used for KEY_SECONDS each and replaced by fresh ones, so rows
are created by racing inserts many times in a run and each key's history
stays small (a few hundred operations) enough to check in well under a
second; half the keys are in each of the table's two initial tablets, so
whatever tablet moves or splits holds keys under test. Each operation is
recorded with its thread, key, arguments, time.monotonic() (since the
workload began) at invocation and completion, and its outcome: the result
(applied; not applied with the current value that comes back; the value
read), or "unknown" for any error (a WriteTimeout of type CAS, a timeout,
a dropped connection: the write may or may not have taken effect; an
unknown read is dropped). The driver never retries
(FallthroughRetryPolicy): a retried CAS could report its own write as
"not applied". A thread whose coordinator the driver sees down invokes
nothing until it is back. At the end every key is read at SERIAL through
every node.

Faults, while the clients run, each kind once in a random order
(KEYWISE_SEED, printed), then kills until the time is up:
  - kill -9: one of nodes 1-3 is killed with SIGKILL, restarted 2.5 s
    later;
  - tablet moves: a node joins (`keywise cluster add`: no command moves a
    given tablet, the balancer moves replicas to a new node) and receives
    a replica of a tablet of lin.r; then it is decommissioned
    (`keywise cluster decommission`) and its replicas move back;
  - tablet moves with a kill: the same, one of nodes 1-3 killed with
    SIGKILL in the middle of the move to the new node, at a random stage
    (write_both or read_new) seen in the table's tablet map in etcd
    (polled every millisecond: these moves take tens of milliseconds),
    restarted 2.5 s later; the log says whether it was the replica
    leaving. The new node then stays (in the long run it is
    decommissioned: a move that failed pauses its tablet for 30 s);
  - size splits: plain writes of filler rows (keys outside the keys under
    test) grow the table past tablet_split_size_in_kb (16), so both
    initial tablets, those of the keys under test, split (waited for).
What was injected and when is printed (pytest -s) and with a failure.

Check: per key (keys are independent registers), a linearization of the
key's operations must exist for a compare-and-set register
(linearizability.py: Wing & Gong / Lowe's search with memoization on the
linearized set and the state, as Porcupine; an unknown write has an
infinite completion time and may be left out). A key without one fails
the test with its first violation in time: the history cut at the
earliest completion that has no linearization, the operation that
completed then (the culprit), the state the deepest partial linearization
reached, its last operations, and the operations pending at that point.
The checker has a time budget (CHECK_SECONDS) and fails when it runs out
rather than passing. The test also plants a stale read in its own history
and checks that the checker names it. The checker's own tests are in
test_linearizability_checker.py.

CI runs 25 s of workload with 6 threads and 3 keys at a time (about 30 s
in all). The long run: KEYWISE_LONG_LINEARIZABILITY=1 runs 5 minutes with
12 threads and 6 keys at a time, each kind of fault again in new random
orders (20 joining nodes at most), e.g.
  KEYWISE_LONG_LINEARIZABILITY=1 KEYWISE_SEED=3 /usr/bin/python3 -m pytest \
      -s tests/python/test_cluster_linearizability.py
KEYWISE_LINEARIZABILITY_SECONDS=N overrides the workload's length. On a
failure the whole history is saved as JSON (in KEYWISE_TEST_LOGS if set,
where it is saved on success too, next to the nodes' logs; else in the
temporary directory).
"""

import base64
import itertools
import json
import os
import pathlib
import random
import re
import signal
import struct
import tempfile
import threading
import time
import urllib.request

import pytest
from cassandra import ConsistencyLevel
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.metadata import Murmur3Token
from cassandra.policies import (ConstantReconnectionPolicy,
                                FallthroughRetryPolicy,
                                WhiteListRoundRobinPolicy)
from cassandra.query import dict_factory

import fault_campaign
import linearizability as lin
from linearizability import CAS, INSERT, OK, READ, UNKNOWN, Op
import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

LONG = os.environ.get("KEYWISE_LONG_LINEARIZABILITY") == "1"
SECONDS = float(os.environ.get("KEYWISE_LINEARIZABILITY_SECONDS",
                               "300" if LONG else "25"))
THREADS = 12 if LONG else 6
SLOTS = 6 if LONG else 3       # keys in use at a time
KEY_SECONDS = 5.0              # how long a key is used
SEED = int(os.environ.get("KEYWISE_SEED", str(int(time.time()) % 100000)))
CHECK_SECONDS = 120.0 if LONG else 30.0
SPLIT_KB = 16
MOVE_FAULTS = 20 if LONG else 2  # spare addresses: one joining node each


# ---------------------------------------------------------------------------
# The cluster test.

def token_of(k):
    return Murmur3Token.from_key(struct.pack(">i", k)).value


def key_schedule(slots, generations):
    """keys[slot][generation]: fresh keys, slot s's in the table's tablet
    s % 2 of 2 (tokens below 0, or not)."""
    keys = [[] for _ in range(slots)]
    k = 1
    for s in range(slots):
        while len(keys[s]) < generations:
            k += 1
            if (token_of(k) >= 0) == (s % 2 == 1):
                keys[s].append(k)
    return keys


class Recorder:
    """The history, shared by the client threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ops = []
        self.values = itertools.count(1)
        self.written = {}  # key -> values written (attempted)

    def add(self, o):
        with self.lock:
            self.ops.append(o)


def client(process, session, recorder, keys, t0, stop, rng, counts):
    insert = session.prepare(
        "INSERT INTO lin.r (k, v) VALUES (?, ?) IF NOT EXISTS")
    cas = session.prepare("UPDATE lin.r SET v = ? WHERE k = ? IF v = ?")
    read = session.prepare("SELECT v FROM lin.r WHERE k = ?")
    for s in (insert, cas):
        s.consistency_level = ConsistencyLevel.QUORUM
        s.serial_consistency_level = ConsistencyLevel.SERIAL
    read.consistency_level = ConsistencyLevel.SERIAL
    host = session.cluster.metadata.get_host(
        session.cluster.contact_points[0])
    seen = {}  # key -> the last value this thread saw
    while not stop.is_set():
        if host is not None and not host.is_up:
            time.sleep(0.05)  # not invoked: its coordinator is down
            continue
        generation = int((time.monotonic() - t0) / KEY_SECONDS)
        slot = rng.randrange(len(keys))
        key = keys[slot][min(generation, len(keys[slot]) - 1)]
        dice = rng.random()
        if dice < 0.15:
            kind, value = INSERT, next(recorder.values)
            args, statement, params = (value,), insert, (key, value)
        elif dice < 0.7:
            kind, value = CAS, next(recorder.values)
            written = recorder.written.get(key, [])
            if key in seen and seen[key] is not None and rng.random() < 0.7:
                expected = seen[key]
            elif written and rng.random() < 0.7:
                expected = rng.choice(written[-5:])
            else:
                expected = rng.randrange(1, value + 1)
            args, statement, params = (expected, value), cas, \
                (value, key, expected)
        else:
            kind, args, statement, params = READ, (), read, (key,)
        if kind != READ:
            with recorder.lock:
                recorder.written.setdefault(key, []).append(args[-1])
        # Times in seconds since the workload began, as in the fault log.
        invoke = time.monotonic() - t0
        try:
            rows = session.execute(statement, params)
        except Exception as e:  # noqa: BLE001 - the outcome is unknown
            # The result of an unknown operation: the error, after how
            # long (for the saved history; the checker ignores it).
            recorder.add(Op(process, kind, key, args, invoke,
                            float("inf"), UNKNOWN, "after %.3f s: %s: %s" % (
                                time.monotonic() - t0 - invoke,
                                type(e).__name__, str(e)[:300])))
            with recorder.lock:
                counts["unknown"] += 1
            time.sleep(0.1 + rng.random() * 0.2)  # do not spin on errors
            continue
        complete = time.monotonic() - t0
        row = rows.one()
        if kind == READ:
            result = None if row is None else row["v"]
            seen[key] = result
        else:
            applied = bool(row["[applied]"])
            current = None if applied else row.get("v")
            result = (applied, current)
            seen[key] = args[-1] if applied else current
        with recorder.lock:
            if kind != READ:
                counts["applied" if applied else "not applied"] += 1
            counts[kind] += 1
        recorder.add(Op(process, kind, key, args, invoke, complete, OK,
                        result))


class Faults:
    """The faults, each logged with its time since the workload began."""

    def __init__(self, cluster, t0, rng):
        self.cluster, self.t0, self.rng = cluster, t0, rng
        self.log = []
        self.nodes = 3       # nodes 1-3 take the clients
        self.added = 3       # the highest node number so far
        self.moves_seen = 0
        self.filler = itertools.count(10 ** 8)

    def note(self, what):
        line = "%7.2f s  %s" % (time.monotonic() - self.t0, what)
        self.log.append(line)
        print(line, flush=True)

    def status(self):
        return self.cluster.run("status")

    def wait_all_up(self):
        local_cluster.wait_for(
            lambda: all("UN  127.0.0.%d" % i in self.status()
                        for i in range(1, self.nodes + 1)), 60,
            "nodes 1-%d up" % self.nodes)

    def tablets(self):
        return local_cluster.tablet_rows(self.cluster.admin("tablets", "lin"),
                                         "lin.r")

    def kill9(self, victim=None):
        victim = victim or self.rng.randint(1, 3)
        self.cluster.run("kill", str(victim))
        self.note("kill -9 node %d" % victim)
        time.sleep(2.5)
        self.cluster.run("start", str(victim))
        self.note("node %d restarted" % victim)
        self.wait_all_up()
        self.note("every node up")

    def transitions(self):
        """The moves under way in lin.r's tablet map in etcd: [{"tablet",
        "stage", "leaving", "pending"}] (read through etcd's JSON gateway:
        a poll takes about a millisecond, and a move of these small
        tablets a few tens)."""
        prefix = "/keywise/keywise/tablets/"
        body = json.dumps({
            "key": base64.b64encode(prefix.encode()).decode(),
            "range_end": base64.b64encode(
                (prefix[:-1] + chr(ord(prefix[-1]) + 1)).encode()).decode()})
        request = urllib.request.Request(
            "http://127.0.0.1:%d/v3/kv/range" % self.cluster.etcd_port,
            data=body.encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as reply:
            kvs = json.loads(reply.read()).get("kvs", [])
        for kv in kvs:
            tablets = json.loads(base64.b64decode(kv["value"]))
            if (tablets.get("keyspace"), tablets.get("table")) == \
                    ("lin", "r"):
                return tablets.get("transitions", [])
        return []

    def addresses(self):
        """{host id: address} from `keywise cluster status`."""
        return {m.group(2): m.group(1) for m in re.finditer(
            r"^[UD][NLJX]\s+(127\.0\.0\.\d+)\s.*?([0-9a-f-]{36})",
            self.status(), re.M)}

    def move(self, kill_during=False):
        """A node joins and the balancer moves a replica of one of lin.r's
        tablets to it (kill_during: one of nodes 1-3 is killed with SIGKILL
        in the middle of that move, at a random stage); then the node is
        decommissioned and the replica moves back (not after a kill in
        the short run: a move that failed pauses its tablet for 30 s)."""
        stage = self.rng.choice(["write_both", "read_new"])
        victim = self.rng.randint(1, 3)
        caught = []
        watching = threading.Event()

        def kill_mid_move():
            deadline = time.monotonic() + 20
            seen = None
            while time.monotonic() < deadline and watching.is_set():
                moves = self.transitions()
                if moves:
                    seen = moves[0]
                if any(m.get("stage") == stage for m in moves) or \
                        (seen and not moves):
                    os.kill(fault_campaign.node_pid(self.cluster, victim),
                            signal.SIGKILL)
                    caught.append((time.monotonic(), seen, moves))
                    return
                time.sleep(0.001)

        if kill_during:
            watching.set()
            watcher = threading.Thread(target=kill_mid_move)
            watcher.start()
        try:
            self.cluster.run("add")
        finally:
            if kill_during:
                watcher.join()
                watching.clear()
        self.added += 1
        new = "127.0.0.%d" % self.added
        self.note("node %d joined (%s): the balancer moves a replica of "
                  "lin.r to it" % (self.added, new))
        if kill_during:
            assert caught, "no move of lin.r to node %d seen" % self.added
            when, seen, moves = caught[0]
            names = self.addresses()
            role = ("the replica leaving" if
                    names.get(seen.get("leaving")) == "127.0.0.%d" % victim
                    else "a replica staying")
            self.note("kill -9 node %d (%s) %s of tablet %s moving from %s to "
                      "%s" % (victim, role, "at stage " + moves[0]["stage"]
                              if moves else "just after the move",
                              seen.get("tablet"),
                              names.get(seen.get("leaving")),
                              names.get(seen.get("pending"))))
            time.sleep(2.5)
            self.cluster.run("start", str(victim))
            self.note("node %d restarted" % victim)
        local_cluster.wait_for(
            lambda: "moving" not in self.status() and
            local_cluster.tablets_held(self.status()).get(new, 0) > 0, 60,
            "a tablet of lin.r to move to %s" % new)
        self.wait_all_up()
        self.moves_seen += 1
        self.note("moved: " + "; ".join(
            "tablet %d..%d on %s" % (r[0], r[1], r[4]) for r in self.tablets()))
        if kill_during and not LONG:
            return
        out = self.cluster.run("decommission", str(self.added), timeout=180)
        self.note("node %d decommissioned, its replicas moved back: %s" % (
            self.added, " ".join(out.split())[:200]))
        self.note("tablets: " + "; ".join(
            "%d..%d on %s" % (r[0], r[1], r[4]) for r in self.tablets()))

    def split(self, session, insert):
        """Plain writes of filler rows (`insert`, prepared on `session`)
        until lin.r's tablets have split: the first time, until both
        initial tablets have (each holds keys under test); then until two
        more tablets exist."""
        before = [r[:2] for r in self.tablets()]
        self.note("filler writes to split lin.r (%d tablets, split at %d "
                  "KiB)" % (len(before), SPLIT_KB))

        def split():
            now = [r[:2] for r in self.tablets()]
            if len(before) == 2:
                return not set(before) & set(now)
            return len(now) >= len(before) + 2
        written = 0
        deadline = time.monotonic() + 60
        while not split():
            assert time.monotonic() < deadline, \
                "lin.r did not split: %s" % self.tablets()
            futures = [session.execute_async(insert, (next(self.filler), 1))
                       for _ in range(200)]
            for f in futures:
                try:
                    f.result()
                    written += 1
                except Exception:  # noqa: BLE001 - filler only
                    pass
            time.sleep(0.2)
        self.note("lin.r split into %d tablets after %d filler rows: %s" % (
            len(self.tablets()), written, "; ".join(
                "%d..%d" % (r[0], r[1]) for r in self.tablets())))


def driver_for(cluster, address):
    profile = ExecutionProfile(
        load_balancing_policy=WhiteListRoundRobinPolicy([address]),
        retry_policy=FallthroughRetryPolicy(),
        consistency_level=ConsistencyLevel.QUORUM,
        row_factory=dict_factory, request_timeout=10)
    return Cluster([address], port=cluster.port, protocol_version=4,
                   reconnection_policy=ConstantReconnectionPolicy(0.3, None),
                   execution_profiles={EXEC_PROFILE_DEFAULT: profile})


def save_history(cluster, history, fault_log):
    target = os.environ.get("KEYWISE_TEST_LOGS") or tempfile.gettempdir()
    path = pathlib.Path(target) / ("linearizability-%s.json" %
                                   pathlib.Path(cluster.dir).name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "faults": fault_log,
        "ops": [dict(o._asdict(), complete=None if o.outcome == UNKNOWN
                     else o.complete) for o in history]}, indent=0))
    return path


def test_lwt_histories_are_linearizable_under_kills_moves_and_splits():
    rng = random.Random(SEED)
    print("\nseed %d (KEYWISE_SEED), %.0f s, %d threads, %d keys at a time"
          % (SEED, SECONDS, THREADS, SLOTS))
    cluster = local_cluster.LocalCluster(
        3, spare=MOVE_FAULTS,
        conf=("tablet_balancer_interval_in_ms=100",
              "tablet_load_report_interval_in_ms=300", "initial_tablets=2",
              "tablet_split_size_in_kb=%d" % SPLIT_KB,
              "tablet_split_requests_per_second=0",
              # Each joining node gets tablets again (by default a tablet
              # moved to even nodes out stays 5 minutes).
              "tablet_balance_cooldown_in_ms=1000"))
    drivers = []
    threads = []
    stop = threading.Event()
    try:
        # Schema and filler writes: any node, the driver's own retries.
        setup = cluster.driver()
        drivers.append(setup)
        session = setup.connect()
        session.execute(
            "CREATE KEYSPACE lin WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        session.execute("CREATE TABLE lin.r (k int PRIMARY KEY, v int)")
        filler = session.prepare("INSERT INTO lin.r (k, v) VALUES (?, ?)")

        generations = int(SECONDS * 2 / KEY_SECONDS) + 4
        keys = key_schedule(SLOTS, generations)
        recorder = Recorder()
        counts = {c: 0 for c in (INSERT, CAS, READ, "applied",
                                 "not applied", "unknown")}
        sessions = {}
        for i in range(1, 4):
            address = "127.0.0.%d" % i
            d = driver_for(cluster, address)
            drivers.append(d)
            sessions[address] = d.connect()
        t0 = time.monotonic()
        faults = Faults(cluster, t0, rng)
        for p in range(THREADS):
            address = "127.0.0.%d" % (p % 3 + 1)
            threads.append(threading.Thread(
                target=client, args=(p, sessions[address], recorder, keys, t0,
                                     stop, random.Random(SEED * 1000 + p),
                                     counts), daemon=True))
        for t in threads:
            t.start()

        # Faults: each kind once in a random order (CI), then again in
        # new random orders (long run) until the workload's time is up.
        kinds = [faults.kill9, faults.move,
                 lambda: faults.move(kill_during=True),
                 lambda: faults.split(session, filler)]
        time.sleep(1.5)
        done = 0
        while done < len(kinds) or time.monotonic() - t0 < SECONDS - 6:
            if done % len(kinds) == 0:
                order = list(kinds)
                rng.shuffle(order)
            fault = order[done % len(kinds)]
            if fault in kinds[1:3] and faults.added - 3 >= MOVE_FAULTS:
                fault = faults.kill9  # no spare address left
            if fault is kinds[3] and done >= len(kinds) and not LONG:
                fault = faults.kill9  # one split is enough in CI
            fault()
            done += 1
            time.sleep(1.0)
        remaining = SECONDS - (time.monotonic() - t0)
        if remaining > 0:
            time.sleep(remaining)
        stop.set()
        for t in threads:
            t.join(timeout=30)
            assert not t.is_alive(), "a client thread is stuck"
        faults.note("workload stopped")

        # Every key read at SERIAL through every node at the end (a read
        # that fails is tried again: it constrains nothing).
        for address, s in sessions.items():
            read = s.prepare("SELECT v FROM lin.r WHERE k = ?")
            read.consistency_level = ConsistencyLevel.SERIAL
            for key in sorted({o.key for o in recorder.ops}):
                for attempt in range(20):
                    invoke = time.monotonic() - t0
                    try:
                        row = s.execute(read, (key,)).one()
                    except Exception:  # noqa: BLE001 - try again
                        time.sleep(0.5)
                        continue
                    recorder.add(Op("final@" + address, READ, key, (),
                                    invoke, time.monotonic() - t0, OK,
                                    None if row is None else row["v"]))
                    break

        history = list(recorder.ops)
        print("operations: %s; %d keys" % (
            ", ".join("%s %d" % kv for kv in counts.items()),
            len({o.key for o in history})))
        assert counts[READ] > 100 and counts["applied"] > 100 and \
            counts["not applied"] > 100, counts
        started = time.monotonic()
        try:
            results = lin.check(history, timeout=CHECK_SECONDS)
        except lin.CheckerTimeout as e:
            path = save_history(cluster, history, faults.log)
            pytest.fail("the checker found no verdict in time (%s); history "
                        "in %s" % (e, path))
        took = time.monotonic() - started
        largest = max(len(r.ops) for r in results.values())
        print("checked %d keys in %.1f s (largest key history: %d "
              "operations)" % (len(results), took, largest))
        bad = [r for r in results.values() if not r.ok]
        if bad or os.environ.get("KEYWISE_TEST_LOGS"):
            path = save_history(cluster, history, faults.log)
            print("history saved in %s" % path)
        if bad:
            pytest.fail("%d of %d keys have no linearization (seed %d; full "
                        "history in %s)\nfaults:\n%s\n\n%s" % (
                            len(bad), len(results), SEED, path,
                            "\n".join(faults.log),
                            "\n\n".join(r.report() for r in bad)))
        assert faults.moves_seen >= 2, faults.log
        # The checker sees a stale read planted in this very history.
        planted = lin.plant_stale_read(history)
        assert planted is not None, "no read to plant a stale value in"
        key, index, stale = planted
        mutated = [o for o in history if o.key == key]
        mutated[index] = mutated[index]._replace(result=stale)
        result = lin.check_key(key, mutated, timeout=CHECK_SECONDS)
        assert not result.ok and result.culprit == mutated[index], \
            result.report()
    except BaseException:
        stop.set()
        cluster.keep_logs()
        raise
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
        for d in drivers:
            d.shutdown()
        cluster.close()

