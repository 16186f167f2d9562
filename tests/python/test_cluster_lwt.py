"""Lightweight transactions on a 3-node cluster (RF=3, its own etcd, nodes
on 127.0.0.1-3) through the Python driver: compare-and-set loops through
every coordinator while one node is killed with SIGKILL and restarted.
Every round the driver saw applied must be in the final value exactly
once; a round that failed with an error may or may not have applied
(Cassandra's rule), so the final value lies between the applied count and
the applied count plus the errors. Reads at SERIAL see the last round.
"""

import threading
import time

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

COUNTERS = 4        # partitions, each incremented by CAS loops
PER_WORKER = 30     # applied rounds each worker aims for


def test_cas_loops_through_every_coordinator_survive_a_killed_node():
    cluster = local_cluster.LocalCluster(3)
    drivers = []
    try:
        admin = cluster.driver()
        drivers.append(admin)
        session = admin.connect()
        session.execute(
            "CREATE KEYSPACE lwt WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        session.execute("CREATE TABLE lwt.c (k int PRIMARY KEY, v int)")
        for k in range(COUNTERS):
            r = session.execute("INSERT INTO lwt.c (k, v) VALUES (%d, 0) "
                                "IF NOT EXISTS" % k)
            assert r.was_applied
        r = session.execute("INSERT INTO lwt.c (k, v) VALUES (0, 5) "
                            "IF NOT EXISTS")
        assert not r.was_applied and r.one().v == 0

        applied = [0] * COUNTERS
        unknown = [0] * COUNTERS
        lock = threading.Lock()
        stop = threading.Event()

        def worker(address, k):
            d = cluster.driver(whitelist=[address])
            drivers.append(d)
            s = d.connect()
            read = SimpleStatement("SELECT v FROM lwt.c WHERE k = %d" % k,
                                   consistency_level=ConsistencyLevel.SERIAL)
            cas = s.prepare("UPDATE lwt.c SET v = ? WHERE k = %d IF v = ?" % k)
            done = 0
            deadline = time.time() + 120
            while done < PER_WORKER and time.time() < deadline:
                try:
                    current = s.execute(read).one().v
                except Exception:  # noqa: BLE001 - coordinator down: retry
                    time.sleep(0.1)
                    continue
                try:
                    result = s.execute(cas, (current + 1, current))
                except Exception:  # noqa: BLE001 - outcome unknown
                    with lock:
                        unknown[k] += 1
                    time.sleep(0.05)
                    continue
                if result.was_applied:
                    done += 1
                    with lock:
                        applied[k] += 1

        # Two coordinators per partition (nodes 1 and 2 stay up), node 3
        # killed and restarted while the loops run.
        threads = []
        for k in range(COUNTERS):
            for address in ("127.0.0.1", "127.0.0.2"):
                threads.append(threading.Thread(target=worker,
                                                args=(address, k)))
        for t in threads:
            t.start()
        time.sleep(1.0)
        cluster.run("kill", "3")
        time.sleep(2.0)
        cluster.run("start", "3")
        for t in threads:
            t.join()
        stop.set()

        for k in range(COUNTERS):
            assert applied[k] == 2 * PER_WORKER, (k, applied, unknown)
            final = session.execute(SimpleStatement(
                "SELECT v FROM lwt.c WHERE k = %d" % k,
                consistency_level=ConsistencyLevel.SERIAL)).one().v
            assert applied[k] <= final <= applied[k] + unknown[k], (
                k, final, applied, unknown)
    except BaseException:
        cluster.keep_logs()
        raise
    finally:
        for d in drivers:
            d.shutdown()
        cluster.close()
