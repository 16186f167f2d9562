"""Range placement and salting in a 3-node cluster (keywise cluster with
its own etcd, nodes on 127.0.0.1-3, RF 1, so each row lives on one node):
the cure for a monotonic key (docs/cql_extensions.md, "Placement").

The same stream of inserts with increasing timestamps goes to a
range-placed table and to one salted into 32 buckets. On the range-placed
table every write lands on the tablet holding the newest keys: one node
takes them all, the key heatmap shows one range, and `keywise advise`
reports hot-range. On the salted table the writes spread over the nodes
within 20% of even. Both read back in key order, by key and by key
range, through every coordinator.
"""

import subprocess
import time

from cassandra.concurrent import execute_concurrent_with_args

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

ROWS = 3000
BASE_MS = 1_800_000_000_000


def rows_per_node(session, table):
    """Node id -> how many of the table's rows its tablets hold, from
    system.tablets and each row's token (the table's own: token() follows
    its placement)."""
    tablets = sorted(
        (row.last_token, row.replicas) for row in session.execute(
            "SELECT last_token, replicas FROM system.tablets WHERE "
            "keyspace_name = 'pl' AND table_name = %s", (table,)))
    counts = {}
    for row in session.execute("SELECT token(ts) AS t FROM pl.%s" % table):
        replicas = next(r for last, r in tablets if row.t <= last)
        assert len(replicas) == 1  # RF 1
        counts[replicas[0]] = counts.get(replicas[0], 0) + 1
    return counts


def heatmap_writes(session, table):
    """range_start -> writes in the key heatmap (the whole cluster's)."""
    out = {}
    for row in session.execute(
            "SELECT range_start, writes FROM system_views.key_heatmap WHERE "
            "keyspace_name = 'pl' AND table_name = %s", (table,)):
        out[row.range_start] = out.get(row.range_start, 0) + row.writes
    return out


def test_a_salted_monotonic_stream_spreads_over_the_nodes():
    cluster = local_cluster.LocalCluster(3)
    driver = cluster.driver()
    try:
        session = driver.connect()
        session.execute("CREATE KEYSPACE pl WITH replication = {'class': "
                        "'SimpleStrategy', 'replication_factor': 1}")
        session.execute("CREATE TABLE pl.ranged (ts timestamp PRIMARY KEY, "
                        "v int) WITH placement = 'range'")
        session.execute("CREATE TABLE pl.salted (ts timestamp PRIMARY KEY, "
                        "v int) WITH placement = 'range' AND "
                        "salt_buckets = 32")
        stamps = [(BASE_MS + i, i) for i in range(ROWS)]
        for table in ("ranged", "salted"):
            insert = session.prepare(
                "INSERT INTO pl.%s (ts, v) VALUES (?, ?)" % table)
            results = execute_concurrent_with_args(
                session, insert, stamps, concurrency=32)
            assert all(ok for ok, _ in results)

        ranged = rows_per_node(session, "ranged")
        assert sum(ranged.values()) == ROWS
        assert max(ranged.values()) == ROWS, ranged  # one node has them all
        salted = rows_per_node(session, "salted")
        assert sum(salted.values()) == ROWS and len(salted) == 3, salted
        mean = ROWS / 3
        assert all(0.8 * mean <= n <= 1.2 * mean for n in salted.values()), \
            salted

        # The statistics show it: one heatmap range takes every write of
        # the range-placed table; the salted one's spread over the ring.
        # (Asked of one node, which publishes every 2 s.)
        one = cluster.driver(whitelist=["127.0.0.1"])
        try:
            stats = one.connect()
            deadline = time.time() + 15
            while time.time() < deadline and min(
                    sum(heatmap_writes(stats, t).values())
                    for t in ("ranged", "salted")) < ROWS:
                time.sleep(0.5)
            ranged_heat = heatmap_writes(stats, "ranged")
            heat = heatmap_writes(stats, "salted")
        finally:
            one.shutdown()
        assert max(ranged_heat.values()) == sum(ranged_heat.values()) == \
            ROWS, ranged_heat
        # Each of the 32 salt buckets is two of the heatmap's 64 ranges, and
        # a bucket's keys (times near now) sit in one of them.
        assert sum(heat.values()) == ROWS and len(heat) == 32, heat
        assert max(heat.values()) < 0.15 * ROWS, heat
        run = subprocess.run(
            [local_cluster.BINARY, "advise", "127.0.0.1", str(cluster.port),
             "--keyspace", "pl"], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        out = run.stdout
        assert "hot-range: 100% of the writes of pl.ranged (3000 of 3000) " \
            "went to one sixty-fourth of its token ring" in out, out
        assert "of the writes of pl.salted" not in out, out

        # The what-if report places today's rows as the table does: all
        # on one node; hashed, the same key spreads them.
        run = subprocess.run(
            [local_cluster.BINARY, "advise", "127.0.0.1", str(cluster.port),
             "--keyspace", "pl", "--table", "ranged", "--key", "ts"],
            capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        per_node = [line for line in run.stdout.splitlines()
                    if line.startswith("rows per node")][0]
        counts = [int(n.replace(",", "")) for n in per_node.split()[3:]]
        assert sorted(counts[:3]) == [0, 0, ROWS], run.stdout
        assert max(counts[3:]) < 0.5 * ROWS, run.stdout

        # Reads through every coordinator: by key, and key ranges in key
        # order (the salted one merging its buckets).
        for address in ("127.0.0.1", "127.0.0.2", "127.0.0.3"):
            node = cluster.driver(whitelist=[address])
            try:
                s = node.connect()
                for table in ("ranged", "salted"):
                    row = s.execute("SELECT v FROM pl.%s WHERE ts = %d" %
                                    (table, BASE_MS + 1234)).one()
                    assert row.v == 1234
                    got = [r.v for r in s.execute(
                        "SELECT v FROM pl.%s WHERE ts >= %d AND ts < %d" %
                        (table, BASE_MS + 100, BASE_MS + 2100))]
                    assert got == list(range(100, 2100)), table
                    got = [r.v for r in s.execute(
                        "SELECT v FROM pl.%s WHERE ts > %d LIMIT 5" %
                        (table, BASE_MS + 2990))]
                    assert got == list(range(2991, 2996)), table
            finally:
                node.shutdown()
    finally:
        driver.shutdown()
        cluster.close()
