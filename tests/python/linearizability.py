"""A linearizability checker for histories of compare-and-set registers
(test_cluster_linearizability.py uses it on Keywise's lightweight
transactions; its own tests are in that file).

The model is one register per key, whose state is None (the row is
absent) or an int:
  insert(v)        INSERT ... IF NOT EXISTS: applied iff the state is None
                   (it becomes v); otherwise not applied, returning the
                   current state.
  cas(expected, v) UPDATE ... SET v = v IF v = expected: applied iff the
                   state equals expected (it becomes v); otherwise not
                   applied, returning the current state (None when the row
                   is absent: Cassandra then returns [applied] alone).
  read()           SELECT at SERIAL: returns the state.

An operation is recorded with its invocation and completion times (one
clock, time.monotonic()) and either an outcome ("ok" with its result) or
"unknown" (a timeout or an error: a write may or may not have taken effect,
at any time after its invocation; an unknown read is dropped, it
constrains nothing).

The search is Wing & Gong's, with Lowe's memoization, as Porcupine runs it
(Lowe, "Testing for linearizability", 2017; Horn and Kroening, "Faster
linearizability checking via P-compositionality", 2015): the calls and
returns of a key's operations in time order form a linked list; the search
walks it from the front, linearizing a call whose operation the model
accepts in the current state (removing its call and return from the list),
and backtracks when it meets a return whose operation is not linearized
yet (that operation should have taken effect before it returned). A
configuration (the set of linearized operations as a bit mask, the state)
seen before is not explored again. Keys are independent registers, so
each key's sub-history is checked alone (P-compositionality).

An unknown write has an infinite completion time: its return sits after
every known one, so it never forces a backtrack, and the search succeeds
once every known operation is linearized; an unknown write still in the
list then never took effect (or took effect after everything observed).
Linearizing an unknown write where it would not change the state is
skipped: leaving it out dominates it.

A key without a linearization is explained by its first violation in
time (check_key): the operation whose result contradicts everything that
completed before it, the state the deepest partial linearization of that
part of the history reached, the last operations of that linearization
and the operations pending at that point.
"""

import collections
import math
import time

INSERT, CAS, READ = "insert", "cas", "read"
OK, UNKNOWN = "ok", "unknown"


class Op(collections.namedtuple(
        "Op", "process kind key args invoke complete outcome result")):
    """One operation of the history.

    kind: INSERT (args (value,)), CAS (args (expected, new)) or READ
    (args ()); invoke, complete: time.monotonic() around the request
    (complete is ignored for an unknown outcome); outcome: OK or UNKNOWN;
    result for OK: (applied, current) for INSERT and CAS (current is the
    value returned when not applied, None when applied or when the row is
    absent), the value read (None: absent) for READ."""

    def describe(self):
        if self.kind == INSERT:
            call = "insert-if-absent(%s)" % self.args[0]
        elif self.kind == CAS:
            call = "cas(%s -> %s)" % self.args
        else:
            call = "read()"
        if self.outcome == UNKNOWN:
            answer = "unknown"
        elif self.kind == READ:
            answer = "-> %s" % (self.result,)
        elif self.result[0]:
            answer = "-> applied"
        else:
            answer = "-> not applied, current %s" % (self.result[1],)
        end = ("%.4f" % self.complete if self.outcome == OK else "inf")
        return "p%s key %s [%.4f, %s] %s %s" % (
            self.process, self.key, self.invoke, end, call, answer)


def step(state, op):
    """(the model accepts op's recorded result in `state`, next state).
    An unknown operation is accepted with whatever result it would have."""
    if op.kind == READ:
        return op.result == state, state
    if op.kind == INSERT:
        applies = state is None
        new = op.args[0] if applies else state
    else:
        expected, value = op.args
        applies = state is not None and state == expected
        new = value if applies else state
    if op.outcome == UNKNOWN:
        return True, new
    applied, current = op.result
    if applied:
        return applies, new
    return (not applies) and current == state, new


class CheckerTimeout(Exception):
    """The search did not finish in its time budget: no verdict."""


class Result:
    """The verdict for one key: ok, and when not, an explanation: the
    operation that could not be linearized in the deepest partial
    linearization found, the state there, the linearized operations that
    led to it (with the state after each) and the operations concurrent
    with the culprit that were not linearized yet."""

    def __init__(self, key, ok, ops, explored, culprit=None, state=None,
                 prefix=(), pending=()):
        self.key, self.ok, self.ops, self.explored = key, ok, ops, explored
        self.culprit, self.state = culprit, state
        self.prefix, self.pending = list(prefix), list(pending)
        self.cut_at = None  # the time of the first violation (check_key)

    def involved(self, tail=8):
        """The operations that explain the failure: the last `tail`
        linearized ones before the culprit, the culprit, and the
        operations concurrent with it."""
        if self.ok:
            return []
        ops = [op for op, _ in self.prefix[-tail:]]
        ops.append(self.culprit)
        ops.extend(op for op in self.pending if op is not self.culprit)
        return ops

    def report(self, tail=8):
        if self.ok:
            return "key %s: linearizable (%d operations)" % (self.key,
                                                             len(self.ops))
        lines = ["key %s: NOT linearizable (%d operations)" % (
            self.key, len(self.ops))]
        if self.cut_at is not None:
            lines.append("  the history up to %.4f (the operations invoked "
                         "by then, those still running as unknown) has none "
                         "already; later ones are not shown." % self.cut_at)
        lines.append("  deepest partial linearization: %d operations; its "
                     "last ones (state after each):" % len(self.prefix))
        if len(self.prefix) > tail:
            lines.append("    ...")
        for op, after in self.prefix[-tail:]:
            lines.append("    %s   => %s" % (op.describe(), after))
        lines.append("  in state %s, this operation cannot take effect "
                     "before it returned:" % (self.state,))
        lines.append("    " + self.culprit.describe())
        others = [op for op in self.pending if op is not self.culprit]
        if others:
            lines.append("  pending with it (invoked, not linearized at "
                         "that point):")
            for op in others:
                lines.append("    " + op.describe())
        return "\n".join(lines)


class _Entry:
    __slots__ = ("op", "id", "is_call", "time", "match", "prev", "next")

    def __init__(self, op, id_, is_call, when):
        self.op, self.id, self.is_call, self.time = op, id_, is_call, when
        self.match = self.prev = self.next = None


def check_key(key, ops, timeout=60.0):
    """The verdict (a Result) for the operations of one key. Unknown reads
    are dropped. Raises CheckerTimeout after `timeout` seconds.

    When there is no linearization, the explanation is that of the first
    violation in time: the history cut at the earliest completion time T
    at which it already has none (operations invoked by T; those still
    running at T count as unknown, reads among them are dropped). A
    history with a linearization keeps one when cut (its operations
    pending at T may or may not have taken effect), so the cut histories
    go from linearizable to not once, and a binary search over the
    completion times finds T; the operation that completed at T is the
    culprit: its result contradicts everything before it."""
    deadline = time.monotonic() + timeout
    result = _search(key, ops, deadline)
    if result.ok:
        return result
    times = sorted({op.complete for op in ops if op.outcome == OK})
    low, high = 0, len(times) - 1   # the cut at times[high] fails
    first = result
    while low < high:
        middle = (low + high) // 2
        cut = _search(key, truncate(ops, times[middle]), deadline)
        if cut.ok:
            low = middle + 1
        else:
            high, first = middle, cut
    # Shown as they were recorded (not as the cut made them).
    original = {}
    for op in ops:
        original.setdefault(op._replace(outcome=UNKNOWN, complete=math.inf),
                            op)
    back = lambda op: original.get(op, op)  # noqa: E731
    first.culprit = back(first.culprit)
    first.prefix = [(back(op), after) for op, after in first.prefix]
    first.pending = [back(op) for op in first.pending]
    first.ops, first.cut_at = result.ops, times[high]
    return first


def truncate(ops, at):
    """The history as it stood at time `at`: operations invoked by then,
    those not completed by then unknown (reads among them dropped)."""
    cut = []
    for op in ops:
        if op.invoke > at:
            continue
        if op.outcome == OK and op.complete > at:
            if op.kind == READ:
                continue
            op = op._replace(outcome=UNKNOWN, complete=math.inf)
        cut.append(op)
    return cut


def _search(key, ops, deadline):
    ops = [op for op in ops
           if not (op.kind == READ and op.outcome == UNKNOWN)]
    entries = []
    for i, op in enumerate(ops):
        call = _Entry(op, i, True, op.invoke)
        ret = _Entry(op, i, False,
                     op.complete if op.outcome == OK else math.inf)
        call.match, ret.match = ret, call
        entries.extend((call, ret))
    # Time order; at equal times calls first (the operations overlap).
    entries.sort(key=lambda e: (e.time, not e.is_call))
    head = _Entry(None, -1, False, -math.inf)
    prev = head
    for e in entries:
        prev.next, e.prev = e, prev
        prev = e

    def lift(call):
        call.prev.next = call.next
        call.next.prev = call.prev
        ret = call.match
        ret.prev.next = ret.next
        if ret.next is not None:
            ret.next.prev = ret.prev

    def unlift(call):
        ret = call.match
        ret.prev.next = ret
        if ret.next is not None:
            ret.next.prev = ret
        call.prev.next = call
        call.next.prev = call

    known_left = sum(op.outcome == OK for op in ops)
    state = None
    linearized = 0
    cache = set()
    stack = []  # (call entry, state before it)
    known_total = known_left
    best = None  # (depth, culprit, state, prefix, pending)
    explored = 0
    entry = head.next
    while known_left > 0:
        explored += 1
        if explored % 4096 == 0 and time.monotonic() > deadline:
            raise CheckerTimeout(
                "key %s: no verdict in time (%d operations, %d "
                "configurations explored)" % (key, len(ops), explored))
        if entry.is_call:
            op = entry.op
            accepted, new = step(state, op)
            if accepted and not (op.outcome == UNKNOWN and new == state):
                mask = linearized | (1 << entry.id)
                if (mask, new) not in cache:
                    cache.add((mask, new))
                    stack.append((entry, state))
                    state, linearized = new, mask
                    if op.outcome == OK:
                        known_left -= 1
                    lift(entry)
                    entry = head.next
                    continue
            entry = entry.next
            continue
        # A return whose operation is not linearized: backtrack. The
        # deepest point (most known operations linearized) explains.
        depth = known_total - known_left
        if best is None or depth > best[0]:
            pending = []
            e = head.next
            while e is not entry:
                if e.is_call:
                    pending.append(e.op)
                e = e.next
            best = (depth, entry.op, state, stack[:], pending)
        if not stack:
            _, culprit, bad_state, path, pending = best
            prefix = [(call.op, step(before, call.op)[1])
                      for call, before in path]
            return Result(key, False, ops, explored, culprit, bad_state,
                          prefix, pending)
        call, state = stack.pop()
        linearized &= ~(1 << call.id)
        if call.op.outcome == OK:
            known_left += 1
        unlift(call)
        entry = call.next
    return Result(key, True, ops, explored)


def check(history, timeout=60.0):
    """{key: Result} for a history (a list of Op) of any keys; `timeout`
    bounds the whole check (CheckerTimeout)."""
    by_key = collections.defaultdict(list)
    for op in history:
        by_key[op.key].append(op)
    deadline = time.monotonic() + timeout
    results = {}
    for key in sorted(by_key, key=repr):
        results[key] = check_key(key, by_key[key],
                                 max(0.0, deadline - time.monotonic()))
    return results


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
