"""Every string the server sends is valid UTF-8, whatever the statement.

Random non-ASCII characters are inserted into valid statements (keywords,
identifiers, quoted names, string literals) and the statements run through
the DataStax Python driver on one connection. The driver decodes every
[string] strictly; an ERROR message cut inside a UTF-8 sequence makes it
mark the whole connection defunct and fail every request in flight. So:
every request must end in a result or a server error, never in a driver
connection error, the connection must stay the same one, and the node must
still answer afterwards.

Query strings that are not UTF-8 at all are answered as Cassandra 4 answers
them (CBUtil.readString): a ProtocolError "Cannot decode string as UTF8"
on the request's stream, connection kept. The Python driver itself closes
a connection on any ProtocolError, so those go through the raw wire client
(which decodes with the driver's codecs).

KEYWISE_UTF8_FUZZ=N runs N driver statements instead of the default 3000;
KEYWISE_UTF8_FUZZ_SEED picks another seed.
"""

import os
import random
import time

import pytest
from cassandra import (ConsistencyLevel, RequestExecutionException,
                       RequestValidationException)
from cassandra.connection import Connection
from cassandra.policies import ConstantReconnectionPolicy
from cassandra.protocol import (ErrorMessage, PrepareMessage, QueryMessage,
                                ResultMessage)

from conftest import create_keyspace, driver_cluster
from wire import connect

COUNT = int(os.environ.get("KEYWISE_UTF8_FUZZ", "3000"))
SEED = int(os.environ.get("KEYWISE_UTF8_FUZZ_SEED", "20240611"))
IN_FLIGHT = int(os.environ.get("KEYWISE_UTF8_FUZZ_IN_FLIGHT", "32"))

SEEDS = [
    "INSERT INTO fz.t (k, v) VALUES (1, 'abc')",
    "INSERT INTO fz.t (k, v) VALUES (2, 'x') USING TTL 100",
    "SELECT k, v FROM fz.t WHERE k = 1",
    "SELECT * FROM fz.t WHERE k IN (1, 2, 3) LIMIT 10",
    "SELECT \"Ünï\", k FROM fz.u WHERE k = 1",
    "UPDATE fz.t SET v = 'zz' WHERE k = 3",
    "UPDATE fz.u SET \"Ünï\" = 'ü' WHERE k = 3",
    "DELETE v FROM fz.t WHERE k = 4",
    "SELECT count(*) FROM fz.t WHERE v = 'abc' ALLOW FILTERING",
    "BEGIN BATCH INSERT INTO fz.t (k, v) VALUES (5, 'b'); "
    "UPDATE fz.t SET v = 'c' WHERE k = 6; APPLY BATCH",
    "SELECT token(k), writetime(v) FROM fz.t WHERE k = 1",
    "INSERT INTO fz.t (k, v) VALUES (7, $$dollar$$)",
    "SELECT k FROM fz.t WHERE k = 1 -- comment\n",
    "SELECT k /* block */ FROM fz.t WHERE k = 1",
]

# Characters of every UTF-8 length, and some that matter to parsers.
CHARS = ("é×ÿ\u00a0\u0100ßΩж\u05d0\u0627\u0301\u200b\u2028\u2029\u20ac"
         "\u4e2d\u6587\ufeff\ufffd\uffff\U0001f600\U0001d11e\U00010000"
         "\U0010ffff\x00\x7f")


def random_text(rng, n):
    return "".join(rng.choice(CHARS) for _ in range(n))


def mutate(rng, statement):
    """One random mutation that keeps the text valid Unicode."""
    mutated = mutate_once(rng, statement)
    if mutated == statement:  # the seed had nothing the mutation targets
        pos = rng.randrange(len(statement) + 1)
        mutated = statement[:pos] + random_text(rng, 1) + statement[pos:]
    return mutated


def mutate_once(rng, statement):
    op = rng.randrange(6)
    pos = rng.randrange(len(statement) + 1)
    if op == 0:  # insert characters anywhere
        return statement[:pos] + random_text(rng, rng.randint(1, 3)) + statement[pos:]
    if op == 1:  # replace one character
        pos = min(pos, len(statement) - 1)
        return statement[:pos] + random_text(rng, 1) + statement[pos + 1:]
    if op == 2:  # non-ASCII string literal content
        return statement.replace("'abc'", "'%s'" % random_text(rng, rng.randint(1, 8)))
    if op == 3:  # a quoted identifier with non-ASCII characters
        name = random_text(rng, rng.randint(1, 4)).replace('"', "")
        return statement.replace("fz.t", 'fz."%s"' % name, 1).replace(
            " v ", ' "%s" ' % name, 1)
    if op == 4:  # an unquoted identifier with non-ASCII characters
        return statement.replace("fz.t", "fz.t" + random_text(rng, 1), 1)
    # cut the statement after a non-ASCII character
    return statement[:pos] + random_text(rng, 1)


def mutate_bytes(rng, statement):
    """Valid statement bytes with an ill-formed UTF-8 sequence inserted."""
    bad = rng.choice([b"\x80", b"\xbf", b"\xc3", b"\xd7", b"\xe2\x82",
                      b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\xc0\xaf",
                      b"\xe0\x80\xaf", b"\xf4\x90\x80\x80", b"\xf8", b"\xff",
                      b"\xfe\xff"])
    data = statement.encode()
    pos = rng.randrange(len(data) + 1)
    return data[:pos] + bad + data[pos:]


@pytest.fixture(scope="module")
def fz(session):
    create_keyspace(session, "fz")
    session.execute("CREATE TABLE IF NOT EXISTS fz.t (k int PRIMARY KEY, v text)")
    session.execute('CREATE TABLE IF NOT EXISTS fz.u (k int PRIMARY KEY, "Ünï" text)')
    return "fz"


def pool_connections_of(session):
    """The data connections of the session's pools (v3+: one per host)."""
    connections = []
    for pool in session.get_pools():
        single = getattr(pool, "_connection", None)
        connections.extend([single] if single else getattr(pool, "_connections", []))
    return connections


def wait_for_pool(session, timeout=10):
    """Returns once the session runs a query again (a failed borrow is what
    makes the driver notice a dead connection and reconnect)."""
    deadline = time.time() + timeout
    while True:
        try:
            session.execute("SELECT k FROM fz.t WHERE k = 1")
            return
        except Exception:  # noqa: BLE001 - any failure: try again
            assert time.time() < deadline, "the driver did not reconnect"
            time.sleep(0.02)


def is_server_error(exc):
    return isinstance(exc, (ErrorMessage, RequestExecutionException,
                            RequestValidationException))


def test_random_non_ascii_statements_keep_the_connection(node, fz, monkeypatch):
    defuncts = []
    original = Connection.defunct

    def counting_defunct(self, exc):
        if not (self.is_defunct or self.is_closed):
            defuncts.append(repr(exc)[:200])
        return original(self, exc)

    monkeypatch.setattr(Connection, "defunct", counting_defunct)
    cluster = driver_cluster(node, reconnection_policy=ConstantReconnectionPolicy(0.1))
    try:
        session = cluster.connect()
        pool_connections = pool_connections_of(session)
        rng = random.Random(SEED)
        outcomes = {"result": 0, "server_error": 0}
        connection_errors = []
        pending = []
        deadline = time.time() + max(60, COUNT / 50)

        def settle(future, statement):
            try:
                future.result()
                outcomes["result"] += 1
            except Exception as exc:  # noqa: BLE001 - classify every outcome
                if is_server_error(exc):
                    outcomes["server_error"] += 1
                else:
                    connection_errors.append((statement, repr(exc)[:200]))

        broken = 0
        for _ in range(COUNT):
            statement = mutate(rng, rng.choice(SEEDS))
            pending.append((session.execute_async(statement), statement))
            if len(pending) >= IN_FLIGHT:
                settle(*pending.pop(0))
            if len(defuncts) > broken:
                # Count each break once: let the in-flight requests fail
                # and the driver reconnect before going on.
                for future, pending_statement in pending:
                    settle(future, pending_statement)
                pending.clear()
                broken = len(defuncts)
                wait_for_pool(session)
            elif not defuncts:
                assert time.time() < deadline, "fuzz run too slow"
        for future, statement in pending:
            settle(future, statement)

        summary = (f"{COUNT} statements (seed {SEED}): {outcomes['result']} results, "
                   f"{outcomes['server_error']} server errors, "
                   f"{len(connection_errors)} failed with a connection error, "
                   f"{len(defuncts)} broke the connection (defunct)")
        print(summary)
        assert not defuncts, summary + "\nfirst: " + defuncts[0]
        assert not connection_errors, summary + "\nfirst: %r" % (connection_errors[0],)
        assert outcomes["server_error"] > 0 and outcomes["result"] > 0, summary
        still = pool_connections_of(session)
        assert still == pool_connections, "the pool's connection was replaced"
        assert session.execute("SELECT k FROM fz.t WHERE k = 1") is not None
    finally:
        cluster.shutdown()

    # The node still answers a fresh client.
    fresh = driver_cluster(node)
    try:
        row = fresh.connect().execute("SELECT release_version FROM system.local").one()
        assert row.release_version
    finally:
        fresh.shutdown()
    assert node.alive()


def error_of(frame, client):
    message = client.decode(frame)  # strict UTF-8, as the driver decodes
    assert isinstance(message, ErrorMessage), message
    return message


@pytest.mark.parametrize("version", [4, 5])
def test_query_strings_that_are_not_utf8_get_a_protocol_error(node, fz, version):
    rng = random.Random(SEED + version)
    client = connect(node.port, version)
    try:
        for i in range(max(200, COUNT // 10)):
            data = mutate_bytes(rng, rng.choice(SEEDS))
            # Two requests in flight: the bad one, then a good one.
            if i % 2:
                bad = client.send(PrepareMessage(data))
            else:
                bad = client.send(QueryMessage(data, ConsistencyLevel.ONE))
            good = client.send(QueryMessage("SELECT k FROM fz.t WHERE k = 1",
                                            ConsistencyLevel.ONE))
            frames = {f.stream: f for f in (client.read_frame(), client.read_frame())}
            assert sorted(frames) == sorted((bad, good))
            error = error_of(frames[bad], client)
            assert error.code == 0x000A, (data, error)
            assert error.message.startswith("Cannot decode string as UTF8: '"), error
            assert "MalformedInputException: Input length = " in error.message
            assert isinstance(client.decode(frames[good]), ResultMessage)
    finally:
        client.close()
    assert node.alive()


def test_not_utf8_error_text_is_cassandras(node, fz):
    client = connect(node.port, 4)
    try:
        stream = client.send(QueryMessage(b"SELECT \xe2\x82 k", ConsistencyLevel.ONE))
        frame = client.read_frame()
        assert frame.stream == stream
        error = error_of(frame, client)
        # The hex starts at the first ill-formed byte, as Java's decoder
        # leaves the buffer there.
        assert error.message == (
            "Cannot decode string as UTF8: 'e282206b'; "
            "java.nio.charset.MalformedInputException: Input length = 2")
    finally:
        client.close()


def test_lexer_error_quotes_the_whole_character(session, fz):
    from cassandra.protocol import SyntaxException
    with pytest.raises(SyntaxException) as e:
        session.execute("SELECT k FROM fz.t WHERE k = 1 ×")
    assert "line 1:31 no viable alternative at character '×'" in str(e.value)
    # Columns count UTF-16 code units, as Java's String does.
    with pytest.raises(SyntaxException) as e:
        session.execute("SELECT k FROM fz.t WHERE v = 'é\U0001f600' ×")
    assert "line 1:35 no viable alternative at character '×'" in str(e.value)
