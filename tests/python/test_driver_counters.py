"""Counters through the DataStax Python driver: prepared increments from
eight threads at once are all counted, decrements, counter batches, deletes,
and the errors drivers see."""

import threading

import pytest
from cassandra import InvalidRequest
from cassandra.query import BatchStatement, BatchType, SimpleStatement
from cassandra import ConsistencyLevel

from conftest import create_keyspace


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, "ct")
    session.execute("CREATE TABLE IF NOT EXISTS ct.views (page text, day int, "
                    "hits counter, bytes counter, PRIMARY KEY (page, day))")
    return "ct"


def test_concurrent_increments_are_all_counted(session, ks):
    inc = session.prepare("UPDATE ct.views SET hits = hits + ?, "
                          "bytes = bytes + ? WHERE page = ? AND day = ?")

    def worker():
        for _ in range(100):
            session.execute(inc, (1, 512, "home", 1))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    row = session.execute("SELECT hits, bytes FROM ct.views WHERE page = 'home' "
                          "AND day = 1").one()
    assert (row.hits, row.bytes) == (800, 800 * 512)


def test_decrements_batches_and_deletes(session, ks):
    session.execute("UPDATE ct.views SET hits = hits - 3 WHERE page = 'a' AND day = 1")
    batch = BatchStatement(batch_type=BatchType.COUNTER)
    batch.add("UPDATE ct.views SET hits = hits + 10 WHERE page = 'a' AND day = 1")
    batch.add("UPDATE ct.views SET hits = hits + 10 WHERE page = 'a' AND day = 1")
    batch.add("UPDATE ct.views SET hits = hits + 1 WHERE page = 'b' AND day = 1")
    session.execute(batch)
    rows = session.execute("SELECT page, hits FROM ct.views WHERE page IN "
                           "('a', 'b') AND day = 1")
    assert sorted((r.page, r.hits) for r in rows) == [("a", 17), ("b", 1)]
    session.execute("DELETE FROM ct.views WHERE page = 'b' AND day = 1")
    assert session.execute("SELECT hits FROM ct.views WHERE page = 'b' AND "
                           "day = 1").one() is None


def test_counter_errors(session, ks):
    with pytest.raises(InvalidRequest, match="INSERT statements are not "
                       "allowed on counter tables"):
        session.execute("INSERT INTO ct.views (page, day, hits) VALUES ('x', 1, 1)")
    with pytest.raises(InvalidRequest, match="Cannot set the value of counter"):
        session.execute("UPDATE ct.views SET hits = 1 WHERE page = 'x' AND day = 1")
    with pytest.raises(InvalidRequest, match="Consistency level ANY is not yet "
                       "supported for counter table views"):
        session.execute(SimpleStatement(
            "UPDATE ct.views SET hits = hits + 1 WHERE page = 'x' AND day = 1",
            consistency_level=ConsistencyLevel.ANY))
    logged = BatchStatement(batch_type=BatchType.LOGGED)
    logged.add("UPDATE ct.views SET hits = hits + 1 WHERE page = 'x' AND day = 1")
    with pytest.raises(InvalidRequest, match="Cannot include a counter "
                       "statement in a logged batch"):
        session.execute(logged)
