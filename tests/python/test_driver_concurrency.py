"""Many requests in flight through the Python driver (execute_async,
execute_concurrent), and lz4 / snappy compression on protocol v4 and v5."""

import pytest
from cassandra.concurrent import execute_concurrent, execute_concurrent_with_args
from cassandra.query import BatchStatement, SimpleStatement

from conftest import create_keyspace, driver_cluster

N = 1500


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, "cc")
    session.execute("CREATE TABLE IF NOT EXISTS cc.kv (k int, c int, v text, "
                    "PRIMARY KEY (k, c))")
    return "cc"


def test_many_concurrent_execute_async(session, ks):
    insert = session.prepare("INSERT INTO cc.kv (k, c, v) VALUES (?, ?, ?)")
    futures = [session.execute_async(insert, (i % 50, i, "v%d" % i)) for i in range(N)]
    for f in futures:
        f.result()  # raises on any error
    # All the reads in flight at once too; each answer is its own.
    select = session.prepare("SELECT v FROM cc.kv WHERE k = ? AND c = ?")
    futures = [(i, session.execute_async(select, (i % 50, i))) for i in range(N)]
    for i, f in futures:
        assert f.result().one().v == "v%d" % i
    # Simple statements (and multi-row answers) in flight together.
    futures = [session.execute_async("SELECT c FROM cc.kv WHERE k = %s", (k,))
               for k in range(50) for _ in range(20)]
    for n, f in enumerate(futures):
        k = n // 20
        assert [r.c for r in f.result()] == list(range(k, N, 50))


def test_execute_concurrent_mixed_statements(session, ks):
    insert = session.prepare("INSERT INTO cc.kv (k, c, v) VALUES (?, ?, ?)")
    args = [(1000 + i % 10, i, "w%d" % i) for i in range(1000)]
    results = execute_concurrent_with_args(session, insert, args, concurrency=200,
                                           raise_on_first_error=False)
    assert all(ok for ok, _ in results)
    statements = []
    for k in range(1000, 1010):
        statements.append((SimpleStatement("SELECT count(*) FROM cc.kv WHERE k = %s"), (k,)))
        batch = BatchStatement()
        batch.add(insert, (k + 100, -1, "batched"))
        statements.append((batch, ()))
        statements.append(("SELECT nope FROM cc.kv", ()))
    results = execute_concurrent(session, statements, concurrency=30,
                                 raise_on_first_error=False)
    for n, (ok, value) in enumerate(results):
        if n % 3 == 0:
            assert ok and value.one()[0] == 100
        elif n % 3 == 1:
            assert ok
        else:
            assert not ok and "Undefined column name nope" in str(value)


def connection_of(cluster):
    return cluster.control_connection._connection


@pytest.mark.parametrize("compression,version", [
    ("lz4", 4), ("lz4", 5), ("snappy", 4), ("lz4", 3), ("snappy", 3)])
def test_compression(node, compression, version):
    c = driver_cluster(node, compression=compression, protocol_version=version)
    try:
        s = c.connect()
        conn = connection_of(c)
        assert conn._compression_type == compression
        assert conn.compressor is not None and conn.decompressor is not None
        if version >= 5:
            assert conn._is_checksumming_enabled
        create_keyspace(s, "cc")
        table = "cc.z_%s_%d" % (compression, version)
        s.execute("CREATE TABLE IF NOT EXISTS %s (k int PRIMARY KEY, v text, b blob)"
                  % table)
        insert = s.prepare("INSERT INTO %s (k, v, b) VALUES (?, ?, ?)" % table)
        # Small frames (often left uncompressed), big compressible frames and
        # frames larger than one v5 segment (128 KiB).
        values = {i: ("x" * (i * 997)) for i in range(0, 300, 7)}
        big = bytes(range(256)) * 1200  # 300 KiB
        futures = [s.execute_async(insert, (i, v, big if i % 2 else b"")) for i, v in values.items()]
        for f in futures:
            f.result()
        rows = {r.k: (r.v, r.b) for r in s.execute("SELECT k, v, b FROM %s" % table)}
        assert {k: v for k, (v, _) in rows.items()} == values
        assert all(b == (big if k % 2 else b"") for k, (_, b) in rows.items())
        # Paged reads with compression.
        stmt = SimpleStatement("SELECT k FROM %s" % table, fetch_size=5)
        assert sorted(r.k for r in s.execute(stmt)) == sorted(values)
    finally:
        c.shutdown()


def test_snappy_with_v5_falls_back_to_no_compression(node):
    # The driver drops snappy on v5 (only lz4 exists in the v5 framing).
    c = driver_cluster(node, compression="snappy", protocol_version=5)
    try:
        s = c.connect()
        assert connection_of(c)._compression_type is None
        assert s.execute("SELECT key FROM system.local").one().key == "local"
    finally:
        c.shutdown()
