"""Changing a table's primary key online (ALTER TABLE ... WITH PRIMARY KEY,
a Keywise extension) while writers and readers keep going through the
Python driver: every acknowledged write is found under the new key, and no
read ever returns a value older than one its reader saw acknowledged.

KEYWISE_KEY_CHANGE_ROWS sets the preloaded rows (more rows: a longer
backfill, so more writes race with it)."""

import os
import threading
import time

from conftest import create_keyspace, driver_cluster
import local_cluster

ROWS = int(os.environ.get("KEYWISE_KEY_CHANGE_ROWS", "30000"))
WRITERS = 4


def test_key_change_under_load(node):
    cluster = driver_cluster(node, request_timeout=120)
    session = cluster.connect()
    ks = create_keyspace(session, "rekey")
    session.execute("CREATE TABLE %s.events (ts int, userid int, v int, "
                    "PRIMARY KEY (ts, userid))" % ks)
    insert = session.prepare(
        "INSERT INTO %s.events (ts, userid, v) VALUES (?, ?, ?)" % ks)
    read = session.prepare(
        "SELECT v FROM %s.events WHERE ts = ? AND userid = ?" % ks)
    # Preload: userid = ts % 50; v = 0.
    from cassandra.concurrent import execute_concurrent_with_args
    execute_concurrent_with_args(
        session, insert, [(ts, ts % 50, 0) for ts in range(ROWS)],
        concurrency=64)

    acked = {}  # (ts, userid) -> last acknowledged v
    lock = threading.Lock()
    stop = threading.Event()
    errors = []
    counts = {"writes": 0, "reads": 0}

    def writer(w):
        seq = 0
        mine = [ts for ts in range(ROWS) if ts % WRITERS == w][:2000]
        try:
            while not stop.is_set():
                seq += 1
                # Rewrite an old row, and add a new one.
                ts = mine[seq % len(mine)]
                session.execute(insert, (ts, ts % 50, seq))
                new_ts = ROWS + w + WRITERS * seq
                session.execute(insert, (new_ts, new_ts % 50, seq))
                with lock:
                    acked[(ts, ts % 50)] = seq
                    acked[(new_ts, new_ts % 50)] = seq
                    counts["writes"] += 2
                # Read back what this thread just had acknowledged.
                row = session.execute(read, (ts, ts % 50)).one()
                if row is None or row.v < seq:
                    errors.append("read (%d) after ack of %d: %r" %
                                  (ts, seq, row))
                with lock:
                    counts["reads"] += 1
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append("writer %d: %r" % (w, e))

    threads = [threading.Thread(target=writer, args=(w,))
               for w in range(WRITERS)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    started = time.time()
    session.execute("ALTER TABLE %s.events WITH PRIMARY KEY ((userid), ts) "
                    "AND CLUSTERING ORDER BY (ts DESC)" % ks)
    # The switch may finish in the background; wait until the new key is
    # the table's.
    deadline = time.time() + 120
    while time.time() < deadline:
        pk = [r.column_name for r in session.execute(
            "SELECT column_name, kind FROM system_schema.columns WHERE "
            "keyspace_name = %s AND table_name = 'events'", (ks,))
            if r.kind == "partition_key"]
        if pk == ["userid"]:
            break
        time.sleep(0.2)
    switched_after = time.time() - started
    time.sleep(1.0)  # writes and reads go on under the new key
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors[:5]
    assert pk == ["userid"], "the key change did not complete"
    assert counts["writes"] > 100, counts

    # Every acknowledged write is there, under the new key.
    by_user = {}
    for userid in range(50):
        for row in session.execute(
                "SELECT ts, v FROM %s.events WHERE userid = %d" % (ks, userid)):
            by_user[(row.ts, userid)] = row.v
    missing = [k for k in acked if k not in by_user]
    stale = [(k, v, by_user[k]) for k, v in acked.items()
             if k in by_user and by_user[k] < v]
    assert not missing, missing[:10]
    assert not stale, stale[:10]
    assert len(by_user) >= ROWS
    # The new key serves the per-user query without filtering, newest first.
    rows = list(session.execute(
        "SELECT ts FROM %s.events WHERE userid = 3 LIMIT 5" % ks))
    assert [r.ts for r in rows] == sorted((r.ts for r in rows), reverse=True)
    print("key change: %d writes, %d reads, switched after %.1f s"
          % (counts["writes"], counts["reads"], switched_after))
    cluster.shutdown()


@local_cluster.SKIP_WITHOUT_ETCD
def test_key_change_in_a_cluster():
    """The same in a 3-node cluster at RF=2 (keywise cluster, own etcd),
    writes and reads at QUORUM through every node: each node backfills its
    own copy, the switch is one schema commit, and every acknowledged write
    is found under the new key. A write racing the switch may fail (a
    replica that already switched refuses the old layout): it was not
    acknowledged, and the writer goes on."""
    rows = 3000
    cluster = local_cluster.LocalCluster(3, conf=["initial_tablets=4"])
    driver = cluster.driver()
    try:
        session = driver.connect()
        session.execute("CREATE KEYSPACE rekey WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 2}")
        session.execute("CREATE TABLE rekey.events (ts int, userid int, "
                        "v int, PRIMARY KEY (ts, userid))")
        insert = session.prepare(
            "INSERT INTO rekey.events (ts, userid, v) VALUES (?, ?, ?)")
        from cassandra.concurrent import execute_concurrent_with_args
        execute_concurrent_with_args(
            session, insert, [(ts, ts % 50, 0) for ts in range(rows)],
            concurrency=32)
        acked = {}
        lock = threading.Lock()
        stop = threading.Event()
        counts = {"writes": 0, "failed": 0}

        def writer(w):
            seq = 0
            while not stop.is_set():
                seq += 1
                ts = rows + w + 2 * seq
                try:
                    session.execute(insert, (ts, ts % 50, seq))
                except Exception:  # noqa: BLE001 - not acknowledged
                    with lock:
                        counts["failed"] += 1
                    continue
                with lock:
                    acked[(ts, ts % 50)] = seq
                    counts["writes"] += 1

        threads = [threading.Thread(target=writer, args=(w,))
                   for w in range(2)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        session.execute("ALTER TABLE rekey.events WITH PRIMARY KEY "
                        "((userid), ts)", timeout=60)
        deadline = time.time() + 60
        switched = False
        while time.time() < deadline and not switched:
            switched = all(
                [r.column_name for r in session.execute(
                    "SELECT column_name, kind FROM system_schema.columns "
                    "WHERE keyspace_name = 'rekey' AND table_name = 'events'",
                    host=host) if r.kind == "partition_key"] == ["userid"]
                for host in driver.metadata.all_hosts())
            time.sleep(0.2)
        time.sleep(1.0)
        stop.set()
        for t in threads:
            t.join()
        assert switched, "the key change did not complete on every node"
        assert counts["writes"] > 50, counts
        by_user = {}
        for userid in range(50):
            for row in session.execute(
                    "SELECT ts, v FROM rekey.events WHERE userid = %d" %
                    userid):
                by_user[(row.ts, userid)] = row.v
        missing = [k for k in acked if k not in by_user]
        assert not missing, missing[:10]
        assert len([k for k in by_user if k[0] < rows]) == rows
        print("key change in a cluster: %d writes acknowledged, %d failed" %
              (counts["writes"], counts["failed"]))
    finally:
        driver.shutdown()
        cluster.close()
