"""WHERE clauses of UPDATE and DELETE through the Python driver, prepared:
multi-column relations and IN lists bound as values (an empty list writes
nothing), as Cassandra 4 accepts them."""

import pytest
from cassandra import InvalidRequest

from conftest import create_keyspace


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, "write_where")
    session.set_keyspace("write_where")
    session.execute("CREATE TABLE IF NOT EXISTS t (k int, c1 int, c2 int, v int, "
                    "s int static, PRIMARY KEY (k, c1, c2))")
    return session


def rows(session, k):
    return [(r.c1, r.c2, r.v) for r in
            session.execute("SELECT c1, c2, v FROM t WHERE k = %s", (k,))]


def test_multi_column_equality_and_in(ks):
    ks.execute(ks.prepare("UPDATE t SET v = ? WHERE k = ? AND (c1, c2) = (?, ?)"),
               (1, 1, 0, 0))
    ks.execute(ks.prepare("UPDATE t SET v = ? WHERE k = ? AND (c1, c2) IN ?"),
               (2, 1, [(0, 1), (1, 0)]))
    ks.execute(ks.prepare("UPDATE t SET v = ? WHERE k = ? AND (c1, c2) = ?"),
               (3, 1, (2, 2)))
    assert rows(ks, 1) == [(0, 0, 1), (0, 1, 2), (1, 0, 2), (2, 2, 3)]
    ks.execute(ks.prepare("DELETE FROM t WHERE k = ? AND (c1, c2) IN ?"),
               (1, [(0, 0), (2, 2)]))
    assert rows(ks, 1) == [(0, 1, 2), (1, 0, 2)]
    ks.execute(ks.prepare("DELETE FROM t WHERE k = ? AND (c1, c2) > (?, ?)"), (1, 0, 1))
    assert rows(ks, 1) == [(0, 1, 2)]


def test_empty_bound_in_lists_write_nothing(ks):
    ks.execute(ks.prepare("UPDATE t SET v = 1, s = 2 WHERE k = 2 AND c1 IN ? AND c2 = 0"),
               ([],))
    ks.execute(ks.prepare("UPDATE t SET v = 1 WHERE k IN ? AND c1 = 0 AND c2 = 0"), ([],))
    ks.execute(ks.prepare("UPDATE t SET v = 1 WHERE k = 2 AND (c1, c2) IN ?"), ([],))
    assert list(ks.execute("SELECT * FROM t WHERE k = 2")) == []
    ks.execute("INSERT INTO t (k, c1, c2, v) VALUES (3, 0, 0, 0)")
    ks.execute(ks.prepare("DELETE FROM t WHERE k = 3 AND c1 IN ?"), ([],))
    ks.execute(ks.prepare("DELETE FROM t WHERE k IN ?"), ([],))
    assert rows(ks, 3) == [(0, 0, 0)]


def test_null_in_list_is_an_error(ks):
    with pytest.raises(InvalidRequest, match="Invalid null value for column c1"):
        ks.execute(ks.prepare("UPDATE t SET v = 1 WHERE k = 2 AND c1 IN ? AND c2 = 0"),
                   (None,))
    with pytest.raises(InvalidRequest, match="Invalid null value for IN restriction"):
        ks.execute(ks.prepare("UPDATE t SET v = 1 WHERE k = 2 AND (c1, c2) IN ?"),
                   (None,))
