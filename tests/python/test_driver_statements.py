"""Simple, prepared and batch statements through the DataStax Python
driver: parameters, routing keys, paging through fetch_size, null and unset
values, TTL, writetime and USING TIMESTAMP."""

import time

import pytest
from cassandra import ConsistencyLevel, InvalidRequest
from cassandra.query import (UNSET_VALUE, BatchStatement, BatchType,
                             SimpleStatement, dict_factory, tuple_factory)

from conftest import create_keyspace, driver_cluster

KS = "st"


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, KS)
    session.execute("CREATE TABLE IF NOT EXISTS st.kv (k int, c int, v text, "
                    "PRIMARY KEY (k, c))")
    session.execute("CREATE TABLE IF NOT EXISTS st.wide (a text, b int, c int, "
                    "v int, PRIMARY KEY ((a, b), c)) "
                    "WITH CLUSTERING ORDER BY (c DESC)")
    return KS


def test_simple_statements_with_positional_and_named_parameters(session, ks):
    session.execute("INSERT INTO st.kv (k, c, v) VALUES (%s, %s, %s)", (1, 1, "one"))
    session.execute("INSERT INTO st.kv (k, c, v) VALUES (%(k)s, %(c)s, %(v)s)",
                    {"k": 1, "c": 2, "v": "it's two"})
    stmt = SimpleStatement("INSERT INTO st.kv (k, c, v) VALUES (1, 3, 'three')",
                           consistency_level=ConsistencyLevel.QUORUM)
    session.execute(stmt)
    rows = session.execute("SELECT c, v FROM st.kv WHERE k = %s", [1])
    assert [(r.c, r.v) for r in rows] == [(1, "one"), (2, "it's two"), (3, "three")]
    assert rows.column_names == ["c", "v"]
    assert session.execute("SELECT v FROM st.kv WHERE k = 1 AND c = 2").one().v \
        == "it's two"
    assert session.execute("SELECT v FROM st.kv WHERE k = 99").one() is None


def test_row_factories(cluster, session, ks):
    session.execute("INSERT INTO st.kv (k, c, v) VALUES (2, 1, 'x')")
    from cassandra.cluster import EXEC_PROFILE_DEFAULT
    profile = cluster.profile_manager.profiles[EXEC_PROFILE_DEFAULT]
    clone = session.execution_profile_clone_update(profile, row_factory=dict_factory)
    assert session.execute("SELECT k, c, v FROM st.kv WHERE k = 2",
                           execution_profile=clone).one() == {"k": 2, "c": 1, "v": "x"}
    clone = session.execution_profile_clone_update(profile, row_factory=tuple_factory)
    assert session.execute("SELECT k, c, v FROM st.kv WHERE k = 2",
                           execution_profile=clone).one() == (2, 1, "x")


def test_prepared_statement_metadata_and_routing(cluster, session, ks):
    insert = session.prepare("INSERT INTO st.wide (c, b, v, a) VALUES (?, ?, ?, ?)")
    # Partition key (a, b) sits at bind positions 3 and 1.
    assert insert.routing_key_indexes == [3, 1]
    assert [c.name for c in insert.column_metadata] == ["c", "b", "v", "a"]
    bound = insert.bind((5, 7, 50, "p"))
    assert bound.keyspace == "st"
    # A composite routing key: each component length-prefixed, 0-terminated.
    assert bound.routing_key == b"\x00\x01p\x00" + b"\x00\x04\x00\x00\x00\x07\x00"
    rs = session.execute(bound)
    host = cluster.metadata.all_hosts()[0]
    assert rs.response_future.coordinator_host == host

    select = session.prepare("SELECT c, v FROM st.wide WHERE a = ? AND b = ?")
    assert select.routing_key_indexes == [0, 1]
    assert [c[2] for c in select.result_metadata] == ["c", "v"]
    for c in range(3):
        session.execute(insert, (c, 7, c * 10, "p"))
    rows = session.execute(select, ("p", 7))
    assert [(r.c, r.v) for r in rows] == [(5, 50), (2, 20), (1, 10), (0, 0)]

    named = session.prepare("SELECT v FROM st.wide WHERE a = :a AND b = :b AND c = :c")
    assert session.execute(named, {"a": "p", "b": 7, "c": 5}).one().v == 50

    # Preparing twice gives the same id.
    again = session.prepare("INSERT INTO st.wide (c, b, v, a) VALUES (?, ?, ?, ?)")
    assert again.query_id == insert.query_id


def test_prepared_select_star_sees_added_column(session, ks):
    session.execute("CREATE TABLE st.grow (k int PRIMARY KEY, v int)")
    session.execute("INSERT INTO st.grow (k, v) VALUES (1, 1)")
    select = session.prepare("SELECT * FROM st.grow WHERE k = ?")
    assert session.execute(select, [1]).one()._fields == ("k", "v")
    session.execute("ALTER TABLE st.grow ADD w text")
    session.execute("INSERT INTO st.grow (k, v, w) VALUES (1, 1, 'new')")
    row = session.execute(select, [1]).one()
    assert row._asdict() == {"k": 1, "v": 1, "w": "new"}


def test_batches_logged_unlogged_with_prepared_children(session, ks):
    session.execute("CREATE TABLE st.b (k int, c int, v text, PRIMARY KEY (k, c))")
    insert = session.prepare("INSERT INTO st.b (k, c, v) VALUES (?, ?, ?)")
    for batch_type, k in ((BatchType.LOGGED, 1), (BatchType.UNLOGGED, 2)):
        batch = BatchStatement(batch_type=batch_type)
        for c in range(5):
            batch.add(insert, (k, c, "p%d" % c))
        batch.add(SimpleStatement("INSERT INTO st.b (k, c, v) VALUES (%s, %s, %s)"),
                  (k, 5, "simple"))
        batch.add("UPDATE st.b SET v = 'plain' WHERE k = %d AND c = 6" % k)
        batch.add(SimpleStatement("DELETE FROM st.b WHERE k = %s AND c = %s"), (k, 0))
        session.execute(batch)
        rows = session.execute("SELECT c, v FROM st.b WHERE k = %s", (k,))
        assert [(r.c, r.v) for r in rows] == \
            [(1, "p1"), (2, "p2"), (3, "p3"), (4, "p4"), (5, "simple"), (6, "plain")]

    # A batch with a timestamp applies it to every child.
    session.execute("BEGIN UNLOGGED BATCH USING TIMESTAMP 1000 "
                    "INSERT INTO st.b (k, c, v) VALUES (3, 1, 'old'); "
                    "INSERT INTO st.b (k, c, v) VALUES (3, 2, 'old') APPLY BATCH")
    rows = session.execute("SELECT writetime(v) AS w FROM st.b WHERE k = 3")
    assert [r.w for r in rows] == [1000, 1000]
    # A write with a lower timestamp loses.
    session.execute("INSERT INTO st.b (k, c, v) VALUES (3, 1, 'older') USING TIMESTAMP 999")
    assert session.execute("SELECT v FROM st.b WHERE k = 3 AND c = 1").one().v == "old"

    # Batch errors surface as InvalidRequest.
    bad = BatchStatement()
    bad.add("SELECT * FROM st.b")
    with pytest.raises(InvalidRequest):
        session.execute(bad)


@pytest.fixture(scope="module")
def paged(session, ks):
    session.execute("CREATE TABLE st.paged (k int, c int, v int, PRIMARY KEY (k, c))")
    insert = session.prepare("INSERT INTO st.paged (k, c, v) VALUES (?, ?, ?)")
    from cassandra.concurrent import execute_concurrent_with_args
    args = [(k, c, k * 1000 + c) for k in range(5) for c in range(100)]
    for ok, _ in execute_concurrent_with_args(session, insert, args, concurrency=100):
        assert ok
    return args


def test_paging_simple_statement_iterates_across_pages(session, paged):
    stmt = SimpleStatement("SELECT c, v FROM st.paged WHERE k = 1", fetch_size=7)
    rs = session.execute(stmt)
    assert len(rs.current_rows) == 7
    assert rs.has_more_pages
    assert rs.paging_state is not None
    assert [(r.c, r.v) for r in rs] == [(c, 1000 + c) for c in range(100)]

    # ORDER BY DESC pages backwards.
    stmt = SimpleStatement("SELECT c FROM st.paged WHERE k = 2 ORDER BY c DESC",
                           fetch_size=30)
    assert [r.c for r in session.execute(stmt)] == list(range(99, -1, -1))

    # A whole-table scan pages across partitions; every row once.
    stmt = SimpleStatement("SELECT k, c FROM st.paged", fetch_size=33)
    seen = [(r.k, r.c) for r in session.execute(stmt)]
    assert sorted(seen) == sorted((k, c) for k, c, _ in paged)
    assert len(set(seen)) == len(seen)

    # IN over several partitions with paging.
    stmt = SimpleStatement("SELECT k, c FROM st.paged WHERE k IN (3, 0) AND c < 10",
                           fetch_size=4)
    assert [(r.k, r.c) for r in session.execute(stmt)] == \
        [(0, c) for c in range(10)] + [(3, c) for c in range(10)]


def test_paging_prepared_and_paging_state_resume(session, paged):
    select = session.prepare("SELECT c, v FROM st.paged WHERE k = ?")
    select.fetch_size = 10
    rs = session.execute(select, [3])
    first = list(rs.current_rows)
    assert [r.c for r in first] == list(range(10))
    state = rs.paging_state
    assert state

    # Resume from the saved state, in the same session and in another.
    rs2 = session.execute(select, [3], paging_state=state)
    assert [r.c for r in rs2.current_rows] == list(range(10, 20))
    rs3 = session.execute(SimpleStatement("SELECT c, v FROM st.paged WHERE k = 3",
                                          fetch_size=10), paging_state=state)
    assert [r.c for r in rs3.current_rows] == list(range(10, 20))

    # fetch_next_page walks to the end (like Cassandra, a full last page
    # may be followed by an empty one).
    pages, rows = 1, len(first)
    while rs.has_more_pages:
        rs.fetch_next_page()
        pages += 1
        rows += len(rs.current_rows)
    assert rows == 100 and pages in (10, 11)

    # Paging with a LIMIT stops at the limit.
    limited = SimpleStatement("SELECT c FROM st.paged WHERE k = 4 LIMIT 25", fetch_size=10)
    assert [r.c for r in session.execute(limited)] == list(range(25))

    # Asynchronous paging through ResponseFuture callbacks.
    fut = session.execute_async(select, [4])
    got = []
    done = []

    def on_page(rows):
        got.extend(r.c for r in rows)
        if fut.has_more_pages:
            fut.start_fetching_next_page()
        else:
            done.append(True)

    fut.add_callbacks(on_page, lambda e: done.append(e))
    deadline = time.time() + 10
    while not done and time.time() < deadline:
        time.sleep(0.01)
    assert done == [True]
    assert got == list(range(100))


def test_null_and_unset_values(session, ks):
    session.execute("CREATE TABLE st.nulls (k int PRIMARY KEY, a text, b int, "
                    "l list<int>)")
    insert = session.prepare("INSERT INTO st.nulls (k, a, b, l) VALUES (?, ?, ?, ?)")
    session.execute(insert, (1, "a", 1, [1]))
    # UNSET leaves a column alone; None writes a tombstone.
    session.execute(insert, (1, UNSET_VALUE, None, UNSET_VALUE))
    row = session.execute("SELECT a, b, l FROM st.nulls WHERE k = 1").one()
    assert (row.a, row.b, row.l) == ("a", None, [1])
    # Missing trailing values in a dict bind are unset in v4+.
    session.execute(insert, {"k": 1, "l": [2, 3]})
    row = session.execute("SELECT a, b, l FROM st.nulls WHERE k = 1").one()
    assert (row.a, row.b, row.l) == ("a", None, [2, 3])
    # An empty collection is null.
    session.execute(insert, (2, "", None, []))
    row = session.execute("SELECT a, b, l FROM st.nulls WHERE k = 2").one()
    assert (row.a, row.b, row.l) == ("", None, None)
    # Literal null through a simple statement.
    session.execute("INSERT INTO st.nulls (k, a) VALUES (%s, %s)", (3, None))
    assert session.execute("SELECT a FROM st.nulls WHERE k = 3").one().a is None
    # Unset or null in the key is an error (the driver itself refuses an
    # unset partition key, as it cannot compute the routing key).
    with pytest.raises(ValueError):
        session.execute(insert, (UNSET_VALUE, "x", 1, []))
    with pytest.raises(InvalidRequest, match="k"):
        session.execute(insert, (None, "x", 1, []))
    select = session.prepare("SELECT * FROM st.kv WHERE k = ? AND c = ?")
    with pytest.raises(InvalidRequest, match="Invalid unset value for column c"):
        session.execute(select, [1, UNSET_VALUE])
    with pytest.raises(InvalidRequest, match="Invalid null value .*c"):
        session.execute(select, [1, None])
    update = session.prepare("UPDATE st.kv SET v = ? WHERE k = ? AND c = ?")
    with pytest.raises(InvalidRequest, match="Invalid unset value for column c"):
        session.execute(update, ["x", 1, UNSET_VALUE])
    # An unset LIMIT / TTL / TIMESTAMP means none.
    lim = session.prepare("SELECT k FROM st.nulls LIMIT ?")
    assert len(session.execute(lim, [UNSET_VALUE]).current_rows) == 3
    ttl = session.prepare("INSERT INTO st.nulls (k, a) VALUES (?, ?) USING TTL ?")
    session.execute(ttl, (4, "t", UNSET_VALUE))
    assert session.execute("SELECT ttl(a) FROM st.nulls WHERE k = 4").one()[0] is None


def test_ttl_writetime_and_using_timestamp(session, ks):
    session.execute("CREATE TABLE st.ttl (k int PRIMARY KEY, v text, w int) "
                    "WITH default_time_to_live = 1000")
    before = int(time.time() * 1e6)
    session.execute("INSERT INTO st.ttl (k, v) VALUES (1, 'a') USING TTL 100")
    after = int(time.time() * 1e6)
    row = session.execute("SELECT ttl(v) AS t, writetime(v) AS w FROM st.ttl "
                          "WHERE k = 1").one()
    assert 95 <= row.t <= 100
    # The driver sends a client-side default timestamp.
    assert before <= row.w <= after

    # The table's default TTL applies when none is given.
    session.execute("INSERT INTO st.ttl (k, v) VALUES (2, 'b')")
    assert 990 <= session.execute("SELECT ttl(v) FROM st.ttl WHERE k = 2").one()[0] <= 1000

    prepared = session.prepare(
        "INSERT INTO st.ttl (k, v, w) VALUES (?, ?, ?) USING TTL ? AND TIMESTAMP ?")
    session.execute(prepared, (3, "c", 3, 500, 123456))
    row = session.execute("SELECT ttl(v) AS t, writetime(w) AS w FROM st.ttl "
                          "WHERE k = 3").one()
    assert 490 <= row.t <= 500 and row.w == 123456
    # USING TIMESTAMP decides which write wins, whatever the arrival order.
    session.execute("UPDATE st.ttl USING TIMESTAMP 123455 SET v = 'lost' WHERE k = 3")
    session.execute("UPDATE st.ttl USING TIMESTAMP 123457 SET w = 4 WHERE k = 3")
    row = session.execute("SELECT v, w FROM st.ttl WHERE k = 3").one()
    assert (row.v, row.w) == ("c", 4)
    # USING TIMESTAMP wins over the driver's default timestamp.
    session.execute("INSERT INTO st.ttl (k, v) VALUES (4, 'd') USING TIMESTAMP 42")
    assert session.execute("SELECT writetime(v) FROM st.ttl WHERE k = 4").one()[0] == 42
    # TTL 0 means no expiry even with a default TTL.
    session.execute("INSERT INTO st.ttl (k, v) VALUES (5, 'e') USING TTL 0")
    assert session.execute("SELECT ttl(v) FROM st.ttl WHERE k = 5").one()[0] is None
    # Expiry: a 1 s TTL is gone 1.5 s later.
    session.execute("INSERT INTO st.ttl (k, v) VALUES (6, 'f') USING TTL 1")
    assert session.execute("SELECT v FROM st.ttl WHERE k = 6").one().v == "f"
    time.sleep(1.5)
    assert session.execute("SELECT v FROM st.ttl WHERE k = 6").one() is None
    with pytest.raises(InvalidRequest, match="TTL"):
        session.execute("INSERT INTO st.ttl (k, v) VALUES (7, 'g') USING TTL -1")


def test_writetime_of_collection_elements_with_bound_keys(session, ks):
    """Cassandra 5's WRITETIME / TTL of an element or a slice, the key bound
    in a prepared statement: typed by the map's key, results bigint / int
    and list<bigint>."""
    session.execute("CREATE TABLE st.wm (k int PRIMARY KEY, m map<int, text>)")
    session.execute("UPDATE st.wm USING TIMESTAMP 5 SET m = m + {1: 'a', 3: 'c'} "
                    "WHERE k = 1")
    session.execute("UPDATE st.wm USING TIMESTAMP 6 AND TTL 300 SET m[2] = 'b' "
                    "WHERE k = 1")
    prepared = session.prepare(
        "SELECT writetime(m[?]) AS w, ttl(m[?]) AS t, writetime(m[?..?]) AS s "
        "FROM st.wm WHERE k = ?")
    assert [c.type.typename for c in prepared.column_metadata] == ["int"] * 5
    assert [c[3].typename for c in prepared.result_metadata] == [
        "bigint", "int", "list"]
    row = session.execute(prepared, (2, 2, 1, 2, 1)).one()
    assert row.w == 6 and 290 <= row.t <= 300 and row.s == [5, 6]
    row = session.execute(prepared, (9, 1, 3, None, 1)).one()
    assert row.w is None and row.t is None and row.s == [5]


def test_tuple_list_set_map_selectors_and_type_hints(session, ks):
    """Cassandra 4's selectors that build a value of several selectors, and
    type hints: the driver decodes each by the result metadata's type."""
    session.execute("CREATE TABLE st.sel (k int PRIMARY KEY, a int, b int, "
                    "s text)")
    session.execute("INSERT INTO st.sel (k, a, b, s) VALUES (1, 3, 1, 'x')")
    prepared = session.prepare(
        "SELECT [a, b], {a, b}, {a: s}, (a, s), (varint) a, [a, ?] "
        "FROM st.sel WHERE k = ?")
    assert [c[3].typename for c in prepared.result_metadata] == [
        "list", "set", "map", "tuple", "varint", "list"]
    rows = session.execute(prepared, (7, 1))
    assert rows.column_names == [
        "[a, b]", "{a, b}", "{a: s}", "(a, s)", "(varint)a", "[a, ?]"]
    row = rows.one()
    assert row[0] == [3, 1] and list(row[1]) == [1, 3]
    assert dict(row[2]) == {3: "x"} and row[3] == (3, "x")
    assert row[4] == 3 and row[5] == [3, 7]
    with pytest.raises(InvalidRequest, match="null is not supported inside "
                       "collections"):
        session.execute(prepared, (None, 1))


@pytest.mark.parametrize("version", [3, 4])
def test_older_protocol_versions(node, version):
    c = driver_cluster(node, protocol_version=version)
    try:
        s = c.connect()
        assert c.protocol_version == version
        create_keyspace(s, "st_v%d" % version)
        s.execute("CREATE TABLE IF NOT EXISTS st_v%d.t (k int, c int, "
                  "PRIMARY KEY (k, c))" % version)
        insert = s.prepare("INSERT INTO st_v%d.t (k, c) VALUES (?, ?)" % version)
        for c_ in range(20):
            s.execute(insert, (1, c_))
        stmt = SimpleStatement("SELECT c FROM st_v%d.t WHERE k = 1" % version,
                               fetch_size=6)
        assert [r.c for r in s.execute(stmt)] == list(range(20))
        batch = BatchStatement()
        batch.add(insert, (2, 1))
        batch.add(insert, (2, 2))
        s.execute(batch)
        assert len(s.execute("SELECT * FROM st_v%d.t WHERE k = 2" % version)
                   .current_rows) == 2
    finally:
        c.shutdown()


def test_unset_inside_a_tuple_is_refused(session, ks):
    """An unset bind value inside a tuple literal is an error (Cassandra's
    message), not a null field."""
    session.execute("CREATE TABLE IF NOT EXISTS st.tup (k int PRIMARY KEY, "
                    "t tuple<int, int>)")
    insert = session.prepare("INSERT INTO st.tup (k, t) VALUES (?, (?, ?))")
    with pytest.raises(InvalidRequest,
                       match="Invalid unset value for tuple field number 1"):
        session.execute(insert, (1, 5, UNSET_VALUE))
    assert session.execute("SELECT * FROM st.tup WHERE k = 1").one() is None
    session.execute(insert, (1, 5, None))
    assert session.execute("SELECT t FROM st.tup WHERE k = 1").one().t == (5, None)


def test_arithmetic_in_selectors_and_terms(session, ks):
    session.execute("CREATE TABLE IF NOT EXISTS %s.arith (k int PRIMARY KEY, "
                    "i int, d double, ts timestamp)" % ks)
    insert = session.prepare("INSERT INTO %s.arith (k, i, d, ts) "
                             "VALUES (?, (int) ? * 2, 1.5 + (double) ?, ?)" % ks)
    # The markers take the types the operations give them.
    assert [c.type.typename for c in insert.column_metadata] == \
        ["int", "int", "double", "timestamp"]
    import datetime
    session.execute(insert, [1, 21, 1.0, datetime.datetime(2020, 1, 31)])
    rs = session.execute("SELECT i + 1, -d, i / 4, d * i, ts + 1mo "
                         "FROM %s.arith WHERE k = 2 - 1" % ks)
    assert rs.column_names == ["i + 1", "-d", "i / 4", "d * i", "ts + 1mo"]
    assert [c[1].typename for c in [(None, t) for t in rs.column_types]] == \
        ["int", "double", "int", "double", "timestamp"]
    assert tuple(rs.one()) == (43, -2.5, 10, 105.0,
                               datetime.datetime(2020, 2, 29))
