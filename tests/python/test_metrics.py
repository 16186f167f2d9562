"""The Prometheus endpoint of a node (docs/metrics.md): GET /metrics in
Prometheus' text format, parsed with the Prometheus client library's own
parser, whose figures move as a known workload runs; other paths and
methods are refused."""

import socket
import urllib.error
import urllib.request

import pytest
from cassandra import ConsistencyLevel, InvalidRequest
from cassandra.query import SimpleStatement

import metrics_util
from conftest import Node, create_keyspace, driver_cluster
from metrics_util import value


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def metrics_node():
    port = free_port()
    n = Node("metrics_port: %d\n" % port)
    n.metrics_url = "http://127.0.0.1:%d/metrics" % port
    yield n
    assert n.stop() == 0


def scrape(node):
    return metrics_util.scrape(node.metrics_url)


def test_request_counts_latency_errors_and_connections_move(metrics_node):
    cluster = driver_cluster(metrics_node)
    try:
        before = scrape(metrics_node)
        session = cluster.connect()
        create_keyspace(session, "metrics_ks")
        session.execute("CREATE TABLE metrics_ks.t (k int PRIMARY KEY, v int)")
        insert = session.prepare("INSERT INTO metrics_ks.t (k, v) VALUES (?, ?)")
        for i in range(50):
            session.execute(insert, (i, i))
        for i in range(20):
            session.execute("SELECT v FROM metrics_ks.t WHERE k = %d" % i)
        for _ in range(3):
            session.execute(SimpleStatement(
                "SELECT v FROM metrics_ks.t",
                consistency_level=ConsistencyLevel.QUORUM))
        with pytest.raises(InvalidRequest):
            session.execute("SELECT nope FROM metrics_ks.t")
        after = scrape(metrics_node)
    finally:
        cluster.shutdown()

    # Every error code's series exists from the start, at 0 until used.
    assert ("keywise_cql_errors_total", (("code", "Unavailable"),)) in before
    assert value(after, "keywise_cql_errors_total", code="Unavailable") == 0

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("keywise_cql_requests_total", opcode="EXECUTE") == 50
    assert moved("keywise_cql_requests_total", opcode="QUERY") >= 21
    assert moved("keywise_cql_requests_total", opcode="PREPARE") >= 1
    assert moved("keywise_cql_errors_total", code="Invalid") >= 1
    # Every request answered is in its opcode's latency histogram.
    for opcode in ("QUERY", "PREPARE", "EXECUTE", "STARTUP", "OPTIONS"):
        count = value(after, "keywise_cql_request_duration_seconds_count",
                      opcode=opcode)
        assert count == value(after, "keywise_cql_requests_total",
                              opcode=opcode)
        assert value(after, "keywise_cql_request_duration_seconds_bucket",
                     opcode=opcode, le="+Inf") == count
        assert value(after, "keywise_cql_request_duration_seconds_sum",
                     opcode=opcode) > 0
    # By operation and consistency level (the driver's default LOCAL_ONE),
    # and per table: 50 writes, 20 reads of one partition, 3 range scans.
    assert moved("keywise_client_request_duration_seconds_count",
                 op="write", consistency="LOCAL_ONE") == 50
    assert moved("keywise_client_request_duration_seconds_count",
                 op="read", consistency="LOCAL_ONE") >= 20
    assert moved("keywise_client_request_duration_seconds_count",
                 op="range", consistency="QUORUM") == 3
    assert value(after, "keywise_client_request_timeouts_total",
                 op="read") == 0
    table = dict(keyspace="metrics_ks", table="t")
    assert value(after, "keywise_table_request_duration_seconds_count",
                 op="write", **table) == 50
    assert value(after, "keywise_table_request_duration_seconds_count",
                 op="read", **table) == 20
    assert value(after, "keywise_table_request_duration_seconds_count",
                 op="range", **table) == 3
    assert value(after, "keywise_table_request_duration_seconds_bucket",
                 op="write", le="+Inf", **table) == 50
    assert value(after, "keywise_table_disk_bytes", **table) > 0
    # The transport's own answers are counted too, and the bytes.
    assert moved("keywise_cql_requests_total", opcode="STARTUP") >= 1
    assert moved("keywise_cql_requests_total", opcode="REGISTER") >= 1
    assert moved("keywise_cql_received_bytes_total") > 50 * 20
    assert moved("keywise_cql_sent_bytes_total") > 70 * 9
    assert ("keywise_cql_requests_in_flight", ()) in after
    # The driver holds connections open while it runs.
    assert value(after, "keywise_cql_connections") >= 1
    # The writes are in the memtables; nothing stops writes.
    assert value(after, "keywise_storage_memtable_bytes") > 0
    assert value(after, "keywise_storage_writes_stopped") == 0
    for name in ("keywise_storage_block_cache_hits_total",
                 "keywise_storage_block_cache_misses_total",
                 "keywise_storage_flush_written_bytes_total"):
        assert (name, ()) in after


def test_other_paths_and_methods_are_refused(metrics_node):
    base = metrics_node.metrics_url.rsplit("/", 1)[0]
    # HEAD: GET's headers, no body.
    with urllib.request.urlopen(
            urllib.request.Request(metrics_node.metrics_url, method="HEAD"),
            timeout=10) as r:
        assert r.status == 200
        assert int(r.headers["Content-Length"]) > 100
        assert r.read() == b""
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(base + "/nope", timeout=10)
    assert e.value.code == 404
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(
            urllib.request.Request(metrics_node.metrics_url, data=b"x",
                                   method="POST"), timeout=10)
    assert e.value.code == 405
    # A client that sends garbage is dropped; the endpoint still serves.
    with socket.create_connection(
            ("127.0.0.1", int(metrics_node.metrics_url.split(":")[2].split("/")[0])),
            timeout=10) as s:
        s.sendall(b"\x00\x01garbage\r\n\r\n")
        s.recv(100)
    assert scrape(metrics_node)


def test_a_dropped_tables_series_go(metrics_node):
    cluster = driver_cluster(metrics_node)
    try:
        session = cluster.connect()
        create_keyspace(session, "metrics_drop")
        session.execute("CREATE TABLE metrics_drop.t (k int PRIMARY KEY)")
        session.execute("INSERT INTO metrics_drop.t (k) VALUES (1)")
        table = dict(keyspace="metrics_drop", table="t")
        assert value(scrape(metrics_node),
                     "keywise_table_request_duration_seconds_count",
                     op="write", **table) == 1
        session.execute("DROP TABLE metrics_drop.t")
        after = scrape(metrics_node)
        assert not [k for k in after if ("keyspace", "metrics_drop") in k[1]]
    finally:
        cluster.shutdown()


def test_the_same_figures_through_cql(metrics_node):
    """system_views.metrics holds what /metrics serves; the per-table
    tables are Cassandra 4.0's (coordinator_*_latency, disk_usage)."""
    cluster = driver_cluster(metrics_node)
    try:
        session = cluster.connect()
        create_keyspace(session, "metrics_cql")
        session.execute("CREATE TABLE metrics_cql.t (k int PRIMARY KEY, v int)")
        insert = session.prepare("INSERT INTO metrics_cql.t (k, v) VALUES (?, ?)")
        for i in range(30):
            session.execute(insert, (i, i))
        for i in range(10):
            session.execute("SELECT v FROM metrics_cql.t WHERE k = %d" % i)
        rows = {(r.name, r.labels): r.value for r in session.execute(
            "SELECT name, labels, value FROM system_views.metrics")}
        scraped = scrape(metrics_node)
        # Every family /metrics serves has its rows.
        key = ("keywise_table_request_duration_seconds_count",
               '{keyspace="metrics_cql",table="t",op="write"}')
        assert rows[key] == 30
        assert ("keywise_storage_memtable_bytes", "") in rows
        assert {k[0] for k in scraped} <= {n for n, _ in rows}
        one = session.execute(
            "SELECT value FROM system_views.metrics WHERE name = %s",
            ["keywise_client_request_duration_seconds_count"]).all()
        assert one and all(r.value >= 0 for r in one)

        writes = session.execute(
            "SELECT * FROM system_views.coordinator_write_latency "
            "WHERE keyspace_name = 'metrics_cql' AND table_name = 't'").one()
        assert writes.count == 30
        assert 0 < writes.p50th_ms <= writes.p99th_ms <= writes.max_ms
        reads = session.execute(
            "SELECT count FROM system_views.coordinator_read_latency "
            "WHERE keyspace_name = 'metrics_cql'").one()
        assert reads.count == 10
        disk = session.execute(
            "SELECT mebibytes FROM system_views.disk_usage "
            "WHERE keyspace_name = 'metrics_cql' AND table_name = 't'").one()
        assert disk is not None and disk.mebibytes >= 1
    finally:
        cluster.shutdown()
