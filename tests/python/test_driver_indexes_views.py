"""Secondary indexes and materialized views on one node through the
DataStax Python driver: what the driver's schema metadata makes of
system_schema.indexes / .views (and the events that keep it current),
queries through an index with prepared statements, paging and every
consistency level a single node accepts, prepared statements across
CREATE / DROP INDEX, views read with paging and refused as write targets,
indexes and views kept equal to their base under concurrent writes, and
the buyer / seller / order example served by two views.

Everything here would pass against Apache Cassandra 4 with materialized
views enabled, except the tests named *_keywise_only (ScyllaDB's local
indexes and EXPLAIN). Where Cassandra builds an index or view in the
background, the tests create it before writing, or wait for it."""

import random
import re
import threading
import time
import uuid
from datetime import datetime as dt
from datetime import timedelta
from decimal import Decimal

import pytest
from cassandra import AlreadyExists, ConsistencyLevel, InvalidRequest
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.metadata import IndexMetadata, MaterializedViewMetadata
from cassandra.query import BatchStatement, SimpleStatement

from conftest import create_keyspace, driver_cluster

FILTERING = ("Cannot execute this query as it might involve data filtering and "
             "thus may have unpredictable performance. If you want to execute "
             "this query despite the performance unpredictability, use ALLOW FILTERING")
VIEW_WRITE = "Cannot directly modify a materialized view"


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def record_events(cluster):
    """The SCHEMA_CHANGE events `cluster`'s control connection receives
    (as test_driver_events.py: the driver has no public schema listener)."""
    events = []
    control = cluster.control_connection
    handle = control._handle_schema_change

    def recording(event):
        events.append((event["target_type"], event["change_type"],
                       event.get("keyspace"), event.get("table")))
        return handle(event)

    control._handle_schema_change = recording
    return events


def paged(session, query, args=None, fetch_size=7, consistency=None):
    """Every row of `query`, read `fetch_size` rows per page; asserts the
    driver really paged when the result is larger than a page."""
    if isinstance(query, str):
        statement = SimpleStatement(query, fetch_size=fetch_size)
    else:
        statement = query.bind(args or ())
        statement.fetch_size = fetch_size
        args = None
    if consistency is not None:
        statement.consistency_level = consistency
    result = session.execute(statement, args)
    rows = []
    pages = 0
    while True:
        pages += 1
        rows.extend(result.current_rows)
        if not result.has_more_pages:
            break
        result.fetch_next_page()
    assert pages >= len(rows) // fetch_size, (pages, len(rows))
    return rows


# ---- Schema metadata ----

def test_index_metadata_follows_create_and_drop(cluster, session):
    ks = create_keyspace(session, "iv_idx_md")
    session.execute("CREATE TABLE iv_idx_md.t (k int, c int, v int, w text, "
                    "f frozen<set<int>>, PRIMARY KEY (k, c))")
    session.execute("CREATE INDEX v_idx ON iv_idx_md.t (v)")
    session.execute("CREATE INDEX ON iv_idx_md.t (full(f))")  # default name
    session.execute("CREATE INDEX IF NOT EXISTS ON iv_idx_md.t (c)")

    md = cluster.metadata.keyspaces[ks]
    table = md.tables["t"]
    assert set(md.indexes) == {"v_idx", "t_f_idx", "t_c_idx"}
    assert set(table.indexes) == set(md.indexes)
    expected = {"v_idx": "v", "t_f_idx": "full(f)", "t_c_idx": "c"}
    for name, target in expected.items():
        index = table.indexes[name]
        assert isinstance(index, IndexMetadata)
        assert md.indexes[name] is index
        assert (index.keyspace_name, index.table_name, index.name) == (ks, "t", name)
        assert index.kind == "COMPOSITES"
        assert dict(index.index_options) == {"target": target}
        assert index.as_cql_query() == "CREATE INDEX %s ON %s.t (%s)" % (name, ks, target)

    # The rows the driver read them from.
    rows = session.execute("SELECT index_name, kind, options FROM system_schema.indexes "
                           "WHERE keyspace_name = %s AND table_name = 't'", (ks,))
    assert {r.index_name: (r.kind, dict(r.options)) for r in rows} == \
        {n: ("COMPOSITES", {"target": t}) for n, t in expected.items()}

    # Cassandra's refusals: a taken name, an index equal to another.
    with pytest.raises(InvalidRequest, match="Index 'v_idx' already exists"):
        session.execute("CREATE INDEX v_idx ON iv_idx_md.t (w)")
    with pytest.raises(InvalidRequest,
                       match="Index t_v_idx is a duplicate of existing index v_idx"):
        session.execute("CREATE INDEX ON iv_idx_md.t (v)")
    session.execute("CREATE INDEX IF NOT EXISTS v_idx ON iv_idx_md.t (w)")  # no-op
    assert set(cluster.metadata.keyspaces[ks].indexes) == set(expected)

    # DROP INDEX (by qualified name): gone from the keyspace and the table.
    session.execute("DROP INDEX iv_idx_md.v_idx")
    md = cluster.metadata.keyspaces[ks]
    assert set(md.indexes) == {"t_f_idx", "t_c_idx"}
    assert set(md.tables["t"].indexes) == {"t_f_idx", "t_c_idx"}
    with pytest.raises(InvalidRequest, match="Index 'iv_idx_md.v_idx' doesn't exist"):
        session.execute("DROP INDEX iv_idx_md.v_idx")
    session.execute("DROP INDEX IF EXISTS iv_idx_md.v_idx")
    session.execute("DROP TABLE iv_idx_md.t")
    assert cluster.metadata.keyspaces[ks].indexes == {}


def create_view_schema(session, ks):
    session.execute("CREATE TABLE %s.t (k int, c int, v int, w text, "
                    "tags frozen<set<text>>, PRIMARY KEY (k, c))" % ks)
    session.execute("CREATE INDEX w_idx ON %s.t (w)" % ks)
    session.execute("CREATE MATERIALIZED VIEW %s.by_v AS SELECT * FROM %s.t "
                    "WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (v, k, c) WITH CLUSTERING ORDER BY (k DESC, c ASC) "
                    "AND comment = 'by v'" % (ks, ks))
    session.execute("CREATE MATERIALIZED VIEW %s.by_ck AS SELECT c, k, w FROM %s.t "
                    "WHERE c IS NOT NULL AND k IS NOT NULL "
                    "PRIMARY KEY ((c, k))" % (ks, ks))


def test_view_metadata(cluster, session):
    ks = create_keyspace(session, "iv_view_md")
    create_view_schema(session, ks)
    md = cluster.metadata.keyspaces[ks]
    assert set(md.views) == {"by_v", "by_ck"}
    assert set(md.tables) == {"t"}  # views are not tables to the driver
    assert set(md.tables["t"].views) == {"by_v", "by_ck"}

    view = md.views["by_v"]
    assert isinstance(view, MaterializedViewMetadata)
    assert md.tables["t"].views["by_v"] is view
    assert (view.keyspace_name, view.name, view.base_table_name) == (ks, "by_v", "t")
    assert view.include_all_columns is True
    assert view.where_clause == "v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL"
    assert [c.name for c in view.partition_key] == ["v"]
    assert [c.name for c in view.clustering_key] == ["k", "c"]
    assert [c.is_reversed for c in view.clustering_key] == [True, False]
    assert list(view.columns)[:3] == ["v", "k", "c"]
    assert {n: c.cql_type for n, c in view.columns.items()} == {
        "v": "int", "k": "int", "c": "int", "w": "text", "tags": "frozen<set<text>>"}
    assert not any(c.is_static for c in view.columns.values())
    assert view.options["comment"] == "by v"

    view = md.views["by_ck"]
    assert view.include_all_columns is False
    assert view.where_clause == "c IS NOT NULL AND k IS NOT NULL"
    assert [c.name for c in view.partition_key] == ["c", "k"]
    assert view.clustering_key == []
    assert set(view.columns) == {"c", "k", "w"}

    # The view's columns are in system_schema.columns under its name.
    rows = session.execute("SELECT column_name, kind, position, clustering_order "
                           "FROM system_schema.columns WHERE keyspace_name = %s "
                           "AND table_name = 'by_v'", (ks,))
    assert {r.column_name: (r.kind, r.position, r.clustering_order) for r in rows} == {
        "v": ("partition_key", 0, "none"), "k": ("clustering", 0, "desc"),
        "c": ("clustering", 1, "asc"), "w": ("regular", -1, "none"),
        "tags": ("regular", -1, "none")}
    row = session.execute("SELECT base_table_name, include_all_columns, where_clause "
                          "FROM system_schema.views WHERE keyspace_name = %s "
                          "AND view_name = 'by_ck'", (ks,)).one()
    assert (row.base_table_name, row.include_all_columns, row.where_clause) == \
        ("t", False, "c IS NOT NULL AND k IS NOT NULL")

    # ALTER MATERIALIZED VIEW reaches the metadata; ALTER TABLE is refused.
    session.execute("ALTER MATERIALIZED VIEW %s.by_v WITH comment = 'changed' "
                    "AND gc_grace_seconds = 3600" % ks)
    view = cluster.metadata.keyspaces[ks].views["by_v"]
    assert view.options["comment"] == "changed"
    assert view.options["gc_grace_seconds"] == 3600
    with pytest.raises(InvalidRequest, match="Cannot use ALTER TABLE on"):
        session.execute("ALTER TABLE %s.by_v WITH comment = 'x'" % ks)

    # DROP MATERIALIZED VIEW: gone from the keyspace and from the table.
    session.execute("DROP MATERIALIZED VIEW %s.by_ck" % ks)
    md = cluster.metadata.keyspaces[ks]
    assert set(md.views) == {"by_v"}
    assert set(md.tables["t"].views) == {"by_v"}
    with pytest.raises(InvalidRequest,
                       match="Materialized view '%s.by_ck' doesn't exist" % ks):
        session.execute("DROP MATERIALIZED VIEW %s.by_ck" % ks)
    session.execute("DROP MATERIALIZED VIEW IF EXISTS %s.by_ck" % ks)


def test_view_with_key_restrictions(cluster, session):
    """A view's WHERE clause may restrict base key columns: only the rows
    that match are in it, and drivers see the clause as written."""
    ks = create_keyspace(session, "iv_view_where")
    session.execute("CREATE TABLE %s.t (k int, c int, v text, "
                    "PRIMARY KEY (k, c))" % ks)
    insert = session.prepare("INSERT INTO %s.t (k, c, v) VALUES (?, ?, ?)" % ks)
    for k in range(4):
        for c in range(4):
            session.execute(insert, (k, c, "v%d%d" % (k, c)))
    session.execute("CREATE MATERIALIZED VIEW %s.recent AS SELECT * FROM %s.t "
                    "WHERE k IN (1, 2) AND c >= 2 AND v IS NOT NULL "
                    "PRIMARY KEY (v, k, c)" % (ks, ks))
    session.execute(insert, (2, 3, "new"))  # moves the view row
    session.execute(insert, (3, 3, "out"))  # k = 3: not in the view
    session.execute("DELETE FROM %s.t WHERE k = 1 AND c = 2" % ks)
    rows = sorted(tuple(r) for r in session.execute(
        "SELECT k, c, v FROM %s.recent" % ks))
    assert rows == [(1, 3, "v13"), (2, 2, "v22"), (2, 3, "new")]
    view = cluster.metadata.keyspaces[ks].views["recent"]
    assert view.where_clause == "k IN (1, 2) AND c >= 2 AND v IS NOT NULL"
    with pytest.raises(InvalidRequest, match="Non-primary key columns can "
                       "only be restricted with 'IS NOT NULL'"):
        session.execute("CREATE MATERIALIZED VIEW %s.bad AS SELECT * FROM "
                        "%s.t WHERE k IS NOT NULL AND c IS NOT NULL AND "
                        "v = 'x' PRIMARY KEY (c, k)" % (ks, ks))


def test_keyspace_export_with_indexes_and_views_recreates_everything(cluster, session):
    ks = create_keyspace(session, "iv_export")
    create_view_schema(session, ks)
    session.execute("CREATE INDEX ON iv_export.t (full(tags))")
    cql = cluster.metadata.keyspaces[ks].export_as_string()
    for part in ["CREATE TABLE iv_export.t (",
                 "CREATE INDEX w_idx ON iv_export.t (w);",
                 "CREATE INDEX t_tags_idx ON iv_export.t (full(tags));",
                 "CREATE MATERIALIZED VIEW iv_export.by_v AS\n    SELECT *\n"
                 "    FROM iv_export.t\n"
                 "    WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL\n"
                 "    PRIMARY KEY (v, k, c)\n"
                 "    WITH CLUSTERING ORDER BY (k DESC, c ASC)",
                 "AND comment = 'by v'",
                 "CREATE MATERIALIZED VIEW iv_export.by_ck AS\n    SELECT c, k, w\n",
                 "PRIMARY KEY ((c, k))"]:
        assert part in cql, part
    # Table, then its indexes, then its views: replaying the text in order
    # recreates the same schema.
    assert cql.index("CREATE TABLE") < cql.index("CREATE INDEX") < \
        cql.index("CREATE MATERIALIZED VIEW")
    # The driver writes default_time_to_live into a view's options, which
    # Cassandra 4.0 refuses even when 0 (its own DESCRIBE leaves it out
    # since 4.0.4, CASSANDRA-17266): drop it from the views to replay.
    ttl = "\n    AND default_time_to_live = 0"
    assert ttl in [s for s in cql.split(";") if "CREATE MATERIALIZED VIEW" in s][0]
    session.execute("DROP KEYSPACE iv_export")
    assert ks not in cluster.metadata.keyspaces
    for statement in cql.split(";"):
        if "CREATE MATERIALIZED VIEW" in statement:
            statement = statement.replace(ttl, "")
        if statement.strip():
            session.execute(statement)
    assert cluster.metadata.keyspaces[ks].export_as_string() == cql
    session.execute("DROP KEYSPACE iv_export")


@pytest.mark.parametrize("version", [5, 4])
def test_schema_change_events_update_another_clusters_metadata(node, session, version):
    ks = create_keyspace(session, "iv_events_v%d" % version)
    session.execute("CREATE TABLE %s.t (k int, c int, v int, PRIMARY KEY (k, c))" % ks)
    watcher = driver_cluster(node, protocol_version=version,
                             schema_event_refresh_window=0.05)
    try:
        watcher.connect()
        events = record_events(watcher)
        md = watcher.metadata

        session.execute("CREATE INDEX v_idx ON %s.t (v)" % ks)
        assert wait_for(lambda: "v_idx" in md.keyspaces[ks].tables["t"].indexes)
        assert md.keyspaces[ks].indexes["v_idx"].index_options["target"] == "v"

        session.execute("CREATE MATERIALIZED VIEW %s.mv AS SELECT k, c, v FROM %s.t "
                        "WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
                        "PRIMARY KEY (v, k, c)" % (ks, ks))
        assert wait_for(lambda: "mv" in md.keyspaces[ks].views)
        assert wait_for(lambda: "mv" in md.keyspaces[ks].tables["t"].views)
        assert md.keyspaces[ks].views["mv"].base_table_name == "t"

        session.execute("ALTER MATERIALIZED VIEW %s.mv WITH comment = 'seen'" % ks)
        assert wait_for(lambda: md.keyspaces[ks].views["mv"].options["comment"] == "seen")

        session.execute("DROP INDEX %s.v_idx" % ks)
        assert wait_for(lambda: md.keyspaces[ks].tables["t"].indexes == {})
        assert md.keyspaces[ks].indexes == {}
        # The base table's refresh keeps its view.
        assert "mv" in md.keyspaces[ks].tables["t"].views

        session.execute("DROP MATERIALIZED VIEW %s.mv" % ks)
        assert wait_for(lambda: md.keyspaces[ks].views == {})
        assert md.keyspaces[ks].tables["t"].views == {}

        # Cassandra 4: index changes are updates of the base table; a view
        # is a table to the protocol.
        assert events == [
            ("TABLE", "UPDATED", ks, "t"),
            ("TABLE", "CREATED", ks, "mv"),
            ("TABLE", "UPDATED", ks, "mv"),
            ("TABLE", "UPDATED", ks, "t"),
            ("TABLE", "DROPPED", ks, "mv"),
        ]
    finally:
        watcher.shutdown()


# ---- Queries through an index ----

V1 = [(k, c) for k in range(20) for c in range(25)] + [(50, c) for c in range(0, 1000, 2)]


@pytest.fixture(scope="module")
def indexed(session):
    """iv_q.t: the 1000 rows V1 with v = 1 (20 partitions of 25 rows, and
    one of 1000 rows where every other one has v = 3), 600 with v = 2, and
    rows without v; an index on v."""
    create_keyspace(session, "iv_q")
    session.execute("CREATE TABLE iv_q.t (k int, c int, v int, w text, PRIMARY KEY (k, c))")
    session.execute("CREATE INDEX v_idx ON iv_q.t (v)")
    insert = session.prepare("INSERT INTO iv_q.t (k, c, v, w) VALUES (?, ?, ?, ?)")
    rows = [(k, c, 1, "a%d" % c) for k, c in V1]
    rows += [(50, c, 3, "odd") for c in range(1, 1000, 2)]
    rows += [(k, c, 2, None) for k in range(100, 130) for c in range(20)]
    rows += [(k, c, None, "no v") for k in range(200, 205) for c in range(5)]
    results = execute_concurrent_with_args(session, insert, rows, concurrency=100)
    assert all(ok for ok, _ in results)
    return session


def test_index_query_prepared_paged_at_every_consistency(indexed):
    session = indexed
    select = session.prepare("SELECT k, c, v FROM iv_q.t WHERE v = ?")
    expected = set(V1)
    for consistency, fetch_size in [(ConsistencyLevel.ONE, 7),
                                    (ConsistencyLevel.QUORUM, 100),
                                    (ConsistencyLevel.ALL, 999),
                                    (ConsistencyLevel.LOCAL_ONE, 1000),
                                    (ConsistencyLevel.LOCAL_QUORUM, 5000)]:
        rows = paged(session, select, (1,), fetch_size=fetch_size, consistency=consistency)
        keys = [(r.k, r.c) for r in rows]
        assert len(keys) == 1000, consistency
        assert set(keys) == expected, consistency
        assert all(r.v == 1 for r in rows)
    # A simple statement with a bind value, paged by the driver's iterator.
    statement = SimpleStatement("SELECT k, c FROM iv_q.t WHERE v = %s", fetch_size=13)
    keys = [(r.k, r.c) for r in session.execute(statement, (2,))]
    assert len(keys) == 600
    assert set(keys) == {(k, c) for k in range(100, 130) for c in range(20)}
    assert list(session.execute(select, (4,))) == []


def test_index_results_come_in_token_then_clustering_order(indexed):
    session = indexed
    rows = paged(session, "SELECT token(k), k, c FROM iv_q.t WHERE v = 2", fetch_size=7)
    order = [(r[0], r.c) for r in rows]
    assert order == sorted(order)
    assert len(rows) == 600


def test_index_query_with_partition_key_limit_and_count(indexed):
    session = indexed
    one_partition = session.prepare("SELECT c FROM iv_q.t WHERE k = ? AND v = ?")
    assert one_partition.routing_key_indexes == [0]
    rows = paged(session, one_partition, (7, 1), fetch_size=4)
    assert [r.c for r in rows] == list(range(25))
    assert paged(session, one_partition, (7, 2), fetch_size=4) == []
    # One big partition where matching rows alternate with others.
    rows = paged(session, one_partition, (50, 1), fetch_size=7)
    assert [r.c for r in rows] == list(range(0, 1000, 2))
    rows = paged(session, one_partition, (50, 3), fetch_size=100)
    assert [r.c for r in rows] == list(range(1, 1000, 2))

    limited = session.prepare("SELECT k, c FROM iv_q.t WHERE v = ? LIMIT ?")
    rows = paged(session, limited, (1, 50), fetch_size=7)
    assert len(rows) == 50 and len(set(rows)) == 50
    assert session.execute("SELECT count(*) FROM iv_q.t WHERE v = 1").one()[0] == 1000
    per_partition = session.prepare("SELECT k, c FROM iv_q.t WHERE v = ? PER PARTITION LIMIT ?")
    rows = paged(session, per_partition, (1, 3), fetch_size=7)
    assert sorted((r.k, r.c) for r in rows) == \
        [(k, c) for k in range(20) for c in range(3)] + [(50, 0), (50, 2), (50, 4)]
    rows = paged(session, per_partition, (1, 30), fetch_size=7)
    assert len(rows) == 20 * 25 + 30

    # Cassandra's refusals on an indexed column.
    with pytest.raises(InvalidRequest, match="ORDER BY with 2ndary indexes is not supported."):
        session.execute("SELECT * FROM iv_q.t WHERE k = 1 AND v = 1 ORDER BY c DESC")
    with pytest.raises(InvalidRequest, match=FILTERING):
        session.execute("SELECT * FROM iv_q.t WHERE v = 1 AND w = 'a1'")
    rows = session.execute("SELECT k, c FROM iv_q.t WHERE v = 1 AND w = 'a1' ALLOW FILTERING")
    assert {(r.k, r.c) for r in rows} == {(k, 1) for k in range(20)}


def test_index_query_resumes_from_a_paging_state(indexed):
    session = indexed
    select = session.prepare("SELECT k, c FROM iv_q.t WHERE v = ?")
    select.fetch_size = 33
    seen = []
    state = None
    while True:
        result = session.execute(select, (2,), paging_state=state)
        seen.extend((r.k, r.c) for r in result.current_rows)
        state = result.paging_state
        if state is None:
            break
    assert len(seen) == 600 and len(set(seen)) == 600


@pytest.mark.parametrize("version", [3, 4])
def test_index_query_paged_on_older_protocols(node, indexed, version):
    # Paging states differ by protocol version.
    c = driver_cluster(node, protocol_version=version)
    try:
        session = c.connect()
        select = session.prepare("SELECT k, c FROM iv_q.t WHERE v = ?")
        for fetch_size in (1, 24, 25, 26):
            if fetch_size == 1 and version == 3:
                continue  # 1000 round trips: covered on v4
            rows = paged(session, select, (1,), fetch_size=fetch_size)
            assert len(rows) == 1000 and len(set(rows)) == 1000, fetch_size
    finally:
        c.shutdown()


def test_indexes_on_key_columns_and_a_frozen_collection(session):
    create_keyspace(session, "iv_keys")
    session.execute("CREATE TABLE iv_keys.t (a int, b int, c int, v int, f frozen<list<int>>, "
                    "PRIMARY KEY ((a, b), c)) WITH CLUSTERING ORDER BY (c DESC)")
    session.execute("CREATE INDEX ON iv_keys.t (a)")  # one part of the partition key
    session.execute("CREATE INDEX ON iv_keys.t (c)")  # a clustering column
    session.execute("CREATE INDEX ON iv_keys.t (full(f))")
    insert = session.prepare("INSERT INTO iv_keys.t (a, b, c, v, f) VALUES (?, ?, ?, ?, ?)")
    rows = [(a, b, c, a * b * c, [c % 2, c % 3]) for a in range(4) for b in range(10)
            for c in range(12)]
    assert all(ok for ok, _ in execute_concurrent_with_args(session, insert, rows,
                                                            concurrency=100))
    by_a = session.prepare("SELECT a, b, c FROM iv_keys.t WHERE a = ?")
    got = paged(session, by_a, (2,), fetch_size=7)
    assert sorted((r.a, r.b, r.c) for r in got) == sorted((2, b, c) for b in range(10)
                                                          for c in range(12))
    # Each partition's rows in the table's clustering order (c DESC).
    per_b = {}
    for r in got:
        per_b.setdefault(r.b, []).append(r.c)
    assert all(cs == list(range(11, -1, -1)) for cs in per_b.values())

    by_c = session.prepare("SELECT a, b FROM iv_keys.t WHERE c = ?")
    got = paged(session, by_c, (5,), fetch_size=7)
    assert sorted((r.a, r.b) for r in got) == [(a, b) for a in range(4) for b in range(10)]

    by_f = session.prepare("SELECT a, b, c FROM iv_keys.t WHERE f = ?")
    got = paged(session, by_f, ([1, 2],), fetch_size=7)
    assert sorted((r.a, r.b, r.c) for r in got) == \
        sorted((a, b, c) for a, b, c, _, f in rows if f == [1, 2])
    assert list(session.execute(by_f, ([2, 1],))) == []
    # The whole partition key plus an index: one partition's rows.
    got = session.execute("SELECT c FROM iv_keys.t WHERE a = 1 AND b = 1 AND f = [0, 0]")
    assert [r.c for r in got] == [6, 0]
    with pytest.raises(InvalidRequest, match="Cannot drop column f because it has dependent "
                                             r"secondary indexes \(t_f_idx\)"):
        session.execute("ALTER TABLE iv_keys.t DROP f")


def test_index_and_view_keys_of_many_types(session):
    """Values that are prefixes of one another, NUL bytes, negative numbers
    and extremes as index values and as view keys."""
    create_keyspace(session, "iv_types")
    session.execute("CREATE TABLE iv_types.t (k int, c int, b blob, s text, n bigint, "
                    "u uuid, ts timestamp, PRIMARY KEY (k, c))")
    for column in ("b", "s", "n", "u", "ts"):
        session.execute("CREATE INDEX ON iv_types.t (%s)" % column)
    session.execute("CREATE MATERIALIZED VIEW iv_types.by_b AS SELECT k, c, b FROM iv_types.t "
                    "WHERE b IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (b, k, c)")
    session.execute("CREATE MATERIALIZED VIEW iv_types.by_k_s AS SELECT k, c, s FROM iv_types.t "
                    "WHERE k IS NOT NULL AND s IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (k, s, c)")
    blobs = [b"\x00", b"\x00\x00", b"\x00\x01", b"\x01", b"\xff", b"\xff\x00", b"ab"]
    texts = ["a", "a\x00", "ab", "b", "\u00e9", "a b", "A"]
    numbers = [-2 ** 63, -1, 0, 1, 255, 256, 2 ** 63 - 1]
    uuids = [uuid.UUID(int=i) for i in (0, 1, 2 ** 64, 2 ** 127)] + \
        [uuid.UUID("123e4567-e89b-12d3-a456-426655440000"),  # version 1
         uuid.UUID("6f66bee2-e98d-11f1-abde-175213598013"),
         uuid.UUID("9b2f6f0e-8d1c-4c3e-9a51-2e4f3b1c7d60")]  # version 4
    times = [dt(1969, 12, 31, 23, 59, 59), dt(1970, 1, 1), dt(2026, 3, 1), dt(1, 1, 1),
             dt(9999, 12, 31), dt(2026, 3, 1, 0, 0, 0, 1000), dt(1970, 1, 1, 0, 0, 0, 1000)]
    insert = session.prepare("INSERT INTO iv_types.t (k, c, b, s, n, u, ts) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)")
    rows = []
    for i in range(70):
        k, c = i % 5, i
        rows.append((k, c, blobs[i % 7], texts[(i // 7) % 7], numbers[(i * 3) % 7],
                     uuids[(i * 5) % 7], times[(i // 3) % 7]))
    assert all(ok for ok, _ in execute_concurrent_with_args(session, insert, rows,
                                                            concurrency=50))
    for position, column, values in [(2, "b", blobs), (3, "s", texts), (4, "n", numbers),
                                     (5, "u", uuids), (6, "ts", times)]:
        select = session.prepare("SELECT k, c FROM iv_types.t WHERE %s = ?" % column)
        for value in values:
            got = sorted((r.k, r.c) for r in paged(session, select, (value,), fetch_size=3))
            assert got == sorted((r[0], r[1]) for r in rows if r[position] == value), \
                (column, value)
    by_b = session.prepare("SELECT k, c FROM iv_types.by_b WHERE b = ?")
    for value in blobs:
        got = [(r.k, r.c) for r in paged(session, by_b, (value,), fetch_size=3)]
        assert got == sorted((r[0], r[1]) for r in rows if r[2] == value), value
    # A text clustering column of the view: ordered by UTF-8 bytes.
    by_k = session.prepare("SELECT s, c FROM iv_types.by_k_s WHERE k = ?")
    for k in range(5):
        got = [(r.s, r.c) for r in paged(session, by_k, (k,), fetch_size=4)]
        assert got == sorted(((r[3], r[1]) for r in rows if r[0] == k),
                             key=lambda sc: (sc[0].encode(), sc[1])), k


def test_index_and_view_built_from_rows_already_there(session):
    create_keyspace(session, "iv_build")
    session.execute("CREATE TABLE iv_build.t (k int, c int, v int, w text, PRIMARY KEY (k, c))")
    insert = session.prepare("INSERT INTO iv_build.t (k, c, v, w) VALUES (?, ?, ?, ?)")
    rows = [(i % 97, i, i % 10, "w%d" % i) for i in range(2000)]
    assert all(ok for ok, _ in execute_concurrent_with_args(session, insert, rows,
                                                            concurrency=100))
    session.execute("CREATE INDEX v_idx ON iv_build.t (v)")
    session.execute("CREATE MATERIALIZED VIEW iv_build.by_v AS SELECT k, c, v FROM iv_build.t "
                    "WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (v, k, c)")
    by_v = session.prepare("SELECT k, c FROM iv_build.t WHERE v = ?")
    view = session.prepare("SELECT k, c FROM iv_build.by_v WHERE v = ?")
    want = sorted((k, c) for k, c, v, _ in rows if v == 3)

    def built(statement):
        # Cassandra builds both in the background; a query may fail until then.
        try:
            return sorted((r.k, r.c) for r in paged(session, statement, (3,), 7)) == want
        except InvalidRequest:
            raise
        except Exception:
            return False
    assert wait_for(lambda: built(by_v), timeout=20)
    assert wait_for(lambda: built(view), timeout=20)
    assert wait_for(lambda: session.execute(
        "SELECT count(*) FROM iv_build.by_v").one()[0] == 2000, timeout=20)

    # Dropped, then rows change, then created again: built from the rows as
    # they are now.
    session.execute("DROP INDEX iv_build.v_idx")
    session.execute("DROP MATERIALIZED VIEW iv_build.by_v")
    session.execute("UPDATE iv_build.t SET v = 77 WHERE k = 3 AND c = 3")
    session.execute("DELETE FROM iv_build.t WHERE k = 13 AND c = 13")
    session.execute("CREATE INDEX v_idx ON iv_build.t (v)")
    session.execute("CREATE MATERIALIZED VIEW iv_build.by_v AS SELECT k, c, v FROM iv_build.t "
                    "WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (v, k, c)")
    want.remove((3, 3))
    want.remove((13, 13))
    assert wait_for(lambda: built(by_v), timeout=20)
    assert wait_for(lambda: built(view), timeout=20)
    assert [(r.k, r.c) for r in session.execute(by_v, (77,))] == [(3, 3)]
    assert [(r.k, r.c) for r in session.execute(view, (77,))] == [(3, 3)]

    # A keyspace dropped and made again under the same names starts empty.
    session.execute("DROP KEYSPACE iv_build")
    create_keyspace(session, "iv_build")
    session.execute("CREATE TABLE iv_build.t (k int, c int, v int, w text, PRIMARY KEY (k, c))")
    session.execute("CREATE INDEX v_idx ON iv_build.t (v)")
    session.execute("CREATE MATERIALIZED VIEW iv_build.by_v AS SELECT k, c, v FROM iv_build.t "
                    "WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (v, k, c)")
    assert list(session.execute("SELECT k, c FROM iv_build.t WHERE v = 3")) == []
    assert list(session.execute("SELECT * FROM iv_build.by_v")) == []
    session.execute("DROP KEYSPACE iv_build")


def test_statements_prepared_before_create_index_and_after_drop(session):
    create_keyspace(session, "iv_prep")
    session.execute("CREATE TABLE iv_prep.t (k int, c int, v int, PRIMARY KEY (k, c))")
    insert = session.prepare("INSERT INTO iv_prep.t (k, c, v) VALUES (?, ?, ?)")
    for k in range(10):
        for c in range(10):
            session.execute(insert, (k, c, (k + c) % 4))

    def expected(v):
        return {(k, c) for k in range(10) for c in range(10) if (k + c) % 4 == v} | \
            ({(99, 0)} if v == 1 and added[0] else set())
    added = [False]

    # Without an index, an equality on v needs ALLOW FILTERING even to prepare.
    with pytest.raises(InvalidRequest, match=FILTERING):
        session.prepare("SELECT k, c FROM iv_prep.t WHERE v = ?")
    filtering = session.prepare("SELECT k, c FROM iv_prep.t WHERE v = ? ALLOW FILTERING")
    by_key = session.prepare("SELECT c, v FROM iv_prep.t WHERE k = ?")
    assert {(r.k, r.c) for r in session.execute(filtering, (1,))} == expected(1)

    session.execute("CREATE INDEX v_idx ON iv_prep.t (v)")
    # Statements prepared before keep working (Cassandra evicts them and
    # the driver re-prepares them transparently).
    assert {(r.k, r.c) for r in session.execute(filtering, (1,))} == expected(1)
    assert len(list(session.execute(by_key, (3,)))) == 10
    through_index = session.prepare("SELECT k, c FROM iv_prep.t WHERE v = ?")
    session.execute(insert, (99, 0, 1))
    added[0] = True
    for v in range(4):
        assert {(r.k, r.c) for r in session.execute(through_index, (v,))} == expected(v)
        assert {(r.k, r.c) for r in session.execute(filtering, (v,))} == expected(v)

    session.execute("DROP INDEX iv_prep.v_idx")
    # The statement that needed the index cannot be prepared again.
    with pytest.raises(InvalidRequest, match=FILTERING):
        session.execute(through_index, (1,))
    assert {(r.k, r.c) for r in session.execute(filtering, (1,))} == expected(1)
    assert len(list(session.execute(by_key, (3,)))) == 10

    # With the index back, the same prepared statement works again.
    session.execute("CREATE INDEX v_idx ON iv_prep.t (v)")
    assert {(r.k, r.c) for r in session.execute(through_index, (1,))} == expected(1)


# ---- Materialized views ----

def test_view_read_with_paging_and_writes_refused(session):
    create_keyspace(session, "iv_view")
    session.execute("CREATE TABLE iv_view.t (k int, c int, v int, w text, PRIMARY KEY (k, c))")
    session.execute("CREATE MATERIALIZED VIEW iv_view.by_v AS SELECT k, c, v, w FROM iv_view.t "
                    "WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (v, k, c) WITH CLUSTERING ORDER BY (k DESC, c ASC)")
    insert = session.prepare("INSERT INTO iv_view.t (k, c, v, w) VALUES (?, ?, ?, ?)")
    rows = [(k, c, (k * 31 + c) % 5, "w%d.%d" % (k, c)) for k in range(50) for c in range(10)]
    rows += [(1000 + k, 0, None, "no v") for k in range(5)]
    assert all(ok for ok, _ in execute_concurrent_with_args(session, insert, rows,
                                                            concurrency=100))
    base = {(k, c): (v, w) for k, c, v, w in rows}

    # The whole view, paged: every base row with v, exactly once.
    got = paged(session, "SELECT v, k, c, w FROM iv_view.by_v", fetch_size=7)
    assert len(got) == 500
    assert {(r.v, r.k, r.c, r.w) for r in got} == \
        {(v, k, c, w) for (k, c), (v, w) in base.items() if v is not None}

    # One view partition, paged, in the view's clustering order; and reversed.
    by_v = session.prepare("SELECT k, c, w FROM iv_view.by_v WHERE v = ?")
    assert by_v.routing_key_indexes == [0]
    want = sorted(((k, c) for (k, c), (v, _) in base.items() if v == 3),
                  key=lambda kc: (-kc[0], kc[1]))
    assert [(r.k, r.c) for r in paged(session, by_v, (3,), fetch_size=7)] == want
    reverse = session.prepare("SELECT k, c FROM iv_view.by_v WHERE v = ? "
                              "ORDER BY k ASC, c DESC")
    assert [(r.k, r.c) for r in paged(session, reverse, (3,), fetch_size=7)] == want[::-1]
    ranged = session.prepare("SELECT k, c FROM iv_view.by_v WHERE v = ? AND k >= ? AND k < ?")
    assert [(r.k, r.c) for r in paged(session, ranged, (3, 10, 20), fetch_size=3)] == \
        [kc for kc in want if 10 <= kc[0] < 20]

    # Writes to the view are refused, in every form.
    for cql in ["INSERT INTO iv_view.by_v (v, k, c, w) VALUES (1, 1, 1, 'x')",
                "UPDATE iv_view.by_v SET w = 'x' WHERE v = 1 AND k = 1 AND c = 1",
                "DELETE FROM iv_view.by_v WHERE v = 1",
                "DELETE w FROM iv_view.by_v WHERE v = 1 AND k = 1 AND c = 1",
                "INSERT INTO iv_view.by_v JSON '{\"v\": 1, \"k\": 1, \"c\": 1}'",
                "BEGIN BATCH INSERT INTO iv_view.t (k, c, v) VALUES (1, 1, 1); "
                "INSERT INTO iv_view.by_v (v, k, c) VALUES (1, 1, 1); APPLY BATCH"]:
        with pytest.raises(InvalidRequest, match=VIEW_WRITE):
            session.execute(cql)
    with pytest.raises(InvalidRequest, match=VIEW_WRITE):
        session.prepare("INSERT INTO iv_view.by_v (v, k, c) VALUES (?, ?, ?)")
    with pytest.raises(InvalidRequest, match="Cannot TRUNCATE materialized view directly; "
                                             "must truncate base table instead"):
        session.execute("TRUNCATE iv_view.by_v")
    # (The exact messages: test_refusal_messages_are_cassandra_4s.)
    with pytest.raises(InvalidRequest, match="Cannot use DROP TABLE on"):
        session.execute("DROP TABLE iv_view.by_v")
    with pytest.raises(InvalidRequest, match="when materialized views still depend on it"):
        session.execute("DROP TABLE iv_view.t")
    # Nothing changed.
    assert session.execute("SELECT count(*) FROM iv_view.by_v").one()[0] == 500

    # Base writes move rows in the view; TRUNCATE of the base empties it.
    session.execute("UPDATE iv_view.t SET v = 42 WHERE k = 0 AND c = 0")
    session.execute("DELETE FROM iv_view.t WHERE k = 1")
    assert [(r.k, r.c, r.w) for r in session.execute(by_v, (42,))] == [(0, 0, "w0.0")]
    assert session.execute("SELECT count(*) FROM iv_view.by_v").one()[0] == 490
    session.execute("TRUNCATE iv_view.t")
    assert list(session.execute("SELECT * FROM iv_view.by_v")) == []


def test_view_schema_rules(session):
    create_keyspace(session, "iv_rules")
    session.execute("CREATE TABLE iv_rules.t (k int, c int, a int, b int, PRIMARY KEY (k, c))")
    create = ("CREATE MATERIALIZED VIEW %s iv_rules.mv AS SELECT k, c, a FROM iv_rules.t "
              "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)")
    session.execute(create % "")
    with pytest.raises(AlreadyExists):
        session.execute(create % "")
    session.execute(create % "IF NOT EXISTS")
    with pytest.raises(InvalidRequest, match="Cannot create materialized view 't' - a table "
                                             "with the same name already exists"):
        session.execute("CREATE MATERIALIZED VIEW iv_rules.t AS SELECT k, c FROM iv_rules.t "
                        "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)")
    with pytest.raises(InvalidRequest,
                       match="Secondary indexes on materialized views aren't supported"):
        session.execute("CREATE INDEX ON iv_rules.mv (a)")
    with pytest.raises(InvalidRequest, match="Materialized views cannot be created against "
                                             "other materialized views"):
        session.execute("CREATE MATERIALIZED VIEW iv_rules.mv2 AS SELECT * FROM iv_rules.mv "
                        "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (k, c)")
    with pytest.raises(InvalidRequest, match="Cannot drop column a on base table t with "
                                             "materialized views"):
        session.execute("ALTER TABLE iv_rules.t DROP a")
    session.execute("ALTER TABLE iv_rules.t ADD z int")  # adding is fine


def test_dropping_an_unselected_column_of_a_base_with_views_is_refused(session):
    create_keyspace(session, "iv_rules_drop")
    session.execute("CREATE TABLE iv_rules_drop.t (k int, c int, a int, b int, "
                    "PRIMARY KEY (k, c))")
    session.execute("CREATE MATERIALIZED VIEW iv_rules_drop.mv AS SELECT k, c, a "
                    "FROM iv_rules_drop.t WHERE k IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (c, k)")
    with pytest.raises(InvalidRequest, match="Cannot drop column b on base table t with "
                                             "materialized views"):
        session.execute("ALTER TABLE iv_rules_drop.t DROP b")


@pytest.mark.parametrize("dependents", [
    "none",
    "index",
    "view",
])
def test_added_column_reaches_select_star_views_once(session, dependents):
    """ALTER TABLE ADD on a base adds the column to its SELECT * views, once,
    whatever else depends on the base."""
    ks = create_keyspace(session, "iv_add_%s" % dependents)
    session.execute("CREATE TABLE %s.t (k int, c int, v int, PRIMARY KEY (k, c))" % ks)
    session.execute("CREATE MATERIALIZED VIEW %s.star AS SELECT * FROM %s.t "
                    "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)" % (ks, ks))
    if dependents == "index":
        session.execute("CREATE INDEX ON %s.t (v)" % ks)
    elif dependents == "view":
        session.execute("CREATE MATERIALIZED VIEW %s.other AS SELECT k, c FROM %s.t "
                        "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)" % (ks, ks))
    session.execute("ALTER TABLE %s.t ADD z int" % ks)
    session.execute("INSERT INTO %s.t (k, c, v, z) VALUES (1, 2, 3, 42)" % ks)
    columns = [r.column_name for r in session.execute(
        "SELECT column_name FROM system_schema.columns WHERE keyspace_name = %s "
        "AND table_name = 'star'", (ks,))]
    assert sorted(columns) == ["c", "k", "v", "z"]
    result = session.execute("SELECT * FROM %s.star" % ks)
    assert result.column_names == ["c", "k", "v", "z"]
    assert [tuple(r) for r in result] == [(2, 1, 3, 42)]
    session.execute("DROP KEYSPACE %s" % ks)


def test_gc_grace_seconds_zero_refused_on_views_and_their_base(session):
    create_keyspace(session, "iv_gc")
    session.execute("CREATE TABLE iv_gc.t (k int PRIMARY KEY, v int)")
    session.execute("CREATE MATERIALIZED VIEW iv_gc.mv AS SELECT k, v FROM iv_gc.t "
                    "WHERE k IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k)")
    why = ("since this value is used to TTL undelivered updates. Setting gc_grace_seconds "
           "too low might cause undelivered updates to expire before being replayed.")
    with pytest.raises(InvalidRequest, match=re.escape(
            "Cannot alter gc_grace_seconds of the base table of a materialized view to 0, "
            + why)):
        session.execute("ALTER TABLE iv_gc.t WITH gc_grace_seconds = 0")
    with pytest.raises(InvalidRequest, match=re.escape(
            "Cannot alter gc_grace_seconds of a materialized view to 0, " + why)):
        session.execute("ALTER MATERIALIZED VIEW iv_gc.mv WITH gc_grace_seconds = 0")


def test_renaming_a_key_column_of_a_base_renames_it_in_its_views(session):
    create_keyspace(session, "iv_rename")
    session.execute("CREATE TABLE iv_rename.t (k int, c int, v int, PRIMARY KEY (k, c))")
    session.execute("CREATE MATERIALIZED VIEW iv_rename.mv AS SELECT k, c, v FROM iv_rename.t "
                    "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)")
    session.execute("INSERT INTO iv_rename.t (k, c, v) VALUES (1, 2, 3)")
    session.execute("ALTER TABLE iv_rename.t RENAME c TO cc")
    columns = [r.column_name for r in session.execute(
        "SELECT column_name FROM system_schema.columns WHERE keyspace_name = 'iv_rename' "
        "AND table_name = 'mv'")]
    assert sorted(columns) == ["cc", "k", "v"]
    assert [tuple(r) for r in session.execute("SELECT cc, k, v FROM iv_rename.mv")] == [(2, 1, 3)]


def test_refusal_messages_are_cassandra_4s(session):
    create_keyspace(session, "iv_messages")
    session.execute("CREATE TABLE iv_messages.t (k int, c int, v int, PRIMARY KEY (k, c))")
    session.execute("CREATE INDEX c_idx ON iv_messages.t (c)")
    session.execute("CREATE MATERIALIZED VIEW iv_messages.mv AS SELECT k, c, v FROM iv_messages.t "
                    "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)")
    # The message, or (ending in "(") how it starts: Cassandra 4.0 names
    # the keyspace there, not the views.
    expected = {
        "ALTER TABLE iv_messages.mv WITH comment = 'x'":
            "Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead",
        "DROP TABLE iv_messages.mv":
            "Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW "
            "instead.",
        "DROP TABLE iv_messages.t":
            "Cannot drop a table when materialized views still depend on it (",
        "ALTER TABLE iv_messages.t DROP v":
            "Cannot drop column v on base table t with materialized views",
        "ALTER TABLE iv_messages.t RENAME c TO cc":
            "Can't rename column c because it has dependent secondary indexes (c_idx)",
    }
    got = {}
    for cql, message in expected.items():
        with pytest.raises(InvalidRequest) as error:
            session.execute(cql)
        got[cql] = re.search(r'message="(.*)"$', str(error.value)).group(1)
        if message.endswith("("):
            got[cql] = got[cql][:len(message)]
    assert got == expected


def test_view_rows_live_as_long_as_the_base_row(session):
    """A view keyed by base key columns only has a row for every live base
    row, also one alive only through columns the view does not select
    (Cassandra 4's virtual cells, CASSANDRA-11500)."""
    create_keyspace(session, "iv_live")
    session.execute("CREATE TABLE iv_live.t (k int, c int, a int, b int, PRIMARY KEY (k, c))")
    session.execute("CREATE MATERIALIZED VIEW iv_live.mv AS SELECT k, c, a FROM iv_live.t "
                    "WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)")

    def view():
        return sorted((r.k, r.c, r.a) for r in session.execute("SELECT k, c, a FROM iv_live.mv"))

    session.execute("UPDATE iv_live.t SET b = 1 WHERE k = 1 AND c = 1")  # no row marker
    assert view() == [(1, 1, None)]
    session.execute("UPDATE iv_live.t SET a = 2 WHERE k = 1 AND c = 1")
    assert view() == [(1, 1, 2)]
    session.execute("DELETE a FROM iv_live.t WHERE k = 1 AND c = 1")
    assert view() == [(1, 1, None)]  # still alive through b
    session.execute("DELETE b FROM iv_live.t WHERE k = 1 AND c = 1")
    assert view() == []
    assert list(session.execute("SELECT * FROM iv_live.t")) == []
    session.execute("INSERT INTO iv_live.t (k, c) VALUES (2, 2)")  # the row marker alone
    assert view() == [(2, 2, None)]
    session.execute("UPDATE iv_live.t SET a = 5 WHERE k = 3 AND c = 3")
    session.execute("DELETE a FROM iv_live.t WHERE k = 3 AND c = 3")
    assert view() == [(2, 2, None)]


def create_checked_schema(session, ks):
    """ks.t with indexes on v and w, a view keyed by v and one keyed by the
    base key that selects only w; returns check(), which asserts that every
    index query and both views equal brute force over the base."""
    create_keyspace(session, ks)
    session.execute("CREATE TABLE %s.t (k int, c int, v int, w text, PRIMARY KEY (k, c))" % ks)
    session.execute("CREATE INDEX v_idx ON %s.t (v)" % ks)
    session.execute("CREATE INDEX w_idx ON %s.t (w)" % ks)
    session.execute("CREATE MATERIALIZED VIEW %s.by_v AS SELECT k, c, v, w FROM %s.t "
                    "WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL "
                    "PRIMARY KEY (v, k, c)" % (ks, ks))
    session.execute("CREATE MATERIALIZED VIEW %s.by_ck AS SELECT c, k, w FROM %s.t "
                    "WHERE c IS NOT NULL AND k IS NOT NULL PRIMARY KEY (c, k)" % (ks, ks))
    by_v = session.prepare("SELECT k, c FROM %s.t WHERE v = ?" % ks)
    by_w = session.prepare("SELECT k, c FROM %s.t WHERE w = ?" % ks)

    def check(values=(), texts=()):
        """Also queries the indexes for `values` and `texts` (written once,
        maybe no longer there); returns the base as {(k, c): (v, w)}."""
        base = {(r.k, r.c): (r.v, r.w) for r in session.execute(
            SimpleStatement("SELECT k, c, v, w FROM %s.t" % ks, fetch_size=50))}
        for v in {v for v, _ in base.values() if v is not None} | {-1} | set(values):
            got = sorted((r.k, r.c) for r in session.execute(by_v, (v,)))
            assert got == sorted(kc for kc, (bv, _) in base.items() if bv == v), (v, base)
        for w in {w for _, w in base.values() if w is not None} | {"none"} | set(texts):
            got = sorted((r.k, r.c) for r in session.execute(by_w, (w,)))
            assert got == sorted(kc for kc, (_, bw) in base.items() if bw == w), (w, base)
        got = sorted((r.v, r.k, r.c, r.w) for r in session.execute(
            SimpleStatement("SELECT * FROM %s.by_v" % ks, fetch_size=50)))
        assert got == sorted((v, k, c, w) for (k, c), (v, w) in base.items() if v is not None)
        got = sorted((r.k, r.c, r.w) for r in session.execute(
            SimpleStatement("SELECT * FROM %s.by_ck" % ks, fetch_size=50)))
        assert got == sorted((k, c, w) for (k, c), (_, w) in base.items())
        return base
    return check


def test_expiring_cells_leave_indexes_and_views(session):
    check = create_checked_schema(session, "iv_ttl")
    t = "iv_ttl.t"
    session.execute("INSERT INTO %s (k, c, v, w) VALUES (1, 1, 10, 'a') USING TTL 2" % t)
    session.execute("INSERT INTO %s (k, c, v, w) VALUES (2, 1, 20, 'b')" % t)
    session.execute("UPDATE %s USING TTL 2 SET v = 21 WHERE k = 2 AND c = 1" % t)
    session.execute("UPDATE %s USING TTL 2 SET w = 'c' WHERE k = 3 AND c = 1" % t)
    session.execute("UPDATE %s SET v = 30 WHERE k = 3 AND c = 1" % t)
    session.execute("UPDATE %s USING TTL 2 SET w = 'd' WHERE k = 4 AND c = 1" % t)
    assert check() == {(1, 1): (10, "a"), (2, 1): (21, "b"), (3, 1): (30, "c"),
                       (4, 1): (None, "d")}
    time.sleep(2.2)  # TTLs count whole seconds
    assert check() == {(2, 1): (None, "b"), (3, 1): (30, None)}


def test_concurrent_writes_keep_indexes_and_views_equal_to_the_base(session):
    """Writers update and delete rows of an indexed table with views while
    readers query the indexes and a view (each answer holds only matching
    rows, each once); at the end all of them equal brute force."""
    check = create_checked_schema(session, "iv_conc")
    p = {name: session.prepare(cql) for name, cql in {
        "insert": "INSERT INTO iv_conc.t (k, c, v, w) VALUES (?, ?, ?, ?)",
        "set_v": "UPDATE iv_conc.t SET v = ? WHERE k = ? AND c = ?",
        "set_w": "UPDATE iv_conc.t SET w = ? WHERE k = ? AND c = ?",
        "del_v": "DELETE v FROM iv_conc.t WHERE k = ? AND c = ?",
        "del_row": "DELETE FROM iv_conc.t WHERE k = ? AND c = ?",
        "del_part": "DELETE FROM iv_conc.t WHERE k = ?",
        "del_range": "DELETE FROM iv_conc.t WHERE k = ? AND c >= ? AND c < ?",
        "by_v": "SELECT k, c, v FROM iv_conc.t WHERE v = ?",
        "by_w": "SELECT k, c, w FROM iv_conc.t WHERE w = ?",
        "view": "SELECT v, k, c FROM iv_conc.by_v WHERE v = ?",
    }.items()}
    values = range(6)
    texts = ["a", "b", "c", "d"]
    errors = []
    writers_done = threading.Event()

    def writer(seed):
        rng = random.Random(seed)
        try:
            for _ in range(300):
                k, c = rng.randrange(15), rng.randrange(8)
                op = rng.random()
                if op < 0.3:
                    session.execute(p["insert"], (k, c, rng.choice(values), rng.choice(texts)))
                elif op < 0.55:
                    session.execute(p["set_v"], (rng.choice(values), k, c))
                elif op < 0.7:
                    session.execute(p["set_w"], (rng.choice(texts), k, c))
                elif op < 0.8:
                    session.execute(p["del_v"], (k, c))
                elif op < 0.87:
                    session.execute(p["del_row"], (k, c))
                elif op < 0.92:
                    session.execute(p["del_range"], (k, c, c + rng.randrange(1, 4)))
                elif op < 0.95:
                    session.execute(p["del_part"], (k,))
                else:
                    batch = BatchStatement()
                    batch.add(p["set_v"], (rng.choice(values), k, c))
                    batch.add(p["set_w"], (rng.choice(texts), k, c))
                    batch.add(p["set_v"], (rng.choice(values), k, (c + 1) % 8))
                    session.execute(batch)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    def reader(seed):
        rng = random.Random(seed)
        try:
            while not writers_done.is_set():
                v = rng.choice(values)
                rows = paged(session, p["by_v"], (v,), fetch_size=5)
                assert all(r.v == v for r in rows), rows
                assert len({(r.k, r.c) for r in rows}) == len(rows), rows
                w = rng.choice(texts)
                rows = list(session.execute(p["by_w"], (w,)))
                assert all(r.w == w for r in rows), rows
                rows = paged(session, p["view"], (v,), fetch_size=5)
                assert all(r.v == v for r in rows), rows
                assert len({(r.k, r.c) for r in rows}) == len(rows), rows
        except Exception as e:
            errors.append(e)

    writers = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    readers = [threading.Thread(target=reader, args=(100 + i,)) for i in range(3)]
    for t in writers + readers:
        t.start()
    for t in writers:
        t.join()
    writers_done.set()
    for t in readers:
        t.join()
    assert errors == []

    assert check(values, texts)  # and the writes left rows behind
    session.execute("DROP KEYSPACE iv_conc")


def test_writes_with_out_of_order_timestamps_keep_indexes_and_views_equal_to_the_base(session):
    """Random writes, each with its own explicit timestamp applied in
    shuffled order (so many lose to, or are shadowed by, writes applied
    before them); every 60 writes, each index query and each view equals
    brute force over the base table."""
    check = create_checked_schema(session, "iv_ts")
    p = {name: session.prepare(cql) for name, cql in {
        "insert": "INSERT INTO iv_ts.t (k, c, v, w) VALUES (?, ?, ?, ?) USING TIMESTAMP ?",
        "set_v": "UPDATE iv_ts.t USING TIMESTAMP ? SET v = ? WHERE k = ? AND c = ?",
        "set_w": "UPDATE iv_ts.t USING TIMESTAMP ? SET w = ? WHERE k = ? AND c = ?",
        "del_v": "DELETE v FROM iv_ts.t USING TIMESTAMP ? WHERE k = ? AND c = ?",
        "del_row": "DELETE FROM iv_ts.t USING TIMESTAMP ? WHERE k = ? AND c = ?",
        "del_range": "DELETE FROM iv_ts.t USING TIMESTAMP ? WHERE k = ? AND c >= ? AND c < ?",
        "del_part": "DELETE FROM iv_ts.t USING TIMESTAMP ? WHERE k = ?",
    }.items()}
    rng = random.Random(2026)
    n = 600
    timestamps = list(range(1000, 1000 + 10 * n, 10))
    rng.shuffle(timestamps)
    values, texts = range(5), ["a", "b", "c"]

    for i, ts in enumerate(timestamps):
        k, c = rng.randrange(6), rng.randrange(5)
        op = rng.random()
        if op < 0.25:
            session.execute(p["insert"], (k, c, rng.choice(values), rng.choice(texts), ts))
        elif op < 0.5:
            session.execute(p["set_v"], (ts, rng.choice(values), k, c))
        elif op < 0.7:
            session.execute(p["set_w"], (ts, rng.choice(texts), k, c))
        elif op < 0.8:
            session.execute(p["del_v"], (ts, k, c))
        elif op < 0.9:
            session.execute(p["del_row"], (ts, k, c))
        elif op < 0.96:
            session.execute(p["del_range"], (ts, k, c, c + rng.randrange(1, 3)))
        else:
            session.execute(p["del_part"], (ts, k))
        if i % 60 == 59:
            check(values, texts)
    check(values, texts)
    session.execute("DROP KEYSPACE iv_ts")


def test_orders_served_by_buyer_and_seller_views(session):
    """The buyer / seller / order example of test_driver_reference.py with
    the two query tables as views: writes go to orders only."""
    create_keyspace(session, "iv_trade")
    # Cassandra allows one column outside the base key in a view's key, so
    # a base keyed by order_number alone cannot have (buyer_id, ts, ...).
    session.execute("CREATE TABLE iv_trade.orders_flat (order_number text PRIMARY KEY, "
                    "buyer_id bigint, seller_id bigint, ts timestamp)")
    with pytest.raises(InvalidRequest,
                       match=r"Cannot include more than one non-primary key column in "
                             r"materialized view primary key \(got (buyer_id, ts|ts, buyer_id)\)"):
        session.execute("CREATE MATERIALIZED VIEW iv_trade.flat_by_buyer AS "
                        "SELECT * FROM iv_trade.orders_flat WHERE buyer_id IS NOT NULL "
                        "AND ts IS NOT NULL AND order_number IS NOT NULL "
                        "PRIMARY KEY (buyer_id, ts, order_number)")
    # So the order's time is part of its key (one row per order number).
    session.execute("CREATE TABLE iv_trade.orders (order_number text, ts timestamp, "
                    "buyer_id bigint, seller_id bigint, total decimal, items list<text>, "
                    "PRIMARY KEY (order_number, ts))")
    session.execute("CREATE MATERIALIZED VIEW iv_trade.orders_by_buyer AS "
                    "SELECT * FROM iv_trade.orders WHERE buyer_id IS NOT NULL "
                    "AND ts IS NOT NULL AND order_number IS NOT NULL "
                    "PRIMARY KEY (buyer_id, ts, order_number) "
                    "WITH CLUSTERING ORDER BY (ts DESC, order_number ASC)")
    session.execute("CREATE MATERIALIZED VIEW iv_trade.orders_by_seller AS "
                    "SELECT order_number, ts, seller_id, buyer_id, total "
                    "FROM iv_trade.orders WHERE seller_id IS NOT NULL "
                    "AND ts IS NOT NULL AND order_number IS NOT NULL "
                    "PRIMARY KEY (seller_id, ts, order_number)")
    order = session.prepare("INSERT INTO iv_trade.orders (order_number, ts, buyer_id, "
                            "seller_id, total, items) VALUES (?, ?, ?, ?, ?, ?)")
    orders = {
        "o-1": (dt(2026, 3, 1, 10), 7, 70, Decimal("19.99"), ["book"]),
        "o-2": (dt(2026, 3, 2, 11, 30), 7, 71, Decimal("5.00"), ["pen", "ink"]),
        "o-3": (dt(2026, 3, 2, 12), 8, 70, Decimal("100"), ["lamp"]),
    }
    by_buyer = session.prepare("SELECT order_number, ts, seller_id, total, items "
                               "FROM iv_trade.orders_by_buyer "
                               "WHERE buyer_id = ? AND ts >= ? AND ts < ?")
    by_seller = session.prepare("SELECT ts, order_number, buyer_id FROM iv_trade.orders_by_seller "
                                "WHERE seller_id = ? AND ts >= ? ORDER BY ts DESC")
    assert by_buyer.routing_key_indexes == [0] and by_seller.routing_key_indexes == [0]
    for number, o in orders.items():
        session.execute(order, (number,) + o)

    # The reference answers: a buyer's orders in a period (newest first, as
    # the view clusters them), a seller's orders newest first.
    rows = session.execute(by_buyer, (7, dt(2026, 3, 1), dt(2026, 3, 3)))
    assert [(r.order_number, r.seller_id, r.items) for r in rows] == \
        [("o-2", 71, ["pen", "ink"]), ("o-1", 70, ["book"])]
    rows = session.execute("SELECT order_number, seller_id FROM iv_trade.orders_by_buyer "
                           "WHERE buyer_id = %s AND ts >= %s AND ts < %s ORDER BY ts ASC",
                           (7, dt(2026, 3, 1), dt(2026, 3, 3)))
    assert [(r.order_number, r.seller_id) for r in rows] == [("o-1", 70), ("o-2", 71)]
    rows = session.execute(by_seller, (70, dt(2026, 3, 1)))
    assert [(r.order_number, r.buyer_id) for r in rows] == [("o-3", 8), ("o-1", 7)]
    row = session.execute("SELECT buyer_id, seller_id, total, items FROM iv_trade.orders "
                          "WHERE order_number = 'o-2'").one()
    assert (row.buyer_id, row.seller_id, row.total, row.items) == \
        (7, 71, Decimal("5.00"), ["pen", "ink"])

    # Many more orders, then every buyer's and seller's answers against
    # brute force over what was written.
    rng = random.Random(7)
    start = dt(2026, 1, 1)
    for n in range(300):
        orders["g-%03d" % n] = (start + timedelta(minutes=rng.randrange(200000)),
                                rng.randrange(1, 11), rng.choice([70, 71, 72, 73]),
                                Decimal(rng.randrange(1, 10000)) / 100, ["item%d" % n])
    args = [(number,) + o for number, o in orders.items() if number.startswith("g-")]
    assert all(ok for ok, _ in execute_concurrent_with_args(session, order, args,
                                                            concurrency=50))

    def check_everything():
        for buyer in range(1, 11):
            for lo, hi in [(dt(2026, 1, 1), dt(2027, 1, 1)), (dt(2026, 2, 1), dt(2026, 3, 1))]:
                # The view's order: ts DESC, then order_number ASC.
                want = sorted(sorted((o[0], number) for number, o in orders.items()
                                     if o[1] == buyer and lo <= o[0] < hi),
                              key=lambda t: t[0], reverse=True)
                got = paged(session, by_buyer, (buyer, lo, hi), fetch_size=7)
                assert [(r.ts, r.order_number) for r in got] == want, buyer
                for r in got:
                    o = orders[r.order_number]
                    assert (r.seller_id, r.total, r.items) == (o[2], o[3], o[4])
        for seller in [70, 71, 72, 73]:
            lo = dt(2026, 2, 15)
            # ORDER BY ts DESC reverses the whole clustering (ts, order_number).
            want = sorted(((o[0], number, o[1]) for number, o in orders.items()
                           if o[2] == seller and o[0] >= lo), reverse=True)
            got = paged(session, by_seller, (seller, lo), fetch_size=7)
            assert [(r.ts, r.order_number, r.buyer_id) for r in got] == want, seller

    check_everything()
    # An order changes hands, another is cancelled: only orders is written.
    ts2 = orders["o-2"][0]
    session.execute("UPDATE iv_trade.orders SET buyer_id = 8, seller_id = 72 "
                    "WHERE order_number = 'o-2' AND ts = %s", (ts2,))
    orders["o-2"] = (ts2, 8, 72) + orders["o-2"][3:]
    session.execute("DELETE FROM iv_trade.orders WHERE order_number = 'o-1'")
    del orders["o-1"]
    march = (dt(2026, 3, 1), dt(2026, 3, 3))
    assert {"o-1", "o-2"}.isdisjoint(r.order_number
                                     for r in session.execute(by_buyer, (7,) + march))
    assert "o-2" in [r.order_number for r in session.execute(by_buyer, (8,) + march)]
    assert "o-1" not in [r.order_number for r in session.execute(by_seller, (70, march[0]))]
    check_everything()


# ---- Build status ----

def index_info(session, ks):
    return [(r.index_name, r.value) for r in session.execute(
        "SELECT index_name, value FROM system.\"IndexInfo\" WHERE table_name = %s", (ks,))]


def test_built_index_is_recorded_in_index_info(session):
    ks = create_keyspace(session, "iv_built_idx")
    session.execute("CREATE TABLE iv_built_idx.t (k int PRIMARY KEY, v int)")
    session.execute("CREATE INDEX v_idx ON iv_built_idx.t (v)")
    assert wait_for(lambda: index_info(session, ks) == [("v_idx", None)], timeout=3)
    session.execute("DROP INDEX iv_built_idx.v_idx")
    assert wait_for(lambda: index_info(session, ks) == [], timeout=3)


def test_built_view_is_recorded_in_built_views(session):
    create_keyspace(session, "iv_built_view")
    session.execute("CREATE TABLE iv_built_view.t (k int PRIMARY KEY, v int)")
    session.execute("CREATE MATERIALIZED VIEW iv_built_view.mv AS SELECT k, v FROM "
                    "iv_built_view.t WHERE v IS NOT NULL AND k IS NOT NULL "
                    "PRIMARY KEY (v, k)")
    host_id = session.execute("SELECT host_id FROM system.local").one().host_id

    def built():
        rows = session.execute("SELECT view_name, status_replicated FROM system.built_views "
                               "WHERE keyspace_name = 'iv_built_view'")
        status = session.execute("SELECT host_id, status FROM "
                                 "system_distributed.view_build_status "
                                 "WHERE keyspace_name = 'iv_built_view' AND view_name = 'mv'")
        return ([(r.view_name, r.status_replicated) for r in rows],
                [(r.host_id, r.status) for r in status])
    assert wait_for(lambda: built() == ([("mv", True)], [(host_id, "SUCCESS")]), timeout=3)
    session.execute("DROP MATERIALIZED VIEW iv_built_view.mv")
    assert wait_for(lambda: built() == ([], []), timeout=3)


# ---- Keywise only ----

def test_local_index_and_explain_keywise_only(cluster, session):
    """ScyllaDB's local index (CREATE INDEX name ON t ((pk), col)) and
    EXPLAIN, which Cassandra does not have."""
    ks = create_keyspace(session, "iv_local")
    session.execute("CREATE TABLE iv_local.t (k int, c int, w text, PRIMARY KEY (k, c))")
    session.execute("CREATE INDEX local_w ON iv_local.t ((k), w)")
    index = cluster.metadata.keyspaces[ks].tables["t"].indexes["local_w"]
    assert index.kind == "COMPOSITES"
    # ScyllaDB's target for a local index.
    assert dict(index.index_options) == {"target": '{"pk":["k"],"ck":["w"]}'}
    insert = session.prepare("INSERT INTO iv_local.t (k, c, w) VALUES (?, ?, ?)")
    for k in range(5):
        for c in range(100):
            session.execute(insert, (k, c, "w%d" % (c % 3)))
    select = session.prepare("SELECT c FROM iv_local.t WHERE k = ? AND w = ?")
    rows = paged(session, select, (2, "w1"), fetch_size=7)
    assert [r.c for r in rows] == [c for c in range(100) if c % 3 == 1]
    plan = {r.step: r.detail for r in session.execute(
        "EXPLAIN SELECT * FROM iv_local.t WHERE k = 2 AND w = 'w1'")}
    assert plan["INDEX"] == ("iv_local.t: local index local_w for w = 'w1', "
                             "then each base row by key in partition k = 2")
    # A local index alone does not serve a query without the partition key.
    with pytest.raises(InvalidRequest, match=FILTERING):
        session.execute("SELECT * FROM iv_local.t WHERE w = 'w1'")
    with pytest.raises(InvalidRequest,
                       match="Local index definition must contain full partition key only"):
        session.execute("CREATE INDEX ON iv_local.t ((c), w)")
    session.execute("DROP INDEX iv_local.local_w")
    assert cluster.metadata.keyspaces[ks].tables["t"].indexes == {}
