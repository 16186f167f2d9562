"""The linearizability checker's own tests (linearizability.py, used by
test_cluster_linearizability.py): small hand-written histories it must
accept or reject (stale reads, two applied inserts-if-absent, a lost
acknowledged compare-and-set, an unknown write that appears later, values
never written), its report of the first violation and its time budget; it
is compared with a brute-force search on 1,500 random small histories and
run on simulated linearizable histories. No cluster is needed."""

import itertools
import random
import time

import pytest

import linearizability as lin
from linearizability import CAS, INSERT, OK, READ, UNKNOWN, Op


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
        planted = lin.plant_stale_read(h)
        if planted:
            _, j, stale = planted
            h[j] = h[j]._replace(result=stale)
            result = lin.check_key(0, h, timeout=20)
            assert not result.ok and result.culprit == h[j], result.report()
