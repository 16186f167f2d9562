"""EXPLAIN and EXPLAIN ANALYZE (a Keywise extension, docs/cql_extensions.md)
through the DataStax Python driver: an ordinary result set of (step,
detail) rows, for every access path, prepared with markers, paged by the
driver, and with the same errors as the statement explained."""

import pytest
from cassandra import InvalidRequest
from cassandra.protocol import SyntaxException
from cassandra.query import BatchStatement, SimpleStatement

from conftest import create_keyspace

KS = "explain_ks"


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, KS)
    session.set_keyspace(KS)
    session.execute("CREATE TABLE IF NOT EXISTS t (k int, c int, v int, "
                    "s int static, PRIMARY KEY (k, c))")
    session.execute("CREATE TABLE IF NOT EXISTS d (k int, a int, v int, "
                    "PRIMARY KEY (k, a)) WITH CLUSTERING ORDER BY (a DESC)")
    ins = session.prepare("INSERT INTO t (k, c, v) VALUES (?, ?, ?)")
    for k in range(10):
        for c in range(100):
            session.execute(ins, (k, c, c % 100))
    return session


def explain(session, query, *args):
    return [(r.step, r.detail) for r in session.execute(query, args or None)]


def steps(lines):
    return [step for step, _ in lines]


def detail(lines, step):
    return dict(lines)[step]


def test_result_is_rows_of_step_and_detail(ks):
    result = ks.execute("EXPLAIN SELECT * FROM t WHERE k = 1 AND c = 2")
    assert result.column_names == ["step", "detail"]
    lines = [(r.step, r.detail) for r in result]
    assert lines[0] == ("GET", "explain_ks.t: the row k = 1 AND c = 2")
    assert detail(lines, "PARTITIONS") == "1"


@pytest.mark.parametrize("query,access,partitions", [
    ("SELECT * FROM t WHERE k = 1 AND c = 2", "GET", "1"),
    ("SELECT * FROM t WHERE k = 1 AND c IN (1, 2, 3)", "MULTI-GET", "1"),
    ("SELECT * FROM t WHERE k = 1 AND c > 5", "SCAN", "1"),
    ("SELECT * FROM t WHERE k IN (1, 2, 3)", "MULTI-PARTITION", "N = 3"),
    ("SELECT * FROM t", "FULL SCAN", "all"),
    ("SELECT * FROM t WHERE token(k) > 0", "FULL SCAN", "N (those in the token range)"),
])
def test_every_access_path(ks, query, access, partitions):
    lines = explain(ks, "EXPLAIN " + query)
    assert lines[0][0] == access
    assert detail(lines, "PARTITIONS") == partitions


def test_scan_shows_bounds_and_direction(ks):
    lines = explain(ks, "EXPLAIN SELECT * FROM t WHERE k = 1 AND c >= 10 AND c < 20 "
                        "ORDER BY c DESC")
    assert lines[0] == ("SCAN", "explain_ks.t: partition k = 1, clustering c >= 10 "
                                "AND c < 20, ordered by c DESC, read backwards")
    lines = explain(ks, "EXPLAIN SELECT * FROM d WHERE k = 1")
    assert lines[0] == ("SCAN", "explain_ks.d: partition k = 1, every row, "
                                "ordered by a DESC")


def test_filter_limit_and_paging(ks):
    lines = explain(ks, "EXPLAIN SELECT * FROM t WHERE v = 3 LIMIT 10 ALLOW FILTERING")
    assert steps(lines) == ["FULL SCAN", "FILTER", "LIMIT", "PAGING", "PARTITIONS"]
    assert detail(lines, "FILTER").startswith("v = 3")
    assert detail(lines, "LIMIT") == "10"
    # The driver's fetch size is the page size the plan reports.
    stmt = SimpleStatement("EXPLAIN SELECT * FROM t WHERE k = 1", fetch_size=50)
    lines = [(r.step, r.detail) for r in ks.execute(stmt)]
    assert detail(lines, "PAGING").startswith("pages of 50 rows")


def test_prepared_explain_with_markers(ks):
    prepared = ks.prepare("EXPLAIN SELECT * FROM t WHERE k IN ? AND c = ? LIMIT ?")
    assert [c[2] for c in prepared.result_metadata] == ["step", "detail"]
    lines = [(r.step, r.detail) for r in ks.execute(prepared, ([1, 2, 3, 4], 5, 7))]
    assert lines[0][0] == "MULTI-PARTITION"
    assert detail(lines, "LIMIT") == "7"
    assert detail(lines, "PARTITIONS") == "N = 4"


def test_analyze_shows_filtering_cost(ks):
    # 1,000 rows are read to return the 10 with v = 3.
    lines = explain(ks, "EXPLAIN ANALYZE SELECT * FROM t WHERE v = 3 ALLOW FILTERING")
    assert detail(lines, "partitions read") == "10"
    assert detail(lines, "rows read") == "1000"
    assert detail(lines, "rows returned") == "10"
    assert detail(lines, "tombstones skipped") == "0"
    assert detail(lines, "time").endswith(" ms")
    assert float(detail(lines, "time").split()[0]) >= 0


def test_analyze_reads_every_page(ks):
    # Smaller pages than the result: ANALYZE still runs to the end.
    stmt = SimpleStatement("EXPLAIN ANALYZE SELECT * FROM t WHERE k IN (1, 2)",
                           fetch_size=7)
    lines = [(r.step, r.detail) for r in ks.execute(stmt)]
    assert detail(lines, "rows returned") == "200"
    assert detail(lines, "partitions read") == "2"


def test_analyze_counts_tombstones(ks):
    ks.execute("INSERT INTO t (k, c, v) VALUES (50, 1, 1)")
    ks.execute("INSERT INTO t (k, c, v) VALUES (50, 2, 2)")
    ks.execute("DELETE FROM t WHERE k = 50 AND c = 1")
    lines = explain(ks, "EXPLAIN ANALYZE SELECT * FROM t WHERE k = 50")
    assert detail(lines, "rows returned") == "1"
    assert detail(lines, "tombstones skipped") == "1"


def test_explain_write_does_not_write_analyze_does(ks):
    lines = explain(ks, "EXPLAIN UPDATE t SET v = 7 WHERE k = 60 AND c IN (1, 2)")
    assert lines[0][0] == "UPDATE"
    assert detail(lines, "READ BEFORE WRITE").startswith("none")
    assert list(ks.execute("SELECT * FROM t WHERE k = 60")) == []
    lines = explain(ks, "EXPLAIN ANALYZE UPDATE t SET v = 7 WHERE k = 60 AND c IN (1, 2)")
    assert detail(lines, "rows written") == "2"
    assert [r.v for r in ks.execute("SELECT v FROM t WHERE k = 60")] == [7, 7]


def test_explain_batch(ks):
    lines = explain(ks, "EXPLAIN BEGIN UNLOGGED BATCH "
                        "INSERT INTO t (k, c, v) VALUES (1, 1, 1); "
                        "DELETE FROM t WHERE k = 2 AND c > 5; APPLY BATCH")
    assert steps(lines) == ["BATCH", "1: INSERT", "2: DELETE", "READ BEFORE WRITE",
                            "PARTITIONS"]
    assert detail(lines, "BATCH").startswith("UNLOGGED, 2 statements")


def test_same_errors_as_the_statement(ks):
    with pytest.raises(InvalidRequest, match="ALLOW FILTERING"):
        ks.execute("EXPLAIN SELECT * FROM t WHERE v = 3")
    with pytest.raises(InvalidRequest, match="unconfigured table nope"):
        ks.execute("EXPLAIN ANALYZE SELECT * FROM nope")
    with pytest.raises(SyntaxException, match="EXPLAIN supports SELECT"):
        ks.execute("EXPLAIN DROP TABLE t")


def test_explain_is_not_allowed_in_a_protocol_batch(ks):
    prepared = ks.prepare("EXPLAIN INSERT INTO t (k, c, v) VALUES (?, ?, ?)")
    batch = BatchStatement()
    batch.add(prepared, (1, 1, 1))
    with pytest.raises(InvalidRequest, match="only UPDATE, INSERT and DELETE"):
        ks.execute(batch)
