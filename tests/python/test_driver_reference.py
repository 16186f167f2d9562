"""The primary-key design guide's scenarios end to end through the Python
driver (the same scenarios as src/query/testdata/reference_*.test), with
prepared statements and driver-side values."""

import uuid
from datetime import datetime as dt
from decimal import Decimal

import pytest
from cassandra import InvalidRequest
from cassandra.query import BatchStatement, BatchType, SimpleStatement, ValueSequence

from conftest import create_keyspace

PET = uuid.UUID("123e4567-e89b-12d3-a456-426655440b23")
FILTERING = "ALLOW FILTERING"


def test_heartrate_v1_to_v4(session):
    create_keyspace(session, "pets")
    session.set_keyspace("pets")
    try:
        # v1: one reading per pet.
        session.execute("CREATE TABLE heartrate_v1 (pet_chip_id uuid, time timestamp, "
                        "heart_rate int, PRIMARY KEY (pet_chip_id))")
        ins = session.prepare("INSERT INTO heartrate_v1 (pet_chip_id, time, heart_rate) "
                              "VALUES (?, ?, ?)")
        session.execute(ins, (PET, dt(2019, 3, 4, 7, 1, 5), 100))
        session.execute(ins, (PET, dt(2019, 3, 4, 7, 1, 10), 90))
        rows = list(session.execute("SELECT * FROM heartrate_v1 WHERE pet_chip_id = %s", (PET,)))
        assert [(r.pet_chip_id, r.time, r.heart_rate) for r in rows] == \
            [(PET, dt(2019, 3, 4, 7, 1, 10), 90)]
        rng = "SELECT heart_rate FROM heartrate_v1 WHERE pet_chip_id = %s AND time >= %s AND time <= %s"
        args = (PET, dt(2019, 3, 4, 7, 1), dt(2019, 3, 4, 7, 2))
        with pytest.raises(InvalidRequest, match=FILTERING):
            session.execute(rng, args)
        assert [r.heart_rate for r in session.execute(rng + " ALLOW FILTERING", args)] == [90]

        # v2: time clusters the readings.
        session.execute("CREATE TABLE heartrate_v2 (pet_chip_id uuid, time timestamp, "
                        "heart_rate int, PRIMARY KEY (pet_chip_id, time))")
        ins = session.prepare("INSERT INTO heartrate_v2 (pet_chip_id, time, heart_rate) "
                              "VALUES (?, ?, ?)")
        for t, hr in [(dt(2019, 3, 4, 7, 1, 5), 100), (dt(2019, 3, 4, 7, 1, 10), 90),
                      (dt(2019, 3, 4, 7, 1, 50), 96), (dt(2019, 4, 4, 7, 1, 50), 99)]:
            session.execute(ins, (PET, t, hr))
        sel = session.prepare("SELECT time, heart_rate FROM heartrate_v2 WHERE pet_chip_id = ? "
                              "AND time >= ? AND time <= ?")
        assert sel.routing_key_indexes == [0]
        rows = session.execute(sel, (PET, dt(2019, 3, 4, 7, 1), dt(2019, 3, 4, 7, 2)))
        assert [r.heart_rate for r in rows] == [100, 90, 96]
        rows = session.execute("SELECT time, heart_rate FROM heartrate_v2 WHERE pet_chip_id = %s "
                               "ORDER BY time DESC LIMIT 2", (PET,))
        assert [(r.time, r.heart_rate) for r in rows] == \
            [(dt(2019, 4, 4, 7, 1, 50), 99), (dt(2019, 3, 4, 7, 1, 50), 96)]

        # v3: a composite partition key must be given whole.
        session.execute("CREATE TABLE heartrate_v3 (pet_chip_id uuid, time timestamp, "
                        "heart_rate int, pet_name text, "
                        "PRIMARY KEY ((pet_chip_id, time), pet_name))")
        ins = session.prepare("INSERT INTO heartrate_v3 (pet_chip_id, time, heart_rate, pet_name) "
                              "VALUES (?, ?, ?, ?)")
        assert ins.routing_key_indexes == [0, 1]
        session.execute(ins, (PET, dt(2019, 3, 4, 7, 1, 10), 90, "Duke"))
        with pytest.raises(InvalidRequest, match=FILTERING):
            session.execute("SELECT * FROM heartrate_v3 WHERE pet_chip_id = %s", (PET,))
        partial = session.prepare("SELECT pet_name FROM heartrate_v3 WHERE pet_chip_id = ? "
                                  "ALLOW FILTERING")
        assert partial.routing_key_indexes is None  # no full partition key: no routing
        assert [r.pet_name for r in session.execute(partial, (PET,))] == ["Duke"]
        full = session.prepare("SELECT * FROM heartrate_v3 WHERE pet_chip_id = ? AND time = ? "
                               "AND pet_name = ?")
        row = session.execute(full, (PET, dt(2019, 3, 4, 7, 1, 10), "Duke")).one()
        assert list(row._fields) == ["pet_chip_id", "time", "pet_name", "heart_rate"]
        assert row.heart_rate == 90

        # v4: partition per pet, clustered by name then heart rate.
        session.execute("CREATE TABLE heartrate_v4 (pet_chip_id uuid, time timestamp, "
                        "heart_rate int, pet_name text, "
                        "PRIMARY KEY (pet_chip_id, pet_name, heart_rate))")
        ins = session.prepare("INSERT INTO heartrate_v4 (pet_chip_id, time, heart_rate, pet_name) "
                              "VALUES (?, ?, ?, ?)")
        session.execute(ins, (PET, dt(2019, 3, 4, 7, 1, 10), 100, "Duke"))
        session.execute(ins, (PET, dt(2019, 3, 4, 7, 1, 20), 90, "Duke"))
        session.execute(ins, (PET, dt(2019, 3, 4, 7, 1, 30), 100, "Rex"))
        rows = session.execute("SELECT pet_name, heart_rate FROM heartrate_v4 "
                               "WHERE pet_chip_id = %s AND pet_name = 'Duke'", (PET,))
        assert [(r.pet_name, r.heart_rate) for r in rows] == [("Duke", 90), ("Duke", 100)]
        with pytest.raises(InvalidRequest, match='PRIMARY KEY column "heart_rate" cannot be '
                                                 'restricted as preceding column "pet_name"'):
            session.execute("SELECT * FROM heartrate_v4 WHERE pet_chip_id = %s "
                            "AND heart_rate = 100", (PET,))
    finally:
        session.set_keyspace("system")


def test_orders_get_scan_and_order_by_desc(session):
    create_keyspace(session, "shop")
    session.execute("CREATE TABLE shop.orders (userid text, orderid int, amount decimal, "
                    "PRIMARY KEY (userid, orderid))")
    session.execute("CREATE TABLE shop.orders_desc (userid text, orderid int, amount decimal, "
                    "PRIMARY KEY (userid, orderid)) WITH CLUSTERING ORDER BY (orderid DESC)")
    for table in ("orders", "orders_desc"):
        ins = session.prepare("INSERT INTO shop.%s (userid, orderid, amount) VALUES (?, ?, ?)"
                              % table)
        batch = BatchStatement(batch_type=BatchType.LOGGED)
        for oid, amount in [(100, "1.5"), (123, "2.5"), (200, "3.5"), (455, "4.5"), (456, "5.5")]:
            batch.add(ins, ("abc", oid, Decimal(amount)))
        batch.add(ins, ("xyz", 124, Decimal("6.5")))
        session.execute(batch)
    get = session.prepare("SELECT * FROM shop.orders WHERE userid = ? AND orderid = ?")
    assert session.execute(get, ("abc", 123)).one().amount == Decimal("2.5")
    assert session.execute(get, ("abc", 124)).one() is None
    scan = session.prepare("SELECT orderid, amount FROM shop.orders WHERE userid = ? "
                           "AND orderid > ? AND orderid < ?")
    assert [(r.orderid, r.amount) for r in session.execute(scan, ("abc", 123, 456))] == \
        [(200, Decimal("3.5")), (455, Decimal("4.5"))]
    desc = session.prepare("SELECT orderid FROM shop.orders WHERE userid = ? AND orderid >= ? "
                           "AND orderid <= ? ORDER BY orderid DESC LIMIT 3")
    assert [r.orderid for r in session.execute(desc, ("abc", 123, 456))] == [456, 455, 200]
    # The DESC table reads newest first without ORDER BY, and pages so.
    stmt = SimpleStatement("SELECT orderid FROM shop.orders_desc WHERE userid = 'abc'",
                           fetch_size=2)
    assert [r.orderid for r in session.execute(stmt)] == [456, 455, 200, 123, 100]
    assert [r.orderid for r in session.execute(
        "SELECT orderid FROM shop.orders_desc WHERE userid = 'abc' ORDER BY orderid ASC "
        "LIMIT 2")] == [100, 123]
    with pytest.raises(InvalidRequest, match="Order by is currently only supported on the "
                                             "clustered columns of the PRIMARY KEY, got amount"):
        session.execute("SELECT * FROM shop.orders WHERE userid = 'abc' ORDER BY amount DESC")
    with pytest.raises(InvalidRequest, match="ORDER BY is only supported when the partition "
                                             "key is restricted by an EQ or an IN"):
        session.execute("SELECT * FROM shop.orders ORDER BY orderid DESC")
    with pytest.raises(InvalidRequest, match=FILTERING):
        session.execute("SELECT * FROM shop.orders WHERE orderid = 123")
    rows = session.execute("SELECT userid, orderid FROM shop.orders WHERE orderid > 123 "
                           "AND orderid < 200 ALLOW FILTERING")
    assert [(r.userid, r.orderid) for r in rows] == [("xyz", 124)]


def test_time_series_host_event_ts_desc_and_buckets(session):
    session.execute("CREATE KEYSPACE IF NOT EXISTS metrics WITH replication = "
                    "{'class': 'NetworkTopologyStrategy', 'datacenter1': 1}")
    session.execute("CREATE TABLE metrics.events (hostname text, log_event text, ts timestamp, "
                    "value double, PRIMARY KEY ((hostname, log_event), ts))")
    session.execute("CREATE TABLE metrics.events_latest (hostname text, log_event text, "
                    "ts timestamp, value double, PRIMARY KEY ((hostname, log_event), ts)) "
                    "WITH CLUSTERING ORDER BY (ts DESC)")
    readings = [("web1", "cpu", dt(2026, 1, 1, 0, 0), 0.5), ("web1", "cpu", dt(2026, 1, 1, 0, 1), 0.75),
                ("web1", "cpu", dt(2026, 1, 1, 0, 2), 0.25), ("web1", "mem", dt(2026, 1, 1, 0, 1), 42.0),
                ("web2", "cpu", dt(2026, 1, 1, 0, 1), 0.125)]
    for table in ("events", "events_latest"):
        ins = session.prepare("INSERT INTO metrics.%s (hostname, log_event, ts, value) "
                              "VALUES (?, ?, ?, ?)" % table)
        assert ins.routing_key_indexes == [0, 1]
        batch = BatchStatement(batch_type=BatchType.UNLOGGED)
        for r in readings:
            batch.add(ins, r)
        session.execute(batch)
    period = session.prepare("SELECT ts, value FROM metrics.events WHERE hostname = ? "
                             "AND log_event = ? AND ts >= ? AND ts < ?")
    rows = session.execute(period, ("web1", "cpu", dt(2026, 1, 1, 0, 0, 30), dt(2026, 1, 1, 0, 5)))
    assert [(r.ts, r.value) for r in rows] == [(dt(2026, 1, 1, 0, 1), 0.75),
                                              (dt(2026, 1, 1, 0, 2), 0.25)]
    newest = [(r.ts, r.value) for r in session.execute(
        "SELECT ts, value FROM metrics.events WHERE hostname = 'web1' AND log_event = 'cpu' "
        "ORDER BY ts DESC LIMIT 2")]
    assert newest == [(dt(2026, 1, 1, 0, 2), 0.25), (dt(2026, 1, 1, 0, 1), 0.75)]
    latest = session.prepare("SELECT ts, value FROM metrics.events_latest WHERE hostname = ? "
                             "AND log_event = ? LIMIT ?")
    assert [(r.ts, r.value) for r in session.execute(latest, ("web1", "cpu", 2))] == newest
    with pytest.raises(InvalidRequest, match=FILTERING):
        session.execute("SELECT * FROM metrics.events WHERE hostname = 'web1'")
    rows = session.execute("SELECT log_event, ts FROM metrics.events WHERE hostname = %s "
                           "AND log_event IN %s AND ts = %s",
                           ("web1", ValueSequence(["cpu", "mem"]), dt(2026, 1, 1, 0, 1)))
    assert sorted(r.log_event for r in rows) == ["cpu", "mem"]

    # Bucketed: bucket = minute % 4; a time range reads every bucket with IN.
    session.execute("CREATE TABLE metrics.events_bucketed (bucket int, ts timestamp, "
                    "hostname text, log_event text, value double, "
                    "PRIMARY KEY (bucket, ts, hostname, log_event))")
    ins = session.prepare("INSERT INTO metrics.events_bucketed (bucket, ts, hostname, log_event, "
                          "value) VALUES (?, ?, ?, ?, ?)")
    for minute, host, event in [(0, "web1", "cpu"), (1, "web1", "cpu"), (2, "web1", "cpu"),
                                (3, "web2", "mem"), (4, "web2", "cpu")]:
        session.execute(ins, (minute % 4, dt(2026, 1, 1, 0, minute), host, event, float(minute + 1)))
    buckets = session.prepare("SELECT bucket, ts, hostname, value FROM metrics.events_bucketed "
                              "WHERE bucket IN ? AND ts >= ? AND ts <= ?")
    rows = session.execute(buckets, ([0, 1, 2, 3], dt(2026, 1, 1, 0, 1), dt(2026, 1, 1, 0, 3)))
    assert sorted((r.bucket, r.ts.minute, r.hostname, r.value) for r in rows) == \
        [(1, 1, "web1", 2.0), (2, 2, "web1", 3.0), (3, 3, "web2", 4.0)]
    count = session.prepare("SELECT count(*) FROM metrics.events_bucketed WHERE bucket IN ?")
    assert session.execute(count, ([0, 1, 2, 3],)).one()[0] == 5
    stmt = SimpleStatement("SELECT ts FROM metrics.events_bucketed WHERE bucket IN (0, 1, 2, 3)",
                           fetch_size=2)
    assert len(list(session.execute(stmt))) == 5
    with pytest.raises(InvalidRequest, match='PRIMARY KEY column "hostname" cannot be restricted '
                                             'as preceding column "ts" is not restricted'):
        session.execute("SELECT * FROM metrics.events_bucketed WHERE bucket = 0 "
                        "AND hostname = 'web1'")


def test_buyer_seller_orders(session):
    create_keyspace(session, "trade")
    session.execute("CREATE TABLE trade.buyer_orders (buyer_id bigint, ts timestamp, "
                    "order_number text, seller_id bigint, "
                    "PRIMARY KEY (buyer_id, ts, order_number))")
    session.execute("CREATE TABLE trade.seller_orders (seller_id bigint, ts timestamp, "
                    "order_number text, buyer_id bigint, "
                    "PRIMARY KEY (seller_id, ts, order_number))")
    session.execute("CREATE TABLE trade.orders (order_number text PRIMARY KEY, buyer_id bigint, "
                    "seller_id bigint, ts timestamp, total decimal, items list<text>)")
    order = session.prepare("INSERT INTO trade.orders (order_number, buyer_id, seller_id, ts, "
                            "total, items) VALUES (?, ?, ?, ?, ?, ?)")
    buyer = session.prepare("INSERT INTO trade.buyer_orders (buyer_id, ts, order_number, "
                            "seller_id) VALUES (?, ?, ?, ?)")
    seller = session.prepare("INSERT INTO trade.seller_orders (seller_id, ts, order_number, "
                             "buyer_id) VALUES (?, ?, ?, ?)")
    for number, b, s, ts, total, items in [
            ("o-1", 7, 70, dt(2026, 3, 1, 10), Decimal("19.99"), ["book"]),
            ("o-2", 7, 71, dt(2026, 3, 2, 11, 30), Decimal("5.00"), ["pen", "ink"]),
            ("o-3", 8, 70, dt(2026, 3, 2, 12), Decimal("100"), ["lamp"])]:
        batch = BatchStatement()  # logged: the three tables stay in step
        batch.add(order, (number, b, s, ts, total, items))
        batch.add(buyer, (b, ts, number, s))
        batch.add(seller, (s, ts, number, b))
        session.execute(batch)
    rows = session.execute("SELECT order_number, seller_id FROM trade.buyer_orders "
                           "WHERE buyer_id = %s AND ts >= %s AND ts < %s",
                           (7, dt(2026, 3, 1), dt(2026, 3, 3)))
    assert [(r.order_number, r.seller_id) for r in rows] == [("o-1", 70), ("o-2", 71)]
    rows = session.execute("SELECT ts, order_number, buyer_id FROM trade.seller_orders "
                           "WHERE seller_id = %s AND ts >= %s ORDER BY ts DESC",
                           (70, dt(2026, 3, 1)))
    assert [(r.order_number, r.buyer_id) for r in rows] == [("o-3", 8), ("o-1", 7)]
    row = session.execute("SELECT buyer_id, seller_id, total, items FROM trade.orders "
                          "WHERE order_number = 'o-2'").one()
    assert (row.buyer_id, row.seller_id, row.total, row.items) == \
        (7, 71, Decimal("5.00"), ["pen", "ink"])
    rows = session.execute("SELECT order_number, total FROM trade.orders "
                           "WHERE order_number IN ('o-1', 'o-3')")
    assert sorted((r.order_number, r.total) for r in rows) == \
        [("o-1", Decimal("19.99")), ("o-3", Decimal("100"))]
    with pytest.raises(InvalidRequest, match=FILTERING):
        session.execute("SELECT * FROM trade.buyer_orders WHERE ts >= %s", (dt(2026, 3, 1),))
    with pytest.raises(InvalidRequest, match="Some partition key parts are missing: buyer_id"):
        session.execute("UPDATE trade.buyer_orders SET seller_id = 1 WHERE ts = %s "
                        "AND order_number = 'o-1'", (dt(2026, 3, 1, 10),))
    with pytest.raises(InvalidRequest, match="Invalid null value in condition for column buyer_id"):
        session.execute("SELECT * FROM trade.buyer_orders WHERE buyer_id = null")
