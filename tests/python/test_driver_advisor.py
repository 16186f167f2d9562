"""The key-design advisor through the Python driver (docs/advisor.md).
CREATE TABLE and ALTER TABLE return the schema lint's findings as protocol
warnings, which the driver exposes on the response future; the statement
itself succeeds. `schema_lint_enabled: false` in keywise.yaml switches
them off for the node. The findings of every table are in
system_views.key_advice, which `keywise advise` prints; the partitions
read and written most are in system_views.top_partitions, the SELECT
shapes run in system_views.query_shapes, and `keywise advise` turns them
into findings with their evidence and the statements that fix them."""

import subprocess
import time

from conftest import Node, create_keyspace, driver_cluster


def warnings_of(session, cql):
    future = session.execute_async(cql)
    future.result()
    return future.warnings or []


def test_lint_warnings_reach_the_driver(session):
    create_keyspace(session, "lint")
    warnings = warnings_of(
        session, "CREATE TABLE lint.events (ts timestamp PRIMARY KEY, v text)")
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("time-partition-key: the partition key "
                                  "of lint.events is a time"), warnings
    assert "PRIMARY KEY ((bucket), ts)" in warnings[0], warnings
    # The table exists: a warning is not an error.
    session.execute("INSERT INTO lint.events (ts, v) VALUES (0, 'a')")
    assert warnings_of(session, "CREATE TABLE lint.good (userid uuid, "
                       "ts timestamp, v text, PRIMARY KEY ((userid), ts))") \
        == []
    # ALTER TABLE warns about what it made worse.
    assert warnings_of(session, "CREATE TABLE lint.meters (meter_id int "
                       "PRIMARY KEY, value double)") == []
    warnings = warnings_of(session, "ALTER TABLE lint.meters ADD ts timestamp")
    assert [w.split(":")[0] for w in warnings] == [
        "history-without-clustering"], warnings
    assert warnings_of(session, "ALTER TABLE lint.meters WITH lint = false") \
        == []


def test_key_advice_and_keywise_advise(node, session):
    create_keyspace(session, "adv")
    session.execute("CREATE TABLE adv.orders (status boolean, id int, "
                    "PRIMARY KEY (status, id))")
    session.execute("CREATE TABLE adv.good (userid uuid, ts timestamp, "
                    "PRIMARY KEY ((userid), ts))")
    rows = list(session.execute(
        "SELECT table_name, rule, advice FROM system_views.key_advice "
        "WHERE keyspace_name = 'adv'"))
    assert [(r.table_name, r.rule) for r in rows] == [
        ("orders", "low-cardinality-partition-key")], rows
    assert "PRIMARY KEY ((status, bucket), id)" in rows[0].advice

    def advise(*args):
        return subprocess.run([node.binary, "advise", "127.0.0.1",
                               str(node.port), *args],
                              capture_output=True, text=True, timeout=30)
    out = advise("--keyspace", "adv")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(
        "1 finding in 1 table (workload statistics of 1 node):\n\n"
        "== adv.orders\n"), out.stdout
    assert "low-cardinality-partition-key: the partition key of adv.orders" \
        in out.stdout, out.stdout
    out = advise("--keyspace", "adv", "--table", "good")
    assert out.returncode == 0 and out.stdout == \
        "No findings for adv.good (workload statistics of 1 node).\n", out
    assert advise("--table", "good").returncode == 2
    # Dropping the table drops its advice.
    session.execute("DROP TABLE adv.orders")
    assert advise("--keyspace", "adv").stdout == \
        "No findings for the tables of adv (workload statistics of 1 " \
        "node).\n"


def test_lint_switched_off_for_the_node():
    node = Node(extra_config="schema_lint_enabled: false\n")
    cluster = driver_cluster(node)
    try:
        session = cluster.connect()
        create_keyspace(session, "quiet")
        assert warnings_of(session, "CREATE TABLE quiet.events "
                           "(ts timestamp PRIMARY KEY, v text)") == []
    finally:
        cluster.shutdown()
        node.stop()


def test_top_partitions_show_a_hot_partition(session):
    create_keyspace(session, "hot")
    session.execute("CREATE TABLE hot.t (k int, c int, v int, "
                    "PRIMARY KEY (k, c))")
    insert = session.prepare("INSERT INTO hot.t (k, c, v) VALUES (?, ?, ?)")
    select = session.prepare("SELECT v FROM hot.t WHERE k = ? AND c = 0")
    # Partition 7 takes half of 400 writes; the rest are spread.
    for i in range(400):
        session.execute(insert, (7 if i % 2 == 0 else 1000 + i, i, i))
    for i in range(60):
        session.execute(select, (42 if i % 3 else i,))

    def top(op):
        return list(session.execute(
            "SELECT rank, partition_key, count, count_error, "
            "table_operations FROM system_views.top_partitions "
            "WHERE keyspace_name = 'hot' AND table_name = 't' AND op = %s",
            (op,)))
    deadline = time.time() + 10
    while time.time() < deadline and not top("read"):
        time.sleep(0.2)  # published every 2 s
    writes, reads = top("write"), top("read")
    assert writes[0].rank == 1 and writes[0].partition_key == "k = 7", writes
    assert writes[0].count - writes[0].count_error <= 200 <= writes[0].count
    assert writes[0].table_operations == 400, writes[0]
    assert len(writes) == 32, len(writes)  # WorkloadStats::kCounters
    assert reads[0].partition_key == "k = 42", reads
    assert reads[0].count >= 40 and reads[0].table_operations == 60, reads


def test_query_shapes_count_each_select_shape(session):
    create_keyspace(session, "shapes")
    session.execute("CREATE TABLE shapes.orders (seller int, id int, "
                    "buyer int, PRIMARY KEY (seller, id))")
    insert = session.prepare(
        "INSERT INTO shapes.orders (seller, id, buyer) VALUES (?, ?, ?)")
    for i in range(200):
        session.execute(insert, (i % 10, i, i % 50))
    by_key = session.prepare(
        "SELECT buyer FROM shapes.orders WHERE seller = ? AND id = ?")
    for i in range(30):
        session.execute(by_key, (i % 10, i))
    # Literals and markers make the same shape; relation order does not
    # matter either.
    for buyer in range(5):
        session.execute("SELECT id FROM shapes.orders WHERE buyer = %d "
                        "ALLOW FILTERING" % buyer)
    session.execute("SELECT id FROM shapes.orders WHERE id > 5 AND seller = 1 "
                    "ORDER BY id DESC")

    def shapes():
        return {r.shape: r for r in session.execute(
            "SELECT shape, access, executions, rows_read, rows_returned, "
            "mean_latency_ms, p50_latency_ms, p99_latency_ms FROM "
            "system_views.query_shapes WHERE keyspace_name = 'shapes' AND "
            "table_name = 'orders'")}
    deadline = time.time() + 10
    while time.time() < deadline and len(shapes()) < 3:
        time.sleep(0.2)  # published every 2 s
    got = shapes()
    assert sorted(got) == [
        "WHERE buyer = ? ALLOW FILTERING",
        "WHERE seller = ? AND id = ?",
        "WHERE seller = ? AND id > ? ORDER BY id DESC"], sorted(got)
    get = got["WHERE seller = ? AND id = ?"]
    assert (get.access, get.executions, get.rows_read, get.rows_returned) == \
        ("GET", 30, 30, 30), get
    assert 0 < get.p50_latency_ms <= get.p99_latency_ms
    scan = got["WHERE buyer = ? ALLOW FILTERING"]
    # Each of the 5 filtering scans reads all 200 rows to return 4.
    assert (scan.access, scan.executions, scan.rows_read,
            scan.rows_returned) == ("FULL SCAN", 5, 1000, 20), scan
    desc = got["WHERE seller = ? AND id > ? ORDER BY id DESC"]
    # Seller 1 has ids 1, 11, ..., 191: 19 of them above 5.
    assert (desc.access, desc.rows_read, desc.rows_returned) == \
        ("SCAN", 19, 19), desc


def advise_output(node, *args):
    out = subprocess.run([node.binary, "advise", "127.0.0.1", str(node.port),
                          *args], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_advise_finds_a_filtering_scan_and_its_fixes_work(node, session):
    create_keyspace(session, "wl")
    session.execute("CREATE TABLE wl.orders (seller int, id int, buyer int, "
                    "PRIMARY KEY (seller, id))")
    insert = session.prepare(
        "INSERT INTO wl.orders (seller, id, buyer) VALUES (?, ?, ?)")
    for i in range(300):
        session.execute(insert, (i % 10, i, i % 30))
    by_buyer = session.prepare(
        "SELECT id FROM wl.orders WHERE buyer = ? ALLOW FILTERING")
    for i in range(100):
        session.execute(by_buyer, (i % 30,))
    for i in range(20):
        session.execute("SELECT buyer FROM wl.orders WHERE seller = 1 AND "
                        "id = %d" % i)
    deadline = time.time() + 10
    out = ""
    while time.time() < deadline and "filtering-scan" not in out:
        time.sleep(0.3)  # the statistics are published every 2 s
        out = advise_output(node, "--keyspace", "wl")
    assert "filtering-scan: 83% of the SELECTs on wl.orders (100 of 120) " \
        "are `WHERE buyer = ? ALLOW FILTERING`, run as a FULL SCAN: they " \
        "read 30 rows per row returned" in out, out
    fixes = [line.strip() for line in out.splitlines()
             if line.startswith("  CREATE ")]
    assert fixes == [
        "CREATE INDEX ON wl.orders (buyer);",
        "CREATE MATERIALIZED VIEW wl.orders_by_buyer AS SELECT * FROM "
        "wl.orders WHERE buyer IS NOT NULL AND seller IS NOT NULL AND id IS "
        "NOT NULL PRIMARY KEY ((buyer), seller, id);"], out
    # The statements it suggests run, and serve the query.
    for fix in fixes:
        session.execute(fix)
    deadline = time.time() + 30
    while True:
        try:
            rows = list(session.execute(
                "SELECT id FROM wl.orders WHERE buyer = 7"))
            break
        except Exception:  # the index is being built
            assert time.time() < deadline
            time.sleep(0.2)
    assert sorted(r.id for r in rows) == list(range(7, 300, 30))
    view = list(session.execute(
        "SELECT id FROM wl.orders_by_buyer WHERE buyer = 7"))
    assert sorted(r.id for r in view) == list(range(7, 300, 30))


def test_advise_finds_reversed_reads_and_a_hot_partition(node, session):
    create_keyspace(session, "wl2")
    session.execute("CREATE TABLE wl2.events (host int, ts int, v int, "
                    "PRIMARY KEY (host, ts))")
    insert = session.prepare(
        "INSERT INTO wl2.events (host, ts, v) VALUES (?, ?, ?)")
    for i in range(200):
        session.execute(insert, (1 if i % 2 else i, i, i))
    latest = session.prepare(
        "SELECT v FROM wl2.events WHERE host = ? ORDER BY ts DESC LIMIT 1")
    for i in range(100):
        session.execute(latest, (i,))
    deadline = time.time() + 10
    out = ""
    # Statistics are published every 2 s and on reads: one taken during
    # the inserts shows the hot partition before the reads are counted.
    while time.time() < deadline and not (
            "hot-partition" in out and "reversed-reads" in out):
        time.sleep(0.3)
        out = advise_output(node, "--keyspace", "wl2", "--table", "events")
    assert "reversed-reads: 100% of the SELECTs on wl2.events (100 of 100) " \
        "read partitions against their clustering order (ORDER BY ts DESC, " \
        "declared ts ASC)" in out, out
    assert "\n  ALTER TABLE wl2.events WITH PRIMARY KEY ((host), ts) AND " \
        "CLUSTERING ORDER BY (ts DESC);\n" in out, out
    assert "hot-partition: the partition `host = 1` took 50% of the writes " \
        "of wl2.events (100 of 200)" in out, out
    # The what-if it suggests runs against the table's rows.
    command = "keywise advise --keyspace wl2 --table events --key " \
        "'((host, bucket%8), ts)'"
    assert "\n  " + command + "\n" in out + "\n", out
    what_if = advise_output(node, "--keyspace", "wl2", "--table", "events",
                            "--key", "((host, bucket%8), ts)")
    assert what_if.startswith("What-if for wl2.events: today's key ((host), "
                              "ts), proposed ((host, bucket%8), ts)\n"), \
        what_if
    # The key change it suggests runs; reads then go forwards.
    session.execute("ALTER TABLE wl2.events WITH PRIMARY KEY ((host), ts) "
                    "AND CLUSTERING ORDER BY (ts DESC)")


def test_truncate_resets_the_statistics_and_nothing_else(session):
    create_keyspace(session, "rst")
    session.execute("CREATE TABLE rst.t (k int PRIMARY KEY, v int)")
    for i in range(20):
        session.execute("INSERT INTO rst.t (k, v) VALUES (%d, 0)" % i)
        session.execute("SELECT v FROM rst.t WHERE k = %d" % i)

    def counted():
        return len(list(session.execute(
            "SELECT shape FROM system_views.query_shapes WHERE "
            "keyspace_name = 'rst'"))) + len(list(session.execute(
                "SELECT rank FROM system_views.top_partitions WHERE "
                "keyspace_name = 'rst'")))
    deadline = time.time() + 10
    while time.time() < deadline and counted() == 0:
        time.sleep(0.2)
    assert counted() > 0
    session.execute("TRUNCATE system_views.top_partitions")
    session.execute("TRUNCATE system_views.query_shapes")
    deadline = time.time() + 10
    while time.time() < deadline and counted() != 0:
        time.sleep(0.2)  # a publication under way may land once more
    assert counted() == 0
    # The node's own tables and the other virtual tables are refused.
    for table, error in [
            ("system.local", "system keyspace is not user-modifiable."),
            ("system_schema.tables",
             "system_schema keyspace is not user-modifiable."),
            ("system_views.settings",
             "Error during truncate: Cannot truncate virtual tables")]:
        try:
            session.execute("TRUNCATE " + table)
            assert False, table
        except Exception as e:  # Unauthorized or InvalidRequest
            assert error in str(e), (table, e)
    assert len(list(session.execute("SELECT * FROM system.local"))) == 1


def test_large_partitions_are_listed_and_logged():
    # A 1 MiB memtable, so that the rows below reach a table file, and a
    # row threshold of 200.
    node = Node(extra_config="memtable_size_in_mb: 1\n"
                "compaction_large_partition_rows_warning_threshold: 200\n")
    cluster = driver_cluster(node)
    try:
        session = cluster.connect()
        create_keyspace(session, "big")
        session.execute("CREATE TABLE big.t (k int, c int, v blob, "
                        "PRIMARY KEY (k, c))")
        insert = session.prepare("INSERT INTO big.t (k, c, v) VALUES (?, ?, ?)")
        for c in range(400):
            session.execute(insert, (1, c, b"x" * 4096))
        for k in range(2, 50):
            session.execute(insert, (k, 0, b"y"))

        def large():
            return list(session.execute(
                "SELECT table_name, partition_key, size_in_bytes, rows, "
                "limit_passed FROM system_views.large_partitions WHERE "
                "keyspace_name = 'big'"))
        deadline = time.time() + 20
        while time.time() < deadline and not large():
            time.sleep(0.3)
        rows = large()
        assert len(rows) == 1, rows
        row = rows[0]
        assert (row.table_name, row.partition_key) == ("t", "k = 1"), row
        assert row.rows >= 200 and row.size_in_bytes >= 200 * 4096, row
        assert row.limit_passed == \
            "compaction_large_partition_rows_warning_threshold = 200", row
        assert "Large partition big.t (k = 1): " in node.output()
        # A write to it is warned about, naming the limit; others are not.
        warned = warnings_of(session, "INSERT INTO big.t (k, c, v) VALUES "
                             "(1, 1000, 0x00)")
        assert len(warned) == 1, warned
        assert warned[0].startswith("Writing to large partition big.t "
                                    "(k = 1): it holds "), warned
        assert "past compaction_large_partition_rows_warning_threshold = " \
            "200. A partition is never split" in warned[0], warned
        assert warnings_of(session, "INSERT INTO big.t (k, c, v) VALUES "
                           "(2, 1, 0x00)") == []
        warned = warnings_of(session, "BEGIN UNLOGGED BATCH INSERT INTO big.t "
                             "(k, c, v) VALUES (1, 1001, 0x00); INSERT INTO "
                             "big.t (k, c, v) VALUES (1, 1002, 0x00); APPLY "
                             "BATCH")
        assert [w.split(":")[0] for w in warned] == [
            "Writing to large partition big.t (k = 1)"], warned
        out = subprocess.run([node.binary, "advise", "127.0.0.1",
                              str(node.port), "--keyspace", "big"],
                             capture_output=True, text=True, timeout=30)
        assert "large-partition: the partition `k = 1` of big.t holds " \
            in out.stdout, out
        assert "PRIMARY KEY ((k, bucket), c)." in out.stdout, out
    finally:
        cluster.shutdown()
        node.stop()


def test_key_heatmap_shows_the_hot_range(session):
    create_keyspace(session, "heat")
    session.execute("CREATE TABLE heat.t (k int, c int, PRIMARY KEY (k, c))")
    insert = session.prepare("INSERT INTO heat.t (k, c) VALUES (?, ?)")
    # 200 writes to partition 7, 100 spread over 100 partitions.
    for i in range(300):
        session.execute(insert, (7 if i < 200 else 1000 + i, i))
    token = list(session.execute(
        "SELECT token(k) FROM heat.t WHERE k = 7 LIMIT 1"))[0][0]
    # The first token of the sixty-fourth of the ring that holds it.
    hot_start = (((token + 2**63) >> 58) << 58) - 2**63

    def cells():
        return list(session.execute(
            "SELECT time, range_start, range_end, reads, writes, "
            "bytes_written FROM "
            "system_views.key_heatmap WHERE keyspace_name = 'heat' AND "
            "table_name = 't'"))
    deadline = time.time() + 10
    while time.time() < deadline and \
            sum(c.writes for c in cells()) < 300:
        time.sleep(0.2)  # published every 2 s
    got = cells()
    assert sum(c.writes for c in got) == 300, got
    for c in got:
        assert c.range_end == c.range_start + 2**58 - 1, c
    # Each write is its key (4 bytes), clustering (4), row marker (8) and
    # no cells.
    assert sum(c.bytes_written for c in got) == 300 * 16, got
    by_range = {}
    for c in got:
        by_range[c.range_start] = by_range.get(c.range_start, 0) + c.writes
    hottest = max(by_range, key=by_range.get)
    assert hottest == hot_start and by_range[hottest] >= 200, by_range
    assert len(by_range) > 8, by_range  # the others spread over the ring
    # The SELECT token(k) above is one read of partition 7.
    assert sum(c.reads for c in got if c.range_start == hot_start) >= 1
