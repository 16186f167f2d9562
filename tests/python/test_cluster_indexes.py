"""Secondary indexes in a cluster against one node: the same random writes
(each with its own USING TIMESTAMP, so both end in the same state) go to a
single node and to a 3-node cluster (keywise cluster, own etcd) at RF=2,
where most index rows live on other nodes than their base rows; indexes
on a regular column, a clustering column, a static column, a set and a
map's keys and values, and materialized views (of the base key reordered;
keyed by a regular column; of some columns only) are created after part of
the data (backfill) and kept through the rest. Every index query, at random page sizes through the
driver, must return the same rows in the same order on both, at QUORUM
and at ALL; then node 3 is killed (kill -9), more writes go to the
cluster at ONE while it is down, it is started again, and after a repair
of the keyspace (hints replayed or not) every query must match again, at
ONE (several times, to read most replicas) and at ALL. (A node down with writes going on is in
src/cluster/index_cluster_test.cc, at RF=3.)

KEYWISE_DIFF_SEED sets the seed (default: random; printed).
"""

import os
import random
import time

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

import conftest
import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

SEED = int(os.environ.get("KEYWISE_DIFF_SEED") or random.randrange(1 << 31))

SCHEMA = ["CREATE TABLE {ks}.t (k int, c int, v int, s set<int>, "
          "m map<int, text>, st int static, PRIMARY KEY (k, c))",
          "CREATE TABLE {ks}.u (k int, c int, v int, s set<int>, "
          "PRIMARY KEY (k, c))"]
# Views (docs/views.md): the base key reordered with every column; keyed by
# a regular column (strict); the base key with one column of two (virtual
# cells). (A table with a static column cannot have SELECT * views: ks.u.)
VIEWS = ["CREATE MATERIALIZED VIEW {ks}.by_c AS SELECT * FROM {ks}.u WHERE "
         "k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
         "CREATE MATERIALIZED VIEW {ks}.by_v AS SELECT * FROM {ks}.u "
         "WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
         "PRIMARY KEY (v, k, c)",
         "CREATE MATERIALIZED VIEW {ks}.by_ck AS SELECT k, c, v FROM {ks}.u "
         "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY ((c, k))"]
INDEXES = VIEWS + ["CREATE INDEX ON {ks}.t (v)", "CREATE INDEX ON {ks}.t (c)",
           "CREATE INDEX ON {ks}.t (st)", "CREATE INDEX ON {ks}.t (s)",
           "CREATE INDEX ON {ks}.t (KEYS(m))",
           "CREATE INDEX m_values ON {ks}.t (VALUES(m))"]
WORDS = ["a", "b", "c"]


class Statements:
    """Random writes, each at a timestamp above the one before, some with
    a TTL."""

    def __init__(self, rng):
        self.rng = rng
        self.ts = 1_700_000_000_000_000

    def next(self):
        r = self.rng
        self.ts += r.randrange(1, 1000)
        k, c = r.randrange(25), r.randrange(4)
        at = "USING TIMESTAMP %d" % self.ts
        # Some writes expire, long after the test: their cells and view
        # rows carry TTLs (copied, not compared by TTL()).
        put = at + (" AND TTL 86400" if r.randrange(4) == 0 else "")
        where = "WHERE k = %d AND c = %d" % (k, c)
        kind = r.randrange(12)
        if kind == 10:
            return ("INSERT INTO {ks}.u (k, c, v, s) VALUES (%d, %d, %d, "
                    "{%d}) %s" % (k, c, r.randrange(6), r.randrange(5), put))
        if kind == 11:
            return r.choice([
                "UPDATE {ks}.u %s SET v = %d %s" % (put, r.randrange(6), where),
                "UPDATE {ks}.u %s SET s = s + {%d} %s" % (
                    put, r.randrange(5), where),
                "DELETE v FROM {ks}.u %s %s" % (at, where),
                "DELETE FROM {ks}.u %s %s" % (at, where),
                "DELETE FROM {ks}.u %s WHERE k = %d" % (at, k)])
        if kind < 3:
            return ("INSERT INTO {ks}.t (k, c, v, s, m) VALUES "
                    "(%d, %d, %d, {%d, %d}, {%d: '%s'}) %s" % (
                        k, c, r.randrange(6), r.randrange(5), r.randrange(5),
                        r.randrange(4), r.choice(WORDS), put))
        if kind == 3:
            return "UPDATE {ks}.t %s SET v = %d %s" % (put, r.randrange(6),
                                                      where)
        if kind == 4:
            return "UPDATE {ks}.t %s SET s = s %s {%d} %s" % (
                put, r.choice("+-"), r.randrange(5), where)
        if kind == 5:
            return "UPDATE {ks}.t %s SET m[%d] = '%s' %s" % (
                put, r.randrange(4), r.choice(WORDS), where)
        if kind == 6:
            return "UPDATE {ks}.t %s SET st = %d WHERE k = %d" % (
                put, r.randrange(4), k)
        if kind == 7:
            return "DELETE FROM {ks}.t %s %s" % (at, where)
        if kind == 8:
            return "DELETE v, m FROM {ks}.t %s %s" % (at, where)
        if r.randrange(2):
            return "DELETE FROM {ks}.t %s WHERE k = %d" % (at, k)
        return "DELETE FROM {ks}.t %s WHERE k = %d AND c > %d" % (at, k, c)


def queries():
    out = []
    for x in range(6):
        out.append("SELECT k, c, v FROM {ks}.t WHERE v = %d" % x)
    for x in range(4):
        out.append("SELECT k, c, v FROM {ks}.t WHERE c = %d" % x)
        out.append("SELECT k, c, st FROM {ks}.t WHERE st = %d" % x)
        out.append("SELECT k, c FROM {ks}.t WHERE m CONTAINS KEY %d" % x)
    for x in range(5):
        out.append("SELECT k, c, s FROM {ks}.t WHERE s CONTAINS %d" % x)
    for w in WORDS:
        out.append("SELECT k, c, m FROM {ks}.t WHERE m CONTAINS '%s'" % w)
    for x in range(4):
        out.append("SELECT c, k, v, s FROM {ks}.by_c WHERE c = %d" % x)
    for x in range(6):
        out.append("SELECT v, k, c, s FROM {ks}.by_v WHERE v = %d" % x)
    # Every row of the view: token order is the same on both.
    out.append("SELECT c, k, v FROM {ks}.by_ck")
    return out


def run(session, cql, page, cl):
    rows = session.execute(SimpleStatement(cql, fetch_size=page,
                                           consistency_level=cl), timeout=30)
    return [tuple(r) for r in rows]


def apply(single, cluster, statements, count,
          cl=ConsistencyLevel.QUORUM):
    for _ in range(count):
        cql = statements.next()
        single.execute(cql.replace("{ks}", "ks"))
        cluster.execute(SimpleStatement(
            cql.replace("{ks}", "ks"), consistency_level=cl), timeout=30)


def compare(single, cluster, rng, levels):
    mismatches = []
    for cql in queries():
        for cl in levels:
            page = rng.choice([1, 3, 10, 5000])
            want = run(single, cql.replace("{ks}", "ks"), 5000,
                       ConsistencyLevel.ONE)
            got = run(cluster, cql.replace("{ks}", "ks"), page, cl)
            if got != want:
                mismatches.append("%s (page %d, %s):\n  one node: %r\n"
                                  "  cluster:  %r" % (
                                      cql, page,
                                      ConsistencyLevel.value_to_name[cl],
                                      want, got))
    assert not mismatches, "seed %d (KEYWISE_DIFF_SEED): %d differ:\n%s" % (
        SEED, len(mismatches), "\n".join(mismatches[:8]))


def wait_built(session):
    def built():
        try:
            for cql in queries():
                run(session, cql.replace("{ks}", "ks"), 5000,
                    ConsistencyLevel.QUORUM)
            return True
        except Exception:  # "not yet available": still building
            return False
    local_cluster.wait_for(built, 60, "the indexes to be built")


def test_cluster_indexes_match_one_node():
    rng = random.Random(SEED)
    print("index differential seed %d: KEYWISE_DIFF_SEED=%d reproduces it" %
          (SEED, SEED))
    statements = Statements(rng)
    node = conftest.Node()
    cluster = local_cluster.LocalCluster(3, conf=[
        "coordinator_read_batch_rows=7", "initial_tablets=4"])
    single_driver = conftest.driver_cluster(node)
    driver = cluster.driver()
    try:
        single = single_driver.connect()
        session = driver.connect()
        single.execute("CREATE KEYSPACE ks WITH replication = "
                       "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        session.execute("CREATE KEYSPACE ks WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 2}")
        for s in (single, session):
            for cql in SCHEMA:
                s.execute(cql.replace("{ks}", "ks"))
        apply(single, session, statements, 250)
        for cql in INDEXES:
            single.execute(cql.replace("{ks}", "ks"), timeout=30)
            session.execute(cql.replace("{ks}", "ks"), timeout=30)
        wait_built(session)
        cluster.wait_view_updates_applied()
        compare(single, session, rng, [ConsistencyLevel.QUORUM])
        apply(single, session, statements, 250)
        cluster.wait_view_updates_applied()
        # Each node lists its own backlog, under its host id.
        local = cluster.driver(whitelist=["127.0.0.2"])
        try:
            one = local.connect()
            host = one.execute("SELECT host_id FROM system.local").one()[0]
            row = one.execute("SELECT * FROM system_views.view_backlog").one()
            assert row.host_id == str(host)
            assert row.limit_bytes == 10 << 20
            assert (row.updates_in_flight, row.bytes_in_flight) == (0, 0)
        finally:
            local.shutdown()
        compare(single, session, rng,
                [ConsistencyLevel.QUORUM, ConsistencyLevel.ALL])
        # A replica killed mid-run: writes at ONE meanwhile (their view
        # updates for node 3 hinted), then it returns and a repair settles
        # the base tables and the views.
        cluster.run("kill", "3")
        local_cluster.wait_for(
            lambda: "DN  127.0.0.3" in cluster.admin("status"), 30,
            "node 3 to be seen down")
        apply(single, session, statements, 150, ConsistencyLevel.ONE)
        cluster.run("start", "3")
        local_cluster.wait_for(
            lambda: "DN" not in cluster.admin("status"), 30,
            "node 3 to be seen up")
        cluster.admin("repair", "ks")
        cluster.wait_view_updates_applied()
        # At ONE, each query reads one replica of each range: repeated,
        # most replicas are read (a view row lost on the pair of node 3
        # would show).
        compare(single, session, rng, [ConsistencyLevel.ONE] * 4 +
                [ConsistencyLevel.ALL])
    finally:
        driver.shutdown()
        single_driver.shutdown()
        cluster.close()
        node.stop()
