"""The cluster's read path against one node: the same random data
(differential_data.py) is written to a single node and to a 3-node cluster
at RF=1 and RF=3 (keywise cluster with its own etcd, nodes on
127.0.0.1-3), whose tablets split by size and move while it is loaded; then
random SELECTs (differential_queries.py) must return exactly the same rows
in the same order, or the same error, at random page sizes (1 to 10,000)
and consistency levels, some with every page asked of a random
coordinator (paging states resumed by another node). The cluster reads in
batches of a few rows (coordinator_read_batch_rows), so batch boundaries
fall everywhere: inside partitions, at their ends, at tablets' ends.

Settings (environment):
  KEYWISE_DIFF_SEED         the seed (default: random; printed)
  KEYWISE_DIFF_QUERIES      SELECTs to compare (default 150: the CI run)
  KEYWISE_DIFF_SCALE        multiplies the data (default 1: ~15,000 rows)
  KEYWISE_DIFF_BATCH_ROWS   the cluster's coordinator_read_batch_rows (7)
The long run: KEYWISE_DIFF_QUERIES=5000 (docs/cluster.md, "Testing").
A mismatch prints the seed, the query, the keyspace, the page size and the
level, and the first rows that differ.
"""

import os
import random
import time

from cassandra import ConsistencyLevel
from cassandra.query import BatchStatement, BatchType, SimpleStatement

import conftest
import differential_data
import differential_queries
import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

SEED = int(os.environ.get("KEYWISE_DIFF_SEED") or random.randrange(1 << 31))
QUERIES = int(os.environ.get("KEYWISE_DIFF_QUERIES", "150"))
SCALE = float(os.environ.get("KEYWISE_DIFF_SCALE", "1"))
BATCH_ROWS = int(os.environ.get("KEYWISE_DIFF_BATCH_ROWS", "7"))

LEVELS = {
    "d1": [ConsistencyLevel.ONE, ConsistencyLevel.LOCAL_ONE,
           ConsistencyLevel.QUORUM, ConsistencyLevel.LOCAL_QUORUM,
           ConsistencyLevel.ALL],
    "d3": [ConsistencyLevel.ONE, ConsistencyLevel.LOCAL_ONE,
           ConsistencyLevel.TWO, ConsistencyLevel.THREE,
           ConsistencyLevel.QUORUM,
           ConsistencyLevel.LOCAL_QUORUM, ConsistencyLevel.ALL],
}


def create_schema(session, keyspace, rf, tables):
    session.execute(
        "CREATE KEYSPACE %s WITH replication = "
        "{'class': 'SimpleStrategy', 'replication_factor': %d}" %
        (keyspace, rf))
    for table in tables:
        session.execute(table.create.format(ks=keyspace))


def apply(session, keyspace, statements, cl):
    """Applies the statements, one unlogged batch per partition and up to
    50 statements, 64 requests in flight."""
    groups = {}
    for table, key, cql in statements:
        groups.setdefault((table, key), []).append(cql.format(ks=keyspace))
    batches = []
    for cqls in groups.values():
        for i in range(0, len(cqls), 50):
            batch = BatchStatement(batch_type=BatchType.UNLOGGED,
                                   consistency_level=cl)
            for cql in cqls[i:i + 50]:
                batch.add(SimpleStatement(cql))
            batches.append(batch)
    pending = []
    for batch in batches:
        pending.append(session.execute_async(batch, timeout=30))
        if len(pending) >= 64:
            pending.pop(0).result()
    for future in pending:
        future.result()


def run(session, cql, page_size, cl, hosts=None, rng=None):
    """("rows", [tuple]) of every page, or ("error", message). With
    `hosts`, each page is asked of one of them at random."""
    statement = SimpleStatement(cql, fetch_size=page_size,
                                consistency_level=cl)
    rows, paging_state = [], None
    try:
        while True:
            host = rng.choice(hosts) if hosts else None
            result = session.execute(statement, paging_state=paging_state,
                                     host=host, timeout=60)
            rows.extend(tuple(r) for r in result.current_rows)
            paging_state = result.paging_state
            if not paging_state:
                return ("rows", rows)
    except Exception as e:  # the message is compared
        return ("error", "%s: %s" % (type(e).__name__, e))


def tablet_signature(cluster, keyspaces, tables):
    """Each table's tablets (token ranges and replicas), and the listing."""
    listing = cluster.admin("tablets")
    signature = []
    for ks in keyspaces:
        for t in tables:
            rows = local_cluster.tablet_rows(listing, "%s.%s" % (ks, t.name))
            signature.append(tuple((r[0], r[1], r[4]) for r in rows))
    return tuple(signature), listing


def wait_for_stable_tablets(cluster, keyspaces, tables, seconds=90):
    """Waits until the tablet maps stopped changing for 3 s (splits and
    moves done); returns the last listing."""
    deadline = time.time() + seconds
    last, listing = tablet_signature(cluster, keyspaces, tables)
    stable_since = time.time()
    while time.time() < deadline:
        time.sleep(0.5)
        now, listing = tablet_signature(cluster, keyspaces, tables)
        if now != last:
            last, stable_since = now, time.time()
        elif time.time() - stable_since >= 3 and "moving" not in listing \
                and "adding" not in listing:
            return listing
    print("tablets still changing after %d s; comparing anyway" % seconds)
    return listing


def describe(result):
    kind, value = result
    return value if kind == "error" else "%d rows" % len(value)


def first_difference(a, b):
    if a[0] != b[0] or a[0] == "error":
        return "one node: %s\ncluster:  %s" % (describe(a), describe(b))
    rows_a, rows_b = a[1], b[1]
    for i in range(max(len(rows_a), len(rows_b))):
        ra = rows_a[i] if i < len(rows_a) else None
        rb = rows_b[i] if i < len(rows_b) else None
        if ra != rb:
            return ("%d rows on one node, %d on the cluster; first "
                    "difference at row %d:\n  one node: %r\n  cluster:  %r" %
                    (len(rows_a), len(rows_b), i, ra, rb))
    return "equal"


def compare_queries(single, session, hosts, tables, rng, count):
    """Runs `count` random SELECTs on one node and the cluster; returns
    (mismatches, reads compared, {"rows": n, "error": n} of the one
    node's answers)."""
    mismatches, compared = [], 0
    kinds = {"rows": 0, "error": 0}
    for _ in range(count):
        table = rng.choice(tables)
        cql = differential_queries.query(rng, table)
        whole = run(single, cql.format(ks="ks"), 5000, ConsistencyLevel.ONE)
        rows = len(whole[1]) if whole[0] == "rows" else 0
        page = differential_queries.page_size(rng, rows)
        reference = run(single, cql.format(ks="ks"), page,
                        ConsistencyLevel.ONE)
        kinds[reference[0]] += 1
        if reference != whole:
            mismatches.append("one node, page size %d vs 5000: %s\n%s" % (
                page, cql, first_difference(whole, reference)))
        for keyspace in ("d1", "d3"):
            cl = rng.choice(LEVELS[keyspace])
            spread = rng.random() < 0.3
            got = run(session, cql.format(ks=keyspace), page, cl,
                      hosts if spread else None, rng)
            compared += 1
            if got != reference:
                mismatches.append(
                    "%s at %s, page size %d%s: %s\n%s" % (
                        keyspace, ConsistencyLevel.value_to_name[cl], page,
                        ", pages from random coordinators" if spread else "",
                        cql, first_difference(reference, got)))
    return mismatches, compared, kinds


def test_cluster_reads_match_one_node():
    rng = random.Random(SEED)
    print("differential seed %d: KEYWISE_DIFF_SEED=%d reproduces it" %
          (SEED, SEED))
    tables, statements = differential_data.generate(SEED, SCALE)
    node = conftest.Node()
    cluster = local_cluster.LocalCluster(3, conf=[
        "coordinator_read_batch_rows=%d" % BATCH_ROWS,
        "initial_tablets=2", "tablet_split_size_in_kb=48",
        "tablet_split_requests_per_second=0",
        "tablet_load_report_interval_in_ms=300",
        "tablet_balancer_interval_in_ms=100"])
    single_driver = conftest.driver_cluster(node)
    driver = cluster.driver()
    try:
        single = single_driver.connect()
        session = driver.connect()
        create_schema(single, "ks", 1, tables)
        create_schema(session, "d1", 1, tables)
        create_schema(session, "d3", 3, tables)
        apply(single, "ks", statements, ConsistencyLevel.ONE)
        for keyspace in ("d1", "d3"):
            apply(session, keyspace, statements, ConsistencyLevel.ALL)
        written = time.time()
        listing = wait_for_stable_tablets(cluster, ["d1", "d3"], tables)
        print(listing)
        print("%d tablet streams (moves) while loading" %
              cluster.count_in_logs("Streamed "))
        # Repair walks every tablet in batches; it must change nothing.
        cluster.admin("repair")
        time.sleep(max(0.0, written + 2.5 - time.time()))  # TTL 1 expired
        local_cluster.wait_for(
            lambda: len(driver.metadata.all_hosts()) == 3, 20,
            "the driver to know the 3 nodes")
        hosts = list(driver.metadata.all_hosts())
        mismatches, compared, kinds = compare_queries(
            single, session, hosts, tables, rng, QUERIES)
        assert not mismatches, (
            "seed %d (KEYWISE_DIFF_SEED=%d reproduces it): %d of %d cluster "
            "reads differ from one node:\n\n%s" % (
                SEED, SEED, len(mismatches), compared,
                "\n\n".join(mismatches[:10])))
        print("%d cluster reads matched one node (seed %d; %d queries "
              "answered rows, %d an error)" % (compared, SEED, kinds["rows"],
                                               kinds["error"]))
    finally:
        driver.shutdown()
        single_driver.shutdown()
        cluster.close()
        node.stop()


def test_truncate_empties_every_tablet():
    """TRUNCATE on a split table removes every row from every replica, and
    the table takes writes again."""
    cluster = local_cluster.LocalCluster(3, conf=[
        "coordinator_read_batch_rows=5", "initial_tablets=8"])
    driver = cluster.driver()
    try:
        session = driver.connect()
        insert = local_cluster.kv_table(session, "tr", 3, rows=300)
        count = SimpleStatement("SELECT count(*) FROM tr.t",
                                consistency_level=ConsistencyLevel.ALL)
        assert session.execute(count).one()[0] == 300
        session.execute("TRUNCATE tr.t")
        for cl in (ConsistencyLevel.ONE, ConsistencyLevel.ALL):
            rows = run(session, "SELECT k FROM tr.t", 7, cl)
            assert rows == ("rows", []), rows
        session.execute(insert, (5, "five"))
        assert run(session, "SELECT k, v FROM tr.t", 7,
                   ConsistencyLevel.ALL) == ("rows", [(5, "five")])
    finally:
        driver.shutdown()
        cluster.close()
