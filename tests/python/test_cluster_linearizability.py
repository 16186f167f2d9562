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
and checks that the checker names it. The checker's own tests (the
test_checker_* functions) use small hand-written histories, compare it
with a brute-force search on 1,500 random small histories and run it on
simulated linearizable histories.

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
# The checker's own tests.

def op(process, kind, args, invoke, complete, result=None, key=0):
    """An operation of a hand-written history; complete=None: unknown."""
    return Op(process, kind, key, tuple(args), invoke,
              complete if complete is not None else float("inf"),
              OK if complete is not None else UNKNOWN, result)


def verdict(history):
    results = lin.check(history, timeout=10)
    return all(r.ok for r in results.values())


def test_checker_accepts_a_linearizable_history():
    h = [
        # Two racing inserts: one applied, the other sees its value.
        op(1, INSERT, [10], 0.0, 2.0, (True, None)),
        op(2, INSERT, [20], 0.5, 2.5, (False, 10)),
        # A read concurrent with a CAS may see either value.
        op(3, CAS, [10, 11], 3.0, 5.0, (True, None)),
        op(1, READ, [], 3.5, 4.0, 10),
        op(2, READ, [], 4.5, 6.0, 11),
        # Not applied: returns the current value.
        op(3, CAS, [10, 12], 6.5, 7.0, (False, 11)),
        # Overlapping CAS chain, linearized in the other order than the
        # invocations: 11 -> 13 (p2) must come before 13 -> 14 (p1).
        op(1, CAS, [13, 14], 8.0, 10.0, (True, None)),
        op(2, CAS, [11, 13], 8.5, 9.5, (True, None)),
        op(3, READ, [], 10.5, 11.0, 14),
    ]
    assert verdict(h)
    # The same history is accepted in any order of the list.
    assert verdict(list(reversed(h)))
    # Absent rows: a read of nothing, a CAS that returns no value.
    assert verdict([op(1, READ, [], 0, 1, None),
                    op(2, CAS, [5, 6], 2, 3, (False, None)),
                    op(1, INSERT, [7], 4, 5, (True, None)),
                    op(2, READ, [], 6, 7, 7)])


def test_checker_rejects_a_stale_read():
    h = [op(1, INSERT, [10], 0.0, 1.0, (True, None)),
         op(2, CAS, [10, 11], 2.0, 3.0, (True, None)),
         op(3, READ, [], 4.0, 5.0, 10)]   # after the CAS returned
    results = lin.check(h)
    assert not results[0].ok
    assert results[0].culprit == h[2]
    assert results[0].state == 11
    report = results[0].report()
    assert "p3 key 0 [4.0000, 5.0000] read() -> 10" in report, report
    assert h[2] in results[0].involved()
    # Concurrent with the CAS, the same read is fine.
    h[2] = op(3, READ, [], 2.5, 5.0, 10)
    assert verdict(h)
    # A read absent after a completed insert is stale too.
    assert not verdict([op(1, INSERT, [1], 0, 1, (True, None)),
                        op(2, READ, [], 2, 3, None)])


def test_checker_rejects_two_applied_inserts_if_absent():
    h = [op(1, INSERT, [10], 0.0, 2.0, (True, None)),
         op(2, INSERT, [20], 1.0, 3.0, (True, None))]
    results = lin.check(h)
    assert not results[0].ok
    assert results[0].culprit in h
    # ... also when one of them is unknown and the other is then read?
    # No: an unknown insert may simply not have happened.
    assert verdict([op(1, INSERT, [10], 0.0, None),
                    op(2, INSERT, [20], 1.0, 3.0, (True, None)),
                    op(3, READ, [], 4.0, 5.0, 20)])
    # An insert not applied while the row is absent is wrong too.
    assert not verdict([op(1, INSERT, [10], 0.0, 1.0, (False, None))])


def test_checker_rejects_a_lost_acknowledged_cas():
    h = [op(1, INSERT, [1], 0.0, 1.0, (True, None)),
         op(2, CAS, [1, 2], 2.0, 3.0, (True, None)),
         # Applied as if the CAS above never happened.
         op(3, CAS, [1, 3], 4.0, 5.0, (True, None)),
         op(1, READ, [], 6.0, 7.0, 3)]
    assert not verdict(h)
    # A CAS not applied that reports the state before an acknowledged
    # one is a lost write as well.
    assert not verdict([op(1, INSERT, [1], 0.0, 1.0, (True, None)),
                        op(2, CAS, [1, 2], 2.0, 3.0, (True, None)),
                        op(3, CAS, [7, 8], 4.0, 5.0, (False, 1))])
    # Two applied CAS with the same expected value, overlapping.
    assert not verdict([op(1, INSERT, [1], 0.0, 1.0, (True, None)),
                        op(2, CAS, [1, 2], 2.0, 4.0, (True, None)),
                        op(3, CAS, [1, 3], 2.5, 4.5, (True, None))])


def test_checker_accepts_an_unknown_write_that_appears_later():
    h = [op(1, INSERT, [1], 0.0, 1.0, (True, None)),
         op(2, CAS, [1, 2], 2.0, None),               # timed out
         op(3, READ, [], 3.0, 4.0, 1),                # not yet
         op(1, READ, [], 10.0, 11.0, 2),              # long after it
         op(3, CAS, [2, 5], 12.0, 13.0, (True, None))]
    assert verdict(h)
    # ... or that never appears.
    h[3] = op(1, READ, [], 10.0, 11.0, 1)
    h[4] = op(3, CAS, [1, 5], 12.0, 13.0, (True, None))
    assert verdict(h)
    # But it cannot take effect before its invocation, nor come and go.
    assert not verdict([op(1, INSERT, [1], 0.0, 1.0, (True, None)),
                        op(3, READ, [], 1.5, 1.8, 2),
                        op(2, CAS, [1, 2], 2.0, None)])
    assert not verdict([op(1, INSERT, [1], 0.0, 1.0, (True, None)),
                        op(2, CAS, [1, 2], 2.0, None),
                        op(3, READ, [], 3.0, 4.0, 2),
                        op(3, READ, [], 5.0, 6.0, 1)])
    # Unknown reads constrain nothing.
    assert verdict([op(1, INSERT, [1], 0.0, 1.0, (True, None)),
                    op(3, READ, [], 2.0, None)])


def test_checker_explains_the_first_violation():
    h = [op(1, INSERT, [1], 0.0, 1.0, (True, None)),
         op(2, CAS, [1, 2], 2.0, 3.0, (True, None)),
         op(3, READ, [], 3.5, 4.0, 1),                 # stale: the first
         op(1, CAS, [2, 3], 5.0, 6.0, (True, None)),
         op(2, READ, [], 5.5, 7.0, 2),                 # concurrent: fine
         op(3, READ, [], 8.0, 9.0, 2),                 # stale as well
         op(1, CAS, [3, 4], 10.0, None),
         op(2, READ, [], 11.0, 12.0, 4)]
    result = lin.check_key(0, h)
    assert not result.ok
    assert result.culprit == h[2] and result.cut_at == 4.0
    assert result.state == 2
    assert [o for o, _ in result.prefix] == h[:2]
    report = result.report()
    assert "the history up to 4.0000 (" in report, report
    assert "p3 key 0 [3.5000, 4.0000] read() -> 1" in report, report
    # The cut: invoked by then, still running is unknown (reads dropped).
    cut = lin.truncate(h, 5.7)
    assert cut[:3] == h[:3] and cut[3].outcome == UNKNOWN and len(cut) == 4
    # The involved operations: the linearized ones before, the culprit and
    # those pending with it.
    pending = op(4, CAS, [9, 10], 3.0, 20.0, (False, 2))
    result = lin.check_key(0, h[:3] + [pending])
    assert result.involved() == h[:3] + [pending], result.report()


def test_checker_rejects_values_never_written_and_checks_keys_apart():
    assert not verdict([op(1, READ, [], 0.0, 1.0, 9)])
    # Key 1's value is not key 0's.
    h = [op(1, INSERT, [1], 0.0, 1.0, (True, None), key=0),
         op(2, READ, [], 2.0, 3.0, 1, key=1)]
    results = lin.check(h)
    assert results[0].ok and not results[1].ok


def test_checker_times_out_loudly():
    # Many unknown writes that each could have taken effect, and a read
    # nothing explains: every subset of them gets explored.
    h = [op(1, INSERT, [0], 0.0, 1.0, (True, None))]
    for i in range(1, 14):
        h.append(op(i, CAS, [0, i], 2.0, None))
        h.append(op(i, CAS, [i, 0], 2.0, None))
    h.append(op(99, READ, [], 3.0, 4.0, 777))
    with pytest.raises(lin.CheckerTimeout):
        lin.check(h, timeout=0.0)


def brute_force(ops):
    """Linearizable by trying every order of every subset that holds the
    known operations (small histories only)."""
    ops = [o for o in ops if not (o.kind == READ and o.outcome == UNKNOWN)]
    known = [o for o in ops if o.outcome == OK]
    unknown = [o for o in ops if o.outcome == UNKNOWN]
    for r in range(len(unknown) + 1):
        for chosen in itertools.combinations(unknown, r):
            for order in itertools.permutations(known + list(chosen)):
                # Real time: nothing after an operation that returned
                # before it was invoked.
                if any(order[j].complete < order[i].invoke
                       for i in range(len(order))
                       for j in range(i + 1, len(order))):
                    continue
                state, good = None, True
                for o in order:
                    good, state = lin.step(state, o)
                    if not good:
                        break
                if good:
                    return True
    return False


def random_history(rng, n):
    ops = []
    for i in range(n):
        start = rng.randrange(0, 12)
        end = start + rng.randrange(1, 6)
        complete = None if rng.random() < 0.2 else end
        kind = rng.choice([INSERT, CAS, CAS, READ])
        if kind == INSERT:
            args = [rng.choice([1, 2, 3])]
        elif kind == CAS:
            args = [rng.choice([1, 2, 3]), rng.choice([1, 2, 3])]
        else:
            args = []
        if kind == READ:
            result = rng.choice([None, 1, 2, 3])
        elif rng.random() < 0.5:
            result = (True, None)
        else:
            result = (False, rng.choice([None, 1, 2, 3]))
        ops.append(op(i % 3, kind, args, float(start),
                      None if complete is None else float(complete), result))
    return ops


def test_checker_agrees_with_brute_force_on_random_small_histories():
    rng = random.Random(12345)
    seen = {True: 0, False: 0}
    for _ in range(1500):
        h = random_history(rng, rng.randrange(1, 7))
        expected = brute_force(h)
        got = lin.check_key(0, h, timeout=10).ok
        assert got == expected, "\n".join(o.describe() for o in h)
        seen[expected] += 1
    # Both verdicts were exercised.
    assert seen[True] > 100 and seen[False] > 100, seen


def simulated_history(rng, n, processes=4):
    """A linearizable history by construction: each operation takes effect
    at a random point of its interval, in that order; some writes time out
    (unknown), taking effect or not."""
    state, ops, values = None, [], itertools.count(1)
    events = []
    for i in range(n):
        start = rng.uniform(0, n / 2.0)
        point = start + rng.uniform(0, 1.5)
        end = point + rng.uniform(0, 1.5)
        events.append((point, start, end, i))
    written = []
    for point, start, end, i in sorted(events):
        kind = rng.choice([INSERT, CAS, CAS, READ])
        if kind == INSERT:
            args = (next(values),)
        elif kind == CAS:
            args = (rng.choice(written[-4:])
                    if written and rng.random() < 0.7
                    else rng.randrange(1, n + 1), next(values))
        else:
            args = ()
        unknown = kind != READ and rng.random() < 0.1
        proto = Op(i % processes, kind, 0, args, start, end, OK, None)
        if unknown and rng.random() < 0.5:
            ops.append(proto._replace(outcome=UNKNOWN, complete=float("inf")))
            continue  # never took effect
        _, after = lin.step(state, proto._replace(outcome=UNKNOWN))
        if kind == READ:
            result = state
        elif after != state or (kind == CAS and state is not None and
                                state == args[0]):
            result = (True, None)
        else:
            result = (False, state)
        if after != state:
            written.append(after)
        state = after
        if unknown:
            ops.append(proto._replace(outcome=UNKNOWN, complete=float("inf")))
        else:
            ops.append(proto._replace(result=result))
    return ops


def test_checker_accepts_simulated_linearizable_histories_quickly():
    rng = random.Random(777)
    for _ in range(20):
        h = simulated_history(rng, 300)
        started = time.monotonic()
        result = lin.check_key(0, h, timeout=20)
        assert result.ok, result.report()
        assert time.monotonic() - started < 5
        # A read of a value never written breaks it, and the checker
        # names that read.
        reads = [i for i, o in enumerate(h)
                 if o.kind == READ and o.outcome == OK]
        i = rng.choice(reads)
        original = h[i]
        h[i] = h[i]._replace(result=-1)
        result = lin.check_key(0, h, timeout=20)
        assert not result.ok and result.culprit == h[i], result.report()
        # So does a stale one.
        h[i] = original
        planted = plant_stale_read(h)
        if planted:
            _, j, stale = planted
            h[j] = h[j]._replace(result=stale)
            result = lin.check_key(0, h, timeout=20)
            assert not result.ok and result.culprit == h[j], result.report()


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


def plant_stale_read(history):
    """(key, index in the key's operations, value) for a read that
    returned one value when an applied CAS had replaced another before
    the read began: that other value, once replaced, never comes back
    (every write writes a new value), so the read becomes stale. None
    when the history has no such read."""
    by_key = {}
    for o in history:
        by_key.setdefault(o.key, []).append(o)
    for key in sorted(by_key, key=lambda k: -len(by_key[k])):
        ops = by_key[key]
        replaced = sorted((o.complete, o.args[0]) for o in ops
                          if o.kind == CAS and o.outcome == OK and
                          o.result[0])
        for index, o in enumerate(ops):
            if o.kind != READ or o.outcome != OK:
                continue
            gone = [v for done, v in replaced if done < o.invoke and
                    v != o.result]
            if gone:
                return key, index, gone[0]
    return None


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
        planted = plant_stale_read(history)
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

