"""Nodes joining and leaving a running cluster through the Python driver
(keywise cluster add / decommission / remove / replace, with its own etcd,
nodes on 127.0.0.1-4): tablets move to a node that joins and off a node
that leaves while QUORUM writes go on, and every acknowledged write is read
back at ALL afterwards.
"""

import pathlib
import re
import time

import pytest
from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD


def test_add_then_decommission_under_writes_loses_nothing():
    cluster = local_cluster.LocalCluster(3, spare=1)
    driver = cluster.driver()
    try:
        session = driver.connect()
        insert = local_cluster.kv_table(session, "moves", 2, rows=2000)
        writer = local_cluster.Writer(session, insert)
        try:
            time.sleep(0.5)
            # A fourth node joins and receives tablets from the others.
            cluster.run("add")
            local_cluster.wait_for(
                lambda: local_cluster.tablets_held(cluster.run("status")).get(
                    "127.0.0.4", 0) >= 3 and
                "moving" not in cluster.run("status"),
                60, "node 4 to receive its share of the 16 replicas")
            # Node 1 leaves: its tablets stream to the others first.
            out = cluster.run("decommission", "1", timeout=180)
            assert "Decommissioning node 1" in out and "ok" in out, out
            time.sleep(0.5)
        finally:
            writer.finish()
        status = cluster.run("status")
        held = local_cluster.tablets_held(status)
        assert held.get("127.0.0.1", 0) == 0, status
        assert sum(held.values()) == 16, status  # 8 tablets x RF 2
        assert re.search(r"^DX\s+127\.0\.0\.1\s", status, re.M), status

        check = SimpleStatement("SELECT k, v FROM moves.t",
                                consistency_level=ConsistencyLevel.ALL,
                                fetch_size=1000)
        rows = {r.k: r.v for r in session.execute(check)}
        expected = {k: "v%d" % k for k in range(2000)}
        expected.update(writer.acknowledged)
        lost = [k for k, v in expected.items() if rows.get(k) != v]
        print("acknowledged during the moves: %d, failed: %d" %
              (len(writer.acknowledged), writer.failed))
        assert len(writer.acknowledged) > 500
        assert lost == []
    except BaseException:
        cluster.keep_logs()
        raise
    finally:
        driver.shutdown()
        cluster.close()


def test_admin_refuses_what_cannot_work():
    cluster = local_cluster.LocalCluster(2)
    try:
        with pytest.raises(RuntimeError, match="No node '127.0.0.9'"):
            cluster.admin("decommission", "127.0.0.9")
        with pytest.raises(RuntimeError, match="is up: removenode is for a "
                           "dead node"):
            cluster.admin("removenode", "127.0.0.2")
        with pytest.raises(RuntimeError, match="is running: remove is for a "
                           "dead node"):
            cluster.run("remove", "2")
        cluster.run("kill", "2")
        local_cluster.wait_for(
            lambda: "DN  127.0.0.2" in cluster.run("status"), 20,
            "node 2 to be seen down")
        with pytest.raises(RuntimeError, match="is down: decommission needs "
                           "it up"):
            cluster.admin("decommission", "127.0.0.2")
        # A dead node with no tablets (no replicated table yet) is removed
        # at once.
        out = cluster.run("remove", "2")
        assert "Removing node 2" in out and "ok" in out, out
        status = cluster.run("status")
        assert re.search(r"^DX\s+127\.0\.0\.2\s", status, re.M), status
    except BaseException:
        cluster.keep_logs()
        raise
    finally:
        cluster.close()


def test_kill_9_during_moves_loses_nothing():
    """A fourth node joins a 3-node RF=3 cluster and receives tablets while
    QUORUM writes go on; node 1 (the driver's contact point, maybe the
    balancer's leader or a streaming source) is killed with SIGKILL in the
    middle of the moves and restarted. The moves finish (resumed by
    whichever node leads the balancer), and every acknowledged write reads
    back at ALL."""
    cluster = local_cluster.LocalCluster(3, spare=1)
    driver = cluster.driver()
    try:
        session = driver.connect()
        insert = local_cluster.kv_table(session, "killed", 3, rows=1000)
        writer = local_cluster.Writer(session, insert)
        try:
            cluster.run("add")
            time.sleep(0.3)  # some moves under way
            cluster.run("kill", "1")
            time.sleep(2)
            cluster.run("start", "1")
            local_cluster.wait_for(
                lambda: local_cluster.tablets_held(cluster.run("status")).get(
                    "127.0.0.4", 0) >= 4 and
                "moving" not in cluster.run("status"),
                90, "node 4 to receive its share with no move left")
            time.sleep(0.5)
        finally:
            writer.finish()
        held = local_cluster.tablets_held(cluster.run("status"))
        assert sum(held.values()) == 24, held  # 8 tablets x RF 3
        check = SimpleStatement("SELECT k, v FROM killed.t",
                                consistency_level=ConsistencyLevel.ALL,
                                fetch_size=1000)
        rows = {r.k: r.v for r in session.execute(check)}
        expected = {k: "v%d" % k for k in range(1000)}
        expected.update(writer.acknowledged)
        lost = [k for k, v in expected.items() if rows.get(k) != v]
        print("acknowledged: %d, failed: %d" %
              (len(writer.acknowledged), writer.failed))
        assert len(writer.acknowledged) > 200
        assert lost == [], "%d of %d lost" % (len(lost), len(expected))
    except BaseException:
        cluster.keep_logs()
        raise
    finally:
        driver.shutdown()
        cluster.close()


def test_replace_gives_a_new_node_the_dead_nodes_replicas():
    """Node 3 of an RF=3 cluster dies for good; `keywise cluster replace 3`
    starts node 4 with replace_address_first_boot, which marks node 3
    leaving once it joined: node 4 receives a replica of every tablet
    (streamed from the survivors), node 3 is left, and every row reads
    back at ALL."""
    cluster = local_cluster.LocalCluster(3, spare=1)
    driver = cluster.driver()
    try:
        session = driver.connect()
        insert = local_cluster.kv_table(session, "replaced", 3, rows=500)
        with pytest.raises(RuntimeError, match="is running: replace is for a "
                           "dead node"):
            cluster.run("replace", "3")
        cluster.run("kill", "3")
        out = cluster.run("replace", "3")
        assert "Node 4 replaced node 3" in out, out
        log = (pathlib.Path(cluster.dir) / "node4" / "keywise.log").read_text()
        assert "Replacing node 127.0.0.3" in log, log[-3000:]
        status = cluster.run("status")
        held = local_cluster.tablets_held(status)
        assert held.get("127.0.0.3", 0) == 0, status
        assert held.get("127.0.0.4", 0) == 8, status  # 8 tablets x RF 3
        assert sum(held.values()) == 24, status
        assert re.search(r"^DX\s+127\.0\.0\.3\s", status, re.M), status
        check = SimpleStatement("SELECT k, v FROM replaced.t",
                                consistency_level=ConsistencyLevel.ALL,
                                fetch_size=1000)
        rows = {r.k: r.v for r in session.execute(check)}
        assert rows == {k: "v%d" % k for k in range(500)}
    except BaseException:
        cluster.keep_logs()
        raise
    finally:
        driver.shutdown()
        cluster.close()
