"""Multi-partition reads on a 3-node cluster (keywise cluster with its own
etcd, nodes on 127.0.0.1-3) through the Python driver, with the default
coordinator batches of 1000 rows: issue 18's table of 400 partitions of 50
rows, where a batch ending exactly at a partition's end used to drop the
next partition, and a long partition with a static column, whose rows
after a batch boundary used to lose the static value.
"""

from cassandra import ConsistencyLevel
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.query import BatchStatement, BatchType, SimpleStatement

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD


def load_wide(session, keyspace, rf):
    session.execute(
        "CREATE KEYSPACE %s WITH replication = "
        "{'class': 'SimpleStrategy', 'replication_factor': %d}" %
        (keyspace, rf))
    session.execute(
        "CREATE TABLE %s.t (w int, b int, seq int, v text, "
        "PRIMARY KEY ((w, b), seq))" % keyspace)
    insert = session.prepare(
        "INSERT INTO %s.t (w, b, seq, v) VALUES (?, ?, ?, ?)" % keyspace)
    insert.consistency_level = ConsistencyLevel.ALL
    batches = []
    for w in range(20):
        for b in range(20):
            batch = BatchStatement(batch_type=BatchType.UNLOGGED,
                                   consistency_level=ConsistencyLevel.ALL)
            for seq in range(50):
                batch.add(insert, (w, b, seq, "x" * 20))
            batches.append(batch)
    futures = [session.execute_async(b) for b in batches]
    for f in futures:
        f.result()


def count_rows(session, cql, fetch_size, cl=ConsistencyLevel.QUORUM):
    statement = SimpleStatement(cql, fetch_size=fetch_size,
                                consistency_level=cl)
    return sum(1 for _ in session.execute(statement))


def scalar(session, cql, cl=ConsistencyLevel.QUORUM):
    return session.execute(SimpleStatement(cql, consistency_level=cl)).one()[0]


def test_issue_18_table_reads_every_partition():
    cluster = local_cluster.LocalCluster(3)
    driver = cluster.driver()
    try:
        session = driver.connect()
        for keyspace, rf in (("wide1", 1), ("wide3", 3)):
            load_wide(session, keyspace, rf)
            t = keyspace + ".t"
            got = {
                "fetch 5000": count_rows(session, "SELECT w, seq FROM " + t,
                                         5000),
                "fetch 1000": count_rows(session, "SELECT w, seq FROM " + t,
                                         1000),
                "fetch 100": count_rows(session, "SELECT w, seq FROM " + t,
                                        100),
                "filtered": count_rows(
                    session, "SELECT w, seq FROM %s WHERE seq > 10 "
                    "ALLOW FILTERING" % t, 5000),
                "count": scalar(session, "SELECT count(*) FROM " + t),
                "distinct": count_rows(session,
                                       "SELECT DISTINCT w, b FROM " + t, 5000),
            }
            expected = {"fetch 5000": 20000, "fetch 1000": 20000,
                        "fetch 100": 20000, "filtered": 400 * 39,
                        "count": 20000, "distinct": 400}
            assert got == expected, keyspace
            # At every level, a full scan sees every partition whole.
            for cl in (ConsistencyLevel.ONE, ConsistencyLevel.ALL):
                assert count_rows(session, "SELECT w FROM " + t, 5000,
                                  cl) == 20000
    finally:
        driver.shutdown()
        cluster.close()


def test_static_values_survive_batch_boundaries():
    cluster = local_cluster.LocalCluster(3)
    driver = cluster.driver()
    try:
        session = driver.connect()
        session.execute(
            "CREATE KEYSPACE st WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        session.execute("CREATE TABLE st.t (p int, c int, s int STATIC, "
                        "v int, PRIMARY KEY (p, c))")
        insert = session.prepare(
            "INSERT INTO st.t (p, c, v) VALUES (?, ?, ?)")
        insert.consistency_level = ConsistencyLevel.ALL
        # Partitions of 2,500 rows: each spans three coordinator batches.
        rows = [(p, c, c) for p in range(4) for c in range(2500)]
        execute_concurrent_with_args(session, insert, rows, concurrency=64)
        for p in range(4):
            session.execute(SimpleStatement(
                "UPDATE st.t SET s = %d WHERE p = %d" % (p + 10, p),
                consistency_level=ConsistencyLevel.ALL))
        for fetch_size in (999, 5000):
            statement = SimpleStatement("SELECT p, c, s FROM st.t",
                                        fetch_size=fetch_size,
                                        consistency_level=ConsistencyLevel.QUORUM)
            seen = 0
            for row in session.execute(statement):
                assert row.s == row.p + 10, (fetch_size, row)
                seen += 1
            assert seen == 10000
    finally:
        driver.shutdown()
        cluster.close()
