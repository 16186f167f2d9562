"""User-defined types through the DataStax Python driver: the driver's
schema metadata (read from system_schema.types and kept current by schema
change events), values mapped to registered classes and to namedtuples,
prepared statements binding UDTs, field updates, ALTER TYPE seen by old
rows, and the errors. Everything here would pass against Cassandra 4."""

import time

import pytest
from cassandra import InvalidRequest

from conftest import create_keyspace


class Address:
    def __init__(self, street=None, city=None, zip=None):
        self.street = street
        self.city = city
        self.zip = zip


def wait_for(predicate, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, "udt")
    session.execute("CREATE TYPE IF NOT EXISTS udt.address "
                    "(street text, city text, zip int)")
    session.execute("CREATE TYPE IF NOT EXISTS udt.person "
                    "(name text, home frozen<address>, tags set<text>)")
    session.execute("CREATE TABLE IF NOT EXISTS udt.users (id int PRIMARY KEY, "
                    "home address, work frozen<address>, "
                    "past list<frozen<address>>, who frozen<person>)")
    return "udt"


def test_metadata_lists_types_with_fields(cluster, session, ks):
    assert wait_for(lambda: "person" in
                    cluster.metadata.keyspaces["udt"].user_types)
    types = cluster.metadata.keyspaces["udt"].user_types
    address = types["address"]
    assert address.field_names == ["street", "city", "zip"]
    assert address.field_types == ["text", "text", "int"]
    assert types["person"].field_types == ["text", "frozen<address>",
                                           "set<text>"]
    table = cluster.metadata.keyspaces["udt"].tables["users"]
    assert table.columns["home"].cql_type == "address"
    assert table.columns["work"].cql_type == "frozen<address>"
    assert table.columns["past"].cql_type == "list<frozen<address>>"
    cql = cluster.metadata.keyspaces["udt"].export_as_string()
    # The driver orders types by dependency: address before person.
    assert cql.index("CREATE TYPE udt.address") < cql.index("CREATE TYPE udt.person")


def test_values_round_trip_through_registered_class(cluster, session, ks):
    cluster.register_user_type("udt", "address", Address)
    insert = session.prepare(
        "INSERT INTO udt.users (id, home, work, past) VALUES (?, ?, ?, ?)")
    session.execute(insert, [1, Address("1 Main", "SF", 94102),
                             Address("2 Market", "SF", None),
                             [Address("3 Old", "LA", 90001)]])
    row = session.execute("SELECT home, work, past FROM udt.users WHERE id = 1").one()
    assert isinstance(row.home, Address)
    assert (row.home.street, row.home.city, row.home.zip) == ("1 Main", "SF", 94102)
    assert (row.work.street, row.work.zip) == ("2 Market", None)
    assert [(a.street, a.zip) for a in row.past] == [("3 Old", 90001)]

    # A frozen UDT is a key-comparable value: usable in WHERE ... = ?.
    session.execute("CREATE TABLE IF NOT EXISTS udt.by_address "
                    "(a frozen<address>, id int, PRIMARY KEY (a, id))")
    session.execute("INSERT INTO udt.by_address (a, id) VALUES (%s, 7)",
                    [Address("9 Key", "NY", 10001)])
    found = session.execute("SELECT id FROM udt.by_address WHERE a = %s",
                            [Address("9 Key", "NY", 10001)]).one()
    assert found.id == 7


def test_field_update_delete_and_selection(session, ks):
    session.execute("INSERT INTO udt.users (id, home) VALUES (2, "
                    "{street: 'a', city: 'b', zip: 1})")
    session.execute("UPDATE udt.users SET home.city = %s WHERE id = 2", ["Paris"])
    session.execute("DELETE home.zip FROM udt.users WHERE id = 2")
    row = session.execute("SELECT home.street, home.city, home.zip "
                          "FROM udt.users WHERE id = 2").one()
    assert tuple(row) == ("a", "Paris", None)
    with pytest.raises(InvalidRequest,
                       match="Invalid operation \\(work.city = 'x'\\) for frozen UDT column work"):
        session.execute("UPDATE udt.users SET work.city = 'x' WHERE id = 2")


def test_nested_values_as_namedtuples(session, ks):
    session.execute("INSERT INTO udt.users (id, who) VALUES (3, "
                    "{name: 'Ann', home: {street: 's', city: 'c', zip: 5}, "
                    "tags: {'x', 'y'}})")
    who = session.execute("SELECT who FROM udt.users WHERE id = 3").one().who
    assert who.name == "Ann"
    assert who.home.zip == 5
    assert who.tags == {"x", "y"} or sorted(who.tags) == ["x", "y"]


def test_alter_type_is_seen_by_old_rows_and_metadata(cluster, session, ks):
    session.execute("CREATE TYPE IF NOT EXISTS udt.point (x int)")
    session.execute("CREATE TABLE IF NOT EXISTS udt.points "
                    "(k int PRIMARY KEY, p frozen<point>, q point)")
    session.execute("INSERT INTO udt.points (k, p, q) VALUES (1, {x: 1}, {x: 2})")
    session.execute("ALTER TYPE udt.point ADD y int")
    session.execute("ALTER TYPE udt.point RENAME x TO first")
    assert wait_for(lambda: cluster.metadata.keyspaces["udt"]
                    .user_types["point"].field_names == ["first", "y"])
    row = session.execute("SELECT p, q FROM udt.points WHERE k = 1").one()
    assert (row.p.first, row.p.y) == (1, None)
    assert (row.q.first, row.q.y) == (2, None)
    session.execute("UPDATE udt.points SET q.y = 3 WHERE k = 1")
    row = session.execute("SELECT q.first, q.y FROM udt.points WHERE k = 1").one()
    assert tuple(row) == (2, 3)


def test_drop_type_in_use_is_refused_then_allowed(cluster, session, ks):
    session.execute("CREATE TYPE IF NOT EXISTS udt.gone (a int)")
    session.execute("CREATE TABLE IF NOT EXISTS udt.uses_gone "
                    "(k int PRIMARY KEY, g frozen<gone>)")
    with pytest.raises(InvalidRequest,
                       match="Cannot drop user type 'udt.gone' as it is still "
                             "used by tables uses_gone"):
        session.execute("DROP TYPE udt.gone")
    session.execute("DROP TABLE udt.uses_gone")
    session.execute("DROP TYPE udt.gone")
    assert wait_for(lambda: "gone" not in
                    cluster.metadata.keyspaces["udt"].user_types)
    with pytest.raises(InvalidRequest, match="Unknown type udt.gone"):
        session.execute("CREATE TABLE udt.again (k int PRIMARY KEY, g frozen<gone>)")
