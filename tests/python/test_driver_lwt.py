"""Lightweight transactions through the DataStax Python driver, as an
application uses them: ResultSet.was_applied, prepared conditional
statements, conditional batches, SERIAL reads, the errors, and concurrent
compare-and-set loops that must never lose an increment."""

import threading

import pytest
from cassandra import ConsistencyLevel, InvalidRequest
from cassandra.query import BatchStatement, SimpleStatement

from conftest import create_keyspace

KS = "lwt"


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, KS)
    session.execute("CREATE TABLE IF NOT EXISTS lwt.accounts (id text PRIMARY "
                    "KEY, owner text, balance int, tags set<text>)")
    session.execute("CREATE TABLE IF NOT EXISTS lwt.seats (show int, seat int, "
                    "sold int STATIC, holder text, PRIMARY KEY (show, seat))")
    return KS


def test_insert_if_not_exists_and_was_applied(session, ks):
    r = session.execute("INSERT INTO lwt.accounts (id, owner, balance) "
                        "VALUES ('a', 'ann', 10) IF NOT EXISTS")
    assert r.was_applied
    r = session.execute("INSERT INTO lwt.accounts (id, owner, balance) "
                        "VALUES ('a', 'bob', 99) IF NOT EXISTS")
    assert not r.was_applied
    row = r.one()
    assert row.owner == "ann" and row.balance == 10
    assert r.column_names == ["[applied]", "id", "balance", "owner", "tags"]
    assert session.execute("SELECT owner FROM lwt.accounts WHERE id = 'a'"
                           ).one().owner == "ann"


def test_prepared_conditions_report_current_values(session, ks):
    session.execute("INSERT INTO lwt.accounts (id, balance) VALUES ('p', 5)")
    debit = session.prepare("UPDATE lwt.accounts SET balance = ? WHERE id = ? "
                            "IF balance = ?")
    assert session.execute(debit, (3, "p", 5)).was_applied
    r = session.execute(debit, (1, "p", 5))
    assert not r.was_applied
    assert r.one().balance == 3
    # The same prepared statement applies again once its condition holds.
    assert session.execute(debit, (0, "p", 3)).was_applied
    ranged = session.prepare("UPDATE lwt.accounts SET owner = ? WHERE id = ? "
                             "IF balance IN ? AND owner = ?")
    assert session.execute(ranged, ("zed", "p", [0, 1], None)).was_applied
    assert session.execute("SELECT owner FROM lwt.accounts WHERE id = 'p'"
                           ).one().owner == "zed"


def test_if_exists_and_delete(session, ks):
    assert not session.execute("UPDATE lwt.accounts SET balance = 1 WHERE "
                               "id = 'ghost' IF EXISTS").was_applied
    assert session.execute("SELECT * FROM lwt.accounts WHERE id = 'ghost'"
                           ).one() is None
    session.execute("INSERT INTO lwt.accounts (id, balance) VALUES ('d', 1)")
    assert session.execute("DELETE FROM lwt.accounts WHERE id = 'd' IF EXISTS"
                           ).was_applied
    assert not session.execute("DELETE FROM lwt.accounts WHERE id = 'd' "
                               "IF EXISTS").was_applied


def test_static_and_batch_conditions(session, ks):
    # Sell seat 1 only while the show has sold fewer than two seats.
    session.execute("UPDATE lwt.seats SET sold = 0 WHERE show = 1 IF sold = null")
    batch = BatchStatement()
    batch.add("INSERT INTO lwt.seats (show, seat, holder) VALUES (1, 1, 'ann') "
              "IF NOT EXISTS")
    batch.add("UPDATE lwt.seats SET sold = 1 WHERE show = 1 IF sold = 0")
    assert session.execute(batch).was_applied
    again = BatchStatement()
    again.add("INSERT INTO lwt.seats (show, seat, holder) VALUES (1, 1, 'bob') "
              "IF NOT EXISTS")
    again.add("UPDATE lwt.seats SET sold = 2 WHERE show = 1 IF sold = 1")
    r = session.execute(again)
    assert not r.was_applied
    assert [(x.seat, x.holder, x.sold) for x in r] == [(1, "ann", 1)]
    rows = session.execute("SELECT seat, holder, sold FROM lwt.seats "
                           "WHERE show = 1")
    assert [(x.seat, x.holder, x.sold) for x in rows] == [(1, "ann", 1)]


def test_serial_reads_and_consistency_errors(session, ks):
    session.execute("INSERT INTO lwt.accounts (id, balance) VALUES ('s', 7) "
                    "IF NOT EXISTS")
    read = SimpleStatement("SELECT balance FROM lwt.accounts WHERE id = 's'",
                           consistency_level=ConsistencyLevel.SERIAL)
    assert session.execute(read).one().balance == 7
    serial_commit = SimpleStatement(
        "UPDATE lwt.accounts SET balance = 8 WHERE id = 's' IF balance = 7",
        consistency_level=ConsistencyLevel.SERIAL)
    with pytest.raises(InvalidRequest, match="SERIAL is not supported as "
                       "conditional update commit consistency"):
        session.execute(serial_commit)
    with pytest.raises(InvalidRequest, match="Cannot provide custom timestamp "
                       "for conditional updates"):
        session.execute("UPDATE lwt.accounts USING TIMESTAMP 1 SET balance = 1 "
                        "WHERE id = 's' IF balance = 7")
    with pytest.raises(InvalidRequest, match="IN on the partition key is not "
                       "supported with conditional updates"):
        session.execute("UPDATE lwt.accounts SET balance = 1 WHERE id IN "
                        "('s', 't') IF balance = 7")


def test_concurrent_compare_and_set_loses_no_increment(session, ks):
    """Eight threads add 1 to a balance with read / CAS-retry loops; every
    applied CAS must count exactly once (a lost update would leave the
    final balance below the number of applied rounds)."""
    session.execute("INSERT INTO lwt.accounts (id, balance) VALUES ('c', 0)")
    cas = session.prepare("UPDATE lwt.accounts SET balance = ? WHERE id = 'c' "
                          "IF balance = ?")
    applied = []
    errors = []

    def worker():
        s = session  # thread-safe; each request is its own round
        done = 0
        try:
            while done < 25:
                current = s.execute("SELECT balance FROM lwt.accounts WHERE "
                                    "id = 'c'").one().balance
                r = s.execute(cas, (current + 1, current))
                if r.was_applied:
                    done += 1
                else:
                    # A failed round reports the value that beat it.
                    assert r.one().balance != current
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        applied.append(done)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    final = session.execute("SELECT balance FROM lwt.accounts WHERE id = 'c'"
                            ).one().balance
    assert sum(applied) == 200
    assert final == 200
