"""Tablets splitting by size and by load in a running cluster (keywise
cluster with its own etcd, nodes on 127.0.0.1-3, small thresholds set with
--conf): QUORUM writes from the Python driver go on while tablets split
and the balancer spreads the parts, and every acknowledged write reads
back at ALL; a partition taking every request is isolated in a tablet of
its own and reported.
"""

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

import local_cluster
import metrics_util

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

FAST = ["tablet_load_report_interval_in_ms=300",
        "tablet_balancer_interval_in_ms=100", "initial_tablets=2"]


def read_all(session, table):
    check = SimpleStatement("SELECT k, v FROM " + table,
                            consistency_level=ConsistencyLevel.ALL,
                            fetch_size=1000)
    return {r.k: r.v for r in session.execute(check)}


def test_size_splits_under_quorum_writes_lose_nothing():
    metrics_port = local_cluster.free_port_on(
        ["127.0.0.%d" % i for i in (1, 2, 3)])
    cluster = local_cluster.LocalCluster(
        3, conf=FAST + ["tablet_split_size_in_kb=64",
                        "tablet_split_requests_per_second=0",
                        "metrics_port=%d" % metrics_port])
    driver = cluster.driver()
    try:
        session = driver.connect()
        insert = local_cluster.kv_table(session, "sized", 2)
        assert len(local_cluster.tablet_rows(cluster.admin("tablets"), "sized.t")) == 2
        writer = local_cluster.Writer(session, insert)
        try:
            local_cluster.wait_for(
                lambda: len(local_cluster.tablet_rows(cluster.admin("tablets"),
                                        "sized.t")) >= 8,
                90, "the table to split into 8 tablets or more")
        finally:
            writer.finish()
        listing = cluster.admin("tablets")
        rows = local_cluster.tablet_rows(listing, "sized.t")
        # The tablets cover the ring, in order, with no gap.
        assert rows[0][0] == -2**63 and rows[-1][1] == 2**63 - 1, listing
        for left, right in zip(rows, rows[1:]):
            assert right[0] == left[1] + 1, listing
        # The balancer spread the parts: every node holds some.
        held = local_cluster.tablets_held(cluster.run("status"))
        assert all(held.get("127.0.0.%d" % i, 0) > 0 for i in (1, 2, 3)), held
        # /metrics: the leaders' rounds split and moved, every node reports
        # the tablets it replicates and the requests it coordinated.
        scrapes = [metrics_util.scrape("http://127.0.0.%d:%d/metrics" %
                                       (i, metrics_port)) for i in (1, 2, 3)]
        splits = sum(metrics_util.value(s, "keywise_balancer_actions_total",
                                        action="split") for s in scrapes)
        assert splits >= 3, splits
        assert sum(metrics_util.value(s, "keywise_balancer_actions_total",
                                      action="moved") for s in scrapes) >= 1
        for s in scrapes:
            assert metrics_util.total(s, "keywise_tablet_bytes",
                                      keyspace="sized", table="t") > 0
        # (The writes are over: the last window may have none.)
        assert [k for s in scrapes for k in s
                if k[0] == "keywise_tablet_requests_per_second" and
                ("keyspace", "sized") in k[1]]
        assert writer.failed == 0, "%d writes failed" % writer.failed
        assert len(writer.acknowledged) > 1000
        stored = read_all(session, "sized.t")
        lost = [k for k, v in writer.acknowledged.items()
                if stored.get(k) != v]
        assert not lost, "%d of %d acknowledged writes lost" % (
            len(lost), len(writer.acknowledged))
    finally:
        driver.shutdown()
        cluster.close()


def test_hot_partition_is_isolated_and_reported():
    cluster = local_cluster.LocalCluster(
        3, conf=FAST + ["tablet_split_requests_per_second=100"])
    driver = cluster.driver()
    try:
        session = driver.connect()
        session.execute(
            "CREATE KEYSPACE hot WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        session.execute("CREATE TABLE hot.t (k int PRIMARY KEY, v text)")
        insert = session.prepare("INSERT INTO hot.t (k, v) VALUES (?, ?)")
        session.execute(insert, (7, "seven"))
        token = session.execute(
            "SELECT token(k) AS t FROM hot.t WHERE k = 7").one().t

        def alone():
            for _ in range(200):
                session.execute(insert, (7, "seven"))
            return any(row[0] == row[1] == token for row in
                       local_cluster.tablet_rows(cluster.admin("tablets"),
                                                 "hot.t"))
        local_cluster.wait_for(alone, 60,
                               "partition 7 to get a tablet of its own")
        logs = cluster.logs()
        assert "Hot partition in hot.t" in logs, logs
        assert read_all(session, "hot.t") == {7: "seven"}
        assert len(local_cluster.tablet_rows(cluster.admin("tablets"),
                                             "hot.t")) <= 4
    finally:
        driver.shutdown()
        cluster.close()
