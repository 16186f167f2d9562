"""The key-design advisor in a 3-node cluster (keywise cluster with its own
etcd, nodes on 127.0.0.1-3): every node counts the requests it
coordinates and publishes its system_views statistics merged with the
other nodes' (docs/advisor.md, "In a cluster"), so `keywise advise`,
asked through one node, sees the whole cluster. A workload with a hot
partition and a filtering query, spread over the coordinators, must come
out with the cluster's totals on every node; `keywise advise --reset`
starts every node over; `keywise advise --key` places rows with the
table's tablets.
"""

import subprocess
import time

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD


def shapes_on(cluster, address):
    """executions of the filtering shape counted by the node at address."""
    driver = cluster.driver(whitelist=[address])
    try:
        session = driver.connect()
        rows = list(session.execute(
            "SELECT executions FROM system_views.query_shapes WHERE "
            "keyspace_name = 'adv' AND table_name = 't' AND shape = "
            "'WHERE v = ? ALLOW FILTERING'"))
        return rows[0].executions if rows else 0
    finally:
        driver.shutdown()


def test_advise_adds_up_every_node():
    cluster = local_cluster.LocalCluster(3)
    driver = cluster.driver()
    try:
        session = driver.connect()
        session.execute("CREATE KEYSPACE adv WITH replication = {'class': "
                        "'SimpleStrategy', 'replication_factor': 2}")
        session.execute("CREATE TABLE adv.t (k int, c int, v int, "
                        "PRIMARY KEY (k, c))")
        insert = session.prepare(
            "INSERT INTO adv.t (k, c, v) VALUES (?, ?, ?)")
        # Partition 1 takes half of 400 writes; the token-aware driver
        # sends the others to their replicas, all over the cluster.
        for i in range(400):
            session.execute(insert, (1 if i % 2 else i, i, i % 40))
        # A filtering query, through every coordinator in turn.
        by_v = session.prepare(
            "SELECT k, c FROM adv.t WHERE v = ? ALLOW FILTERING")
        for i in range(150):
            session.execute(by_v, (i % 40,))
        deadline = time.time() + 15
        out = ""
        while time.time() < deadline and "(150 of 150)" not in out:
            time.sleep(0.5)  # each node publishes every 2 s
            run = subprocess.run(
                [local_cluster.BINARY, "advise", "127.0.0.1",
                 str(cluster.port), "--keyspace", "adv"],
                capture_output=True, text=True, timeout=60)
            assert run.returncode == 0, run.stderr
            out = run.stdout
        assert "(workload statistics of the cluster's 3 nodes)" in out, out
        assert "filtering-scan: 100% of the SELECTs on adv.t (150 of 150) " \
            "are `WHERE v = ? ALLOW FILTERING`, run as a FULL SCAN: they " \
            "read 40 rows per row returned" in out, out
        assert "\n  CREATE INDEX ON adv.t (v);\n" in out, out
        assert "hot-partition: the partition `k = 1` took" in out, out
        assert "of the writes of adv.t (200 of 400)" in out, out
        # Every node answers for the whole cluster: each counted only the
        # queries it coordinated, and publishes them merged with the
        # others'.
        deadline = time.time() + 15
        while time.time() < deadline and [
                shapes_on(cluster, "127.0.0.%d" % i) for i in (1, 2, 3)] != \
                [150, 150, 150]:
            time.sleep(0.5)
        assert [shapes_on(cluster, "127.0.0.%d" % i) for i in (1, 2, 3)] == \
            [150, 150, 150]
        # --reset starts every node over.
        run = subprocess.run(
            [local_cluster.BINARY, "advise", "127.0.0.1", str(cluster.port),
             "--reset"], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert run.stdout == \
            "Reset the workload statistics of the cluster's 3 nodes.\n"
        deadline = time.time() + 10
        while time.time() < deadline and \
                sum(shapes_on(cluster, "127.0.0.%d" % i) for i in (1, 2, 3)):
            time.sleep(0.5)  # a publication under way may land once more
        assert [shapes_on(cluster, "127.0.0.%d" % i) for i in (1, 2, 3)] == \
            [0, 0, 0]
        # The what-if report places rows with the table's own tablets and
        # replicas: partition 1's 200 rows sit on its 2 replicas today;
        # keyed by (k, c) every row is its own partition.
        run = subprocess.run(
            [local_cluster.BINARY, "advise", "127.0.0.1", str(cluster.port),
             "--keyspace", "adv", "--table", "t", "--key", "((k, c))"],
            capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        out = run.stdout
        assert "Sample: every row of the table (400)" in out, out
        assert "tablets on 3 nodes (" in out and "simulated" not in out, out
        for address in ("127.0.0.1", "127.0.0.2", "127.0.0.3"):
            assert address in out, out
        largest = [line for line in out.splitlines()
                   if line.startswith("largest partition, rows")]
        assert largest and largest[0].split()[-2:] == ["200", "1"], out
        per_node = [line for line in out.splitlines()
                    if line.startswith("rows per node")][0]
        counts = [int(n.replace(",", "")) for n in per_node.split()[3:]]
        # RF 2: each row on two of the three nodes, both keys.
        assert sum(counts[:3]) == 800 and sum(counts[3:]) == 800, out
    finally:
        driver.shutdown()
        cluster.close()
