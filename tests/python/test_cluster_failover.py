"""A 3-node local cluster (keywise cluster, with its own etcd) through the
Python driver: RF=3, QUORUM writes while one node is killed with SIGKILL and
restarted; every acknowledged write is read back at ALL after hints replay.
With the node down, QUORUM reads and writes succeed and ALL is Unavailable.

Nodes run on 127.0.0.1-3 (loopback only). Needs /usr/bin/etcd
(scripts/setup.sh installs etcd-server).
"""

import os
import pathlib
import random
import signal
import time

import pytest
from cassandra import ConsistencyLevel, Unavailable
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.query import SimpleStatement

import local_cluster
import metrics_util

pytestmark = local_cluster.SKIP_WITHOUT_ETCD
LocalCluster = local_cluster.LocalCluster
wait_for = local_cluster.wait_for


METRICS_PORT = local_cluster.free_port_on(["127.0.0.%d" % i for i in (1, 2, 3)])


def scrape(i):
    return metrics_util.scrape("http://127.0.0.%d:%d/metrics" %
                               (i, METRICS_PORT))


@pytest.fixture(scope="module")
def cluster():
    c = LocalCluster(3, conf=["metrics_port=%d" % METRICS_PORT])
    yield c
    print(c.logs()[-6000:]) if os.environ.get("KEYWISE_CLUSTER_LOGS") else None
    c.close()


def test_driver_discovers_every_node(cluster):
    driver = cluster.driver()
    try:
        driver.connect()
        hosts = sorted(h.address for h in driver.metadata.all_hosts())
        assert hosts == ["127.0.0.1", "127.0.0.2", "127.0.0.3"]
        status = cluster.run("status")
        assert status.count("UN  127.0.0.") == 3, status
        # The replication factor warning counts the cluster's nodes.
        session = driver.connect()
        future = session.execute_async(
            "CREATE KEYSPACE rf5 WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 5}")
        future.result()
        assert future.warnings == [
            "Your replication factor 5 for keyspace rf5 is higher than the "
            "number of nodes 3"]
        future = session.execute_async(
            "CREATE KEYSPACE rf3 WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        future.result()
        assert not future.warnings
    finally:
        driver.shutdown()


# Kill/restart rounds; CI runs 1, KEYWISE_CLUSTER_ROUNDS=N runs a longer
# campaign (a random node each round).
ROUNDS = int(os.environ.get("KEYWISE_CLUSTER_ROUNDS", "1"))


def test_kill_one_node_no_acknowledged_write_lost(cluster):
    rng = random.Random(int(os.environ.get("KEYWISE_SEED", "12")))
    driver = cluster.driver()
    session = driver.connect()
    try:
        session.execute(
            "CREATE KEYSPACE failover WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        session.execute(
            "CREATE TABLE failover.t (k int PRIMARY KEY, v text)")
        insert = session.prepare("INSERT INTO failover.t (k, v) VALUES (?, ?)")
        select = session.prepare("SELECT v FROM failover.t WHERE k = ?")
        acknowledged = {}
        failures = 0
        next_key = 0

        def write(n):
            """n QUORUM writes, 32 in flight; returns nothing, records acks."""
            nonlocal failures, next_key
            keys = list(range(next_key, next_key + n))
            next_key += n
            results = execute_concurrent_with_args(
                session, insert, [(k, "v%d" % k) for k in keys],
                concurrency=32, raise_on_first_error=False)
            for k, (ok, _) in zip(keys, results):
                if ok:
                    acknowledged[k] = "v%d" % k
                else:  # not acknowledged: may or may not exist
                    failures += 1

        def stale_or_lost(consistency):
            statement = select
            statement.consistency_level = consistency
            results = execute_concurrent_with_args(
                session, statement, [(k,) for k in acknowledged],
                concurrency=32, raise_on_first_error=False)
            bad = []
            for k, (ok, rows) in zip(list(acknowledged), results):
                row = rows.one() if ok else None
                if row is None or row.v != acknowledged[k]:
                    bad.append((k, row if ok else rows))
            return bad

        write(500)
        all_read = SimpleStatement("SELECT v FROM failover.t WHERE k = 1",
                                   consistency_level=ConsistencyLevel.ALL)
        for round_ in range(ROUNDS):
            victim = rng.randint(1, 3)
            cluster.run("kill", str(victim))
            write(500)

            # With a node down: QUORUM reads return every acknowledged
            # write, ALL is Unavailable once the coordinators see it down.
            assert stale_or_lost(ConsistencyLevel.QUORUM) == []

            def all_unavailable():
                try:
                    session.execute(all_read)
                    return False
                except Unavailable as e:
                    assert e.required_replicas == 3 and e.alive_replicas == 2
                    return True
                except Exception:
                    return False
            wait_for(all_unavailable, 20,
                     "ALL to be Unavailable with node %d down" % victim)

            cluster.run("start", str(victim))
            write(200)
            # Before the hints are replayed the restarted node misses
            # writes; QUORUM reads must still never be stale.
            assert stale_or_lost(ConsistencyLevel.QUORUM) == []

            # Hints for the node drain on the others.
            for i in range(1, 4):
                if i == victim:
                    continue
                local = cluster.driver(whitelist=["127.0.0.%d" % i],
                                       consistency=ConsistencyLevel.ONE)
                try:
                    s = local.connect()
                    wait_for(lambda: s.execute(
                        "SELECT count(*) FROM system.hints").one()[0] == 0,
                        30, "hints on node %d to be replayed" % i)
                finally:
                    local.shutdown()
            # /metrics on the nodes that stayed up: the hints they wrote
            # for the victim were replayed, none is pending.
            up = [scrape(i) for i in range(1, 4) if i != victim]
            written = sum(metrics_util.value(s, "keywise_hints_written_total")
                          for s in up)
            replayed = sum(metrics_util.value(
                s, "keywise_hints_replayed_total") for s in up)
            assert written > 0 and replayed >= written, (written, replayed)
            wait_for(lambda: all(
                metrics_util.value(scrape(i), "keywise_hints_pending") == 0
                for i in range(1, 4) if i != victim), 10,
                "keywise_hints_pending to be 0")

        print("acknowledged %d, not acknowledged %d" %
              (len(acknowledged), failures))
        # A write is lost to the driver only while a coordinator dies.
        assert len(acknowledged) >= next_key - 100 * ROUNDS, failures
        assert stale_or_lost(ConsistencyLevel.ALL) == []
    finally:
        driver.shutdown()


def test_etcd_outage_keeps_data_path_and_fails_ddl_clearly(cluster):
    driver = cluster.driver()
    session = driver.connect()
    try:
        session.execute(
            "CREATE KEYSPACE outage WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        session.execute("CREATE TABLE outage.t (k int PRIMARY KEY, v int)")
        insert = session.prepare("INSERT INTO outage.t (k, v) VALUES (?, ?)")
        select = session.prepare("SELECT v FROM outage.t WHERE k = ?")

        etcd_pid = int((pathlib.Path(cluster.dir) / "etcd" / "pid").read_text())
        os.kill(etcd_pid, signal.SIGTERM)
        wait_for(lambda: not pathlib.Path("/proc/%d" % etcd_pid).exists() or
                 "Z" in pathlib.Path("/proc/%d/stat" % etcd_pid).read_text()
                 .split(")")[-1][:3], 10, "etcd to stop")

        # Longer than the membership lease (3 s): nodes must not see each
        # other down because etcd is gone.
        deadline = time.time() + 5
        k = 0
        while time.time() < deadline:
            session.execute(insert, (k, k))
            assert session.execute(select, (k,)).one().v == k
            k += 1
        all_read = SimpleStatement("SELECT v FROM outage.t WHERE k = 0",
                                   consistency_level=ConsistencyLevel.ALL)
        assert session.execute(all_read).one().v == 0

        with pytest.raises(Exception) as ddl:
            session.execute("CREATE TABLE outage.u (k int PRIMARY KEY)")
        assert "etcd" in str(ddl.value), str(ddl.value)

        cluster.run("start")  # etcd again; the running nodes stay
        wait_for(lambda: cluster.run("status").count("UN  127.0.0.") == 3,
                 30, "every node up again after etcd returned")

        def ddl_works():
            try:
                session.execute(
                    "CREATE TABLE IF NOT EXISTS outage.u (k int PRIMARY KEY)")
                return True
            except Exception:
                return False
        wait_for(ddl_works, 30, "DDL to work again")
        session.execute("INSERT INTO outage.u (k) VALUES (1)")
        assert session.execute(all_read).one().v == 0
        for i in range(k):
            assert session.execute(select, (i,)).one().v == i
    finally:
        driver.shutdown()


def test_restarted_node_catches_up_on_missed_ddl(cluster):
    driver = cluster.driver()
    session = driver.connect()
    try:
        cluster.run("stop", "3")
        session.execute(
            "CREATE KEYSPACE missed WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        session.execute("CREATE TABLE missed.t (k int PRIMARY KEY, v int)")
        session.execute("INSERT INTO missed.t (k, v) VALUES (1, 10)")
        cluster.run("start", "3")
        only3 = cluster.driver(whitelist=["127.0.0.3"],
                               consistency=ConsistencyLevel.ALL)
        try:
            s3 = only3.connect()
            assert s3.execute(
                "SELECT v FROM missed.t WHERE k = 1").one().v == 10
            tables = [r.table_name for r in s3.execute(
                "SELECT table_name FROM system_schema.tables "
                "WHERE keyspace_name = 'missed'")]
            assert tables == ["t"]
        finally:
            only3.shutdown()
    finally:
        driver.shutdown()
