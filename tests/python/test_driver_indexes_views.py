"""Secondary indexes on one node through the DataStax Python driver: what
the driver's schema metadata makes of system_schema.indexes / .views (and
the events that keep it current), queries through an index with prepared
statements, paging and every consistency level a single node accepts,
index and view keys of many types, indexes and views built from rows
already there, and prepared statements across CREATE / DROP INDEX.
Materialized views: test_driver_views.py.

Everything here would pass against Apache Cassandra 4 with materialized
views enabled. Where Cassandra builds an index or view in the background,
the tests create it before writing, or wait for it."""

import uuid
from datetime import datetime as dt

import pytest
from cassandra import ConsistencyLevel, InvalidRequest
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.metadata import IndexMetadata, MaterializedViewMetadata
from cassandra.query import SimpleStatement

from conftest import create_keyspace, driver_cluster
from indexes_views_util import FILTERING, paged, record_events, wait_for


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
