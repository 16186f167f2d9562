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

import random
import subprocess
import time

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD


def rows_on(cluster, address, cql, params=None):
    """The rows of `cql` as the node at address answers it."""
    driver = cluster.driver(whitelist=[address])
    try:
        return list(driver.connect().execute(cql, params))
    finally:
        driver.shutdown()


def shapes_on(cluster, address):
    """executions of the filtering shape the node at address shows."""
    rows = rows_on(cluster, address,
                   "SELECT executions FROM system_views.query_shapes WHERE "
                   "keyspace_name = 'adv' AND table_name = 't' AND shape = "
                   "'WHERE v = ? ALLOW FILTERING'")
    return rows[0].executions if rows else 0


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


def top_reads(cluster, address, keyspace, table):
    """(partition_key, count, count_error) of the reads, by rank."""
    return [(r.partition_key, r.count, r.count_error) for r in rows_on(
        cluster, address,
        "SELECT partition_key, count, count_error FROM "
        "system_views.top_partitions WHERE keyspace_name = %s AND "
        "table_name = %s AND op = 'read'", (keyspace, table))]


def test_monotonic_inserts_and_zipfian_reads():
    """A time-bucketed table written in time order (every current write in
    today's partition) and a zipfian read stream over 200 users, both
    spread over the three coordinators by the token-aware driver: the
    hot partitions, the shapes and the advice come out of any node with
    the whole cluster's counts."""
    cluster = local_cluster.LocalCluster(3)
    driver = cluster.driver()
    try:
        session = driver.connect()
        session.execute("CREATE KEYSPACE wl WITH replication = {'class': "
                        "'SimpleStrategy', 'replication_factor': 2}")
        session.execute("CREATE TABLE wl.events (day int, ts int, v int, "
                        "PRIMARY KEY (day, ts))")
        session.execute("CREATE TABLE wl.users (id int PRIMARY KEY, "
                        "name text)")
        insert = session.prepare(
            "INSERT INTO wl.events (day, ts, v) VALUES (?, ?, ?)")
        for ts in range(400):
            session.execute(insert, (7, 700000 + ts, ts))
        add = session.prepare("INSERT INTO wl.users (id, name) VALUES (?, ?)")
        for i in range(200):
            session.execute(add, (i, "u%d" % i))
        # Zipf (s = 1.2) over the 200 ids: id 0 is the most read, about a
        # quarter of the reads.
        rng = random.Random(7)
        weights = [1 / (k + 1) ** 1.2 for k in range(200)]
        draws = rng.choices(range(200), weights=weights, k=600)
        read = session.prepare("SELECT name FROM wl.users WHERE id = ?")
        for i in draws:
            assert session.execute(read, (i,)).one().name == "u%d" % i
        truth = draws.count(0)
        assert truth > 0.2 * len(draws), truth
        # Every node shows the cluster's reads of id 0 within the sketch's
        # bounds, ranked first.
        for i in (1, 2, 3):
            address = "127.0.0.%d" % i
            local_cluster.wait_for(
                lambda: (top_reads(cluster, address, "wl", "users") or
                         [("", 0, 0)])[0][1] >= truth, 15,
                "the merged reads of id 0 on " + address)
            key, count, error = top_reads(cluster, address, "wl", "users")[0]
            assert key == "id = 0", (address, key)
            assert count - error <= truth <= count, (address, count, error)
        run = subprocess.run(
            [local_cluster.BINARY, "advise", "127.0.0.2", str(cluster.port),
             "--keyspace", "wl"], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        out = run.stdout
        assert "(workload statistics of the cluster's 3 nodes)" in out, out
        assert "time-partition-key: the partition key of wl.events" in out, out
        assert "hot-partition: the partition `day = 7` took 100% of the " \
            "writes of wl.events (400 of 400)" in out, out
        assert "hot-partition: the partition `id = 0` took" in out, out
        assert "of the reads of wl.users" in out, out
    finally:
        driver.shutdown()
        cluster.close()
