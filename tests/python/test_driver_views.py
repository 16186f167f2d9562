"""Materialized views on one node through the DataStax Python driver: views
read with paging and refused as write targets, the schema rules and
Cassandra 4's messages, view rows living as long as their base row,
indexes and views kept equal to their base under concurrent writes and
out-of-order timestamps, the buyer / seller / order example served by two
views, and the build records. Indexes: test_driver_indexes_views.py.

Everything here would pass against Apache Cassandra 4 with materialized
views enabled, except the tests named *_keywise_only (ScyllaDB's local
indexes and EXPLAIN)."""

import random
import re
import threading
import time
from datetime import datetime as dt
from datetime import timedelta
from decimal import Decimal

import pytest
from cassandra import AlreadyExists, InvalidRequest
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.query import BatchStatement, SimpleStatement

from conftest import create_keyspace
from indexes_views_util import FILTERING, VIEW_WRITE, paged, wait_for


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
