"""`keywise admin repair | flush | compact` on a local cluster (nodes on
127.0.0.1-3, hinted handoff off so a node that was down really misses
writes): after node 3 missed 300 QUORUM writes, repair gives it every one
of them (read back at ONE through node 3 alone, which reads its own
storage); a repair with a node down reports the tablets it left out and
fails; flush and compact run on every node or one.
"""

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD


def present_on_node3(cluster, keys):
    """The keys node 3 answers at ONE from its own storage (RF=3: it is a
    replica of every partition, and a ONE read it can serve goes to no
    other node, so nothing is repaired on the way)."""
    driver = cluster.driver(whitelist=["127.0.0.3"],
                            consistency=ConsistencyLevel.ONE)
    try:
        session = driver.connect()
        select = session.prepare("SELECT v FROM rep.t WHERE k = ?")
        return {k for k in keys if session.execute(select, (k,)).one()}
    finally:
        driver.shutdown()


def test_repair_gives_a_node_the_writes_it_missed():
    cluster = local_cluster.LocalCluster(
        3, conf=["hinted_handoff_enabled=false"])
    driver = cluster.driver()
    try:
        session = driver.connect()
        session.execute(
            "CREATE KEYSPACE rep WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        session.execute("CREATE TABLE rep.t (k int PRIMARY KEY, v int)")
        insert = session.prepare("INSERT INTO rep.t (k, v) VALUES (?, ?)")
        insert.consistency_level = ConsistencyLevel.QUORUM
        for k in range(200):
            session.execute(insert, (k, k))

        cluster.run("kill", "3")
        missed = range(200, 500)
        for k in missed:
            session.execute(insert, (k, k))

        # With node 3 down, a repair leaves its tablets out and fails.
        local_cluster.wait_for(
            lambda: "DN  127.0.0.3" in cluster.admin("status"), 30,
            "node 3 to be seen down")
        try:
            cluster.admin("repair", "rep")
            raise AssertionError("repair with a node down succeeded")
        except RuntimeError as e:
            assert "Not repaired: rep.t tablet" in str(e), e
            assert "is down" in str(e), e

        cluster.run("start", "3")
        local_cluster.wait_for(
            lambda: "DN" not in cluster.admin("status"), 30,
            "node 3 to be seen up")
        before = present_on_node3(cluster, range(500))
        assert before.issuperset(range(200)), sorted(set(range(200)) - before)
        assert len(before & set(missed)) < 100, len(before & set(missed))

        out = cluster.admin("repair", "rep", "t")
        assert "Repaired 8 tablets of 1 tables" in out, out
        repaired = int(out.split(" partitions read, ")[1].split()[0])
        assert repaired >= len(missed) - len(before & set(missed)), out
        after = present_on_node3(cluster, range(500))
        assert after == set(range(500)), sorted(set(range(500)) - after)

        # Asking for what does not exist is an error naming it.
        try:
            cluster.admin("repair", "nope")
            raise AssertionError("repair of an unknown keyspace succeeded")
        except RuntimeError as e:
            assert "No replicated table in keyspace nope" in str(e), e

        out = cluster.admin("flush")
        for i in (1, 2, 3):
            assert "Flushing node 127.0.0.%d ... ok" % i in out, out
        out = cluster.admin("compact", "127.0.0.2")
        assert "Compacting node 127.0.0.2 ... ok" in out, out
        assert "127.0.0.1" not in out, out
        check = SimpleStatement("SELECT count(*) FROM rep.t",
                                consistency_level=ConsistencyLevel.ALL)
        assert session.execute(check).one()[0] == 500
    finally:
        driver.shutdown()
        cluster.close()
