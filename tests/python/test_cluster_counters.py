"""Counters on a 3-node cluster (RF=3, its own etcd, nodes on
127.0.0.1-3) through the Python driver: threads bound to each of the three
coordinators increment a few counters at QUORUM while node 3 is killed
with SIGKILL and restarted. Every increment the driver saw acknowledged
must be in the final value; one that failed may or may not have been
applied (Cassandra's rule for a timed-out counter update), so the final
value lies between the acknowledged count and the acknowledged count plus
the failures, read at ALL once every node is back.
"""

import threading
import time

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

COUNTERS = 3     # partitions
RUN_SECONDS = 8  # each worker increments for this long


def test_increments_through_every_coordinator_survive_a_killed_node():
    cluster = local_cluster.LocalCluster(3)
    drivers = []
    try:
        admin = cluster.driver()
        drivers.append(admin)
        session = admin.connect()
        session.execute(
            "CREATE KEYSPACE cnt WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        session.execute("CREATE TABLE cnt.c (k int PRIMARY KEY, n counter)")

        acked = [0] * COUNTERS
        failed = [0] * COUNTERS
        lock = threading.Lock()

        def worker(address, k, step):
            d = cluster.driver(whitelist=[address])
            drivers.append(d)
            s = d.connect()
            update = s.prepare("UPDATE cnt.c SET n = n + ? WHERE k = ?")
            update.consistency_level = ConsistencyLevel.QUORUM
            deadline = time.time() + RUN_SECONDS
            while time.time() < deadline:
                try:
                    s.execute(update, (step, k))
                except Exception:  # noqa: BLE001 - outcome unknown
                    with lock:
                        failed[k] += step
                    time.sleep(0.05)
                    continue
                with lock:
                    acked[k] += step

        threads = []
        for k in range(COUNTERS):
            for i, address in enumerate(("127.0.0.1", "127.0.0.2",
                                         "127.0.0.3")):
                # Different steps per coordinator: a lost or doubled
                # increment of one of them shows in the sum.
                threads.append(threading.Thread(
                    target=worker, args=(address, k, 10 ** i)))
        for t in threads:
            t.start()
        time.sleep(2.0)
        cluster.run("kill", "3")
        time.sleep(2.0)
        cluster.run("start", "3")
        for t in threads:
            t.join()

        local_cluster.wait_for(
            lambda: "DN" not in cluster.run("status"), 30, "node 3 back up")
        for k in range(COUNTERS):
            assert acked[k] > 0, (k, acked, failed)
            final = session.execute(SimpleStatement(
                "SELECT n FROM cnt.c WHERE k = %d" % k,
                consistency_level=ConsistencyLevel.ALL)).one().n
            assert acked[k] <= final <= acked[k] + failed[k], (
                k, final, acked, failed)
    except BaseException:
        cluster.keep_logs()
        raise
    finally:
        for d in drivers:
            d.shutdown()
        cluster.close()
