"""Snapshots and restore (docs/security.md, 6): `keywise admin snapshot`,
`listsnapshots` and `clearsnapshot` print nodetool's lines; a snapshot
restored into a fresh node (its own data directory) or a fresh 3-node
cluster gives back every row as it was when the snapshot was taken, write
times and TTLs included, whatever was written or deleted since; a taken
tag is refused."""

import os
import re
import subprocess

import pytest
from cassandra import ConsistencyLevel

import local_cluster
from conftest import Node, create_keyspace, driver_cluster


def admin(node, *args, timeout=60):
    """keywise admin ACTION ... against `node` (a Node or a LocalCluster's
    first node)."""
    r = subprocess.run([local_cluster.BINARY, "admin", *args,
                        "--port", str(node.port)],
                       capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


ROWS = "SELECT k, c, v, m, a, writetime(v), ttl(v) FROM bk.t"


def rows(session):
    return sorted((r[0], r[1], r[2], r[3], r[4], r[5], r[6] is not None)
                  for r in session.execute(ROWS))


@pytest.fixture(scope="module")
def source():
    n = Node()
    cluster = driver_cluster(n)
    session = cluster.connect()
    create_keyspace(session, "bk")
    session.execute("CREATE TYPE bk.addr (street text, zip int)")
    session.execute(
        "CREATE TABLE bk.t (k int, c int, v text, m map<text, int>, "
        "a frozen<addr>, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY "
        "(c DESC) AND comment = 'backed up'")
    session.execute("CREATE TABLE bk.u (id int PRIMARY KEY, n int)")
    insert = session.prepare(
        "INSERT INTO bk.t (k, c, v, m, a) VALUES (?, ?, ?, ?, "
        "{street: 'main', zip: 1}) USING TIMESTAMP ?")
    for k in range(30):
        for c in range(4):
            session.execute(insert, (k, c, "v%d" % (k * c), {"x": k}, 1000 + k))
    session.execute("INSERT INTO bk.t (k, c, v) VALUES (99, 0, 'ttl') "
                    "USING TTL 86400")
    session.execute("DELETE FROM bk.t WHERE k = 3")
    session.execute("DELETE FROM bk.t WHERE k = 4 AND c > 1")
    session.execute("DELETE m['x'] FROM bk.t WHERE k = 5 AND c = 0")
    for i in range(10):
        session.execute("INSERT INTO bk.u (id, n) VALUES (%d, %d)" % (i, i))
    yield n, session
    cluster.shutdown()
    assert n.stop() == 0


def snapshot_dir(node, tag):
    return os.path.join(node.dir.name, "data", "snapshots", tag)


def test_snapshot_list_restore_clear(source):
    node, session = source
    expected = rows(session)
    expected_u = sorted(tuple(r) for r in session.execute("SELECT * FROM bk.u"))

    code, out, err = admin(node, "snapshot", "bk", "--tag", "b1")
    assert code == 0, err
    assert out == ("Requested creating snapshot(s) for [bk] with snapshot "
                   "name [b1] and options {skipFlush=false}\n"
                   "Snapshot directory: b1\n")
    assert os.path.isdir(os.path.join(snapshot_dir(node, "b1"), "checkpoint"))

    code, out, err = admin(node, "listsnapshots")
    assert code == 0, err
    lines = out.split("\n")
    assert lines[0] == "Snapshot Details: "
    assert re.match(r"^Snapshot name +Keyspace name +Column family name +"
                    r"True size +Size on disk$", lines[1]), out
    # One checkpoint for both tables: the same sizes on each row. Its
    # table files are all live still; the copied MANIFEST, OPTIONS and
    # CURRENT files are its true size.
    size = r"[\d.]+ (bytes|KiB|MiB)"
    m = re.match(r"^b1 +bk +t +(%s) +(%s)$" % (size, size), lines[2])
    assert m, out
    assert re.match(r"^b1 +bk +u +%s +%s$" % (
        re.escape(m.group(1)), re.escape(m.group(3))), lines[3]), out
    assert lines[4:] == ["", "Total TrueDiskSpaceUsed: " + m.group(1), "",
                         ""], out
    listed = session.execute(
        "SELECT name, keyspace_name, table_name, ephemeral, expires_at "
        "FROM system_views.snapshots").all()
    assert [tuple(r) for r in listed] == [("b1", "bk", "t", False, None),
                                         ("b1", "bk", "u", False, None)]

    # What happens after the snapshot is not in it.
    session.execute("DELETE FROM bk.t WHERE k = 7")
    session.execute("INSERT INTO bk.t (k, c, v) VALUES (8, 0, 'changed')")
    session.execute("INSERT INTO bk.t (k, c, v) VALUES (500, 0, 'new')")
    session.execute("TRUNCATE bk.u")

    fresh = Node()
    try:
        code, out, err = admin(fresh, "restore", snapshot_dir(node, "b1"))
        assert code == 0, err
        assert out == ("Restored bk.t from snapshot b1\n"
                       "Restored bk.u from snapshot b1\n")
        fresh_cluster = driver_cluster(fresh)
        try:
            restored = fresh_cluster.connect()
            assert rows(restored) == expected
            assert sorted(tuple(r) for r in
                          restored.execute("SELECT * FROM bk.u")) == expected_u
            table = fresh_cluster.metadata.keyspaces["bk"].tables["t"]
            assert table.options["comment"] == "backed up"
            # Once more, one table: harmless.
            code, out, err = admin(fresh, "restore", snapshot_dir(node, "b1"),
                                   "--keyspace", "bk", "--table", "t")
            assert code == 0, err
            assert out == "Restored bk.t from snapshot b1\n"
            assert rows(restored) == expected
        finally:
            fresh_cluster.shutdown()
    finally:
        assert fresh.stop() == 0

    code, out, err = admin(node, "clearsnapshot", "--tag", "b1")
    assert code == 0, err
    assert out == ("Requested clearing snapshot(s) for [all keyspaces] with "
                   "snapshot name [b1]\n")
    assert not os.path.exists(snapshot_dir(node, "b1"))
    code, out, err = admin(node, "listsnapshots")
    assert (code, out) == (0, "Snapshot Details: \nThere are no snapshots\n")


def test_counters_restore_once_whatever_the_loads(source):
    """A counter table restored into a fresh node reads the same totals;
    loading the snapshot a second time does not add them again (the
    counter's shards are copied as they are, not re-applied as
    increments)."""
    node, session = source
    create_keyspace(session, "bkc")
    session.execute("CREATE TABLE bkc.hits (page text PRIMARY KEY, "
                    "views counter, likes counter)")
    incr = session.prepare(
        "UPDATE bkc.hits SET views = views + ?, likes = likes + ? "
        "WHERE page = ?")
    for i in range(40):
        session.execute(incr, (i + 1, -(i % 3), "p%d" % (i % 7)))
    expected = sorted(tuple(r) for r in session.execute("SELECT * FROM bkc.hits"))
    assert len(expected) == 7
    code, out, err = admin(node, "snapshot", "bkc", "--tag", "c1")
    assert code == 0, err
    fresh = Node()
    try:
        for _ in range(2):
            code, out, err = admin(fresh, "restore", snapshot_dir(node, "c1"))
            assert code == 0, err
            assert out == "Restored bkc.hits from snapshot c1\n"
            fresh_cluster = driver_cluster(fresh)
            try:
                restored = fresh_cluster.connect()
                got = sorted(tuple(r) for r in
                             restored.execute("SELECT * FROM bkc.hits"))
                assert got == expected
                # Still a counter table that counts on.
                restored.execute("UPDATE bkc.hits SET views = views + 1000 "
                                 "WHERE page = 'p0'")
                p0 = restored.execute("SELECT views FROM bkc.hits "
                                      "WHERE page = 'p0'").one()[0]
                assert p0 == dict((r[0], r[2]) for r in expected)["p0"] + 1000
                restored.execute("UPDATE bkc.hits SET views = views - 1000 "
                                 "WHERE page = 'p0'")
            finally:
                fresh_cluster.shutdown()
    finally:
        assert fresh.stop() == 0
    code, _, err = admin(node, "clearsnapshot", "--tag", "c1")
    assert code == 0, err
    session.execute("DROP KEYSPACE bkc")  # the next tests snapshot every one


def test_restore_recreates_and_fills_secondary_indexes(source):
    """A snapshot's schema files keep the table's secondary indexes
    (global and local); the restore creates them before it loads the rows,
    so queries by the indexed column answer on the fresh node."""
    node, session = source
    create_keyspace(session, "bki")
    session.execute("CREATE TABLE bki.users (id int, part int, email text, "
                    "city text, PRIMARY KEY (part, id))")
    session.execute("CREATE INDEX users_email ON bki.users (email)")
    session.execute("CREATE INDEX users_city ON bki.users ((part), city)")
    for i in range(60):
        session.execute(
            "INSERT INTO bki.users (id, part, email, city) VALUES "
            "(%d, %d, 'u%d@x', 'c%d')" % (i, i % 4, i, i % 5))
    code, _, err = admin(node, "snapshot", "bki", "--tag", "i1")
    assert code == 0, err
    schema = open(os.path.join(snapshot_dir(node, "i1"), "schema", "bki",
                               "users.cql")).read()
    assert "CREATE INDEX users_email ON bki.users (email);" in schema, schema
    assert "CREATE INDEX users_city ON bki.users ((part), city);" in schema, \
        schema
    fresh = Node()
    try:
        code, out, err = admin(fresh, "restore", snapshot_dir(node, "i1"))
        assert code == 0, err
        assert out == "Restored bki.users from snapshot i1\n"
        fresh_cluster = driver_cluster(fresh)
        try:
            restored = fresh_cluster.connect()
            by_email = restored.execute(
                "SELECT id FROM bki.users WHERE email = 'u17@x'").all()
            assert [r.id for r in by_email] == [17]
            by_city = restored.execute(
                "SELECT id FROM bki.users WHERE part = 2 AND city = 'c0'").all()
            assert sorted(r.id for r in by_city) == sorted(
                i for i in range(60) if i % 4 == 2 and i % 5 == 0)
            indexes = fresh_cluster.metadata.keyspaces["bki"].indexes
            assert sorted(indexes) == ["users_city", "users_email"]
        finally:
            fresh_cluster.shutdown()
    finally:
        assert fresh.stop() == 0
    code, _, err = admin(node, "clearsnapshot", "--tag", "i1")
    assert code == 0, err
    session.execute("DROP KEYSPACE bki")  # the next tests snapshot every one


def test_taken_tag_and_bad_arguments(source):
    node, _ = source
    code, out, err = admin(node, "snapshot", "bk", "u", "--tag", "dup")
    assert code == 0, err
    code, out, err = admin(node, "snapshot", "--tag", "dup")
    assert code == 1
    assert "Snapshot dup already exists." in err
    code, out, err = admin(node, "snapshot", "--tag", "a/b")
    assert code == 1 and "Snapshot name cannot contain /" in err
    code, out, err = admin(node, "snapshot", "nokeyspace")
    assert code == 1 and "Keyspace nokeyspace does not exist" in err
    code, out, err = admin(node, "clearsnapshot")
    assert code == 2 and "Specify snapshot name or --all" in err
    code, out, err = admin(node, "clearsnapshot", "--tag", "x", "--all")
    assert code == 2 and "Specify only one of snapshot name or --all" in err
    code, out, err = admin(node, "restore", "/nonexistent/b1")
    assert code == 1 and "No snapshot in /nonexistent/b1" in err
    code, out, err = admin(node, "restore", snapshot_dir(node, "dup"),
                           "--keyspace", "bk", "--table", "t")
    assert code == 1 and "Snapshot dup does not hold bk.t" in err
    code, out, err = admin(node, "clearsnapshot", "--all")
    assert (code, out) == (0, "")
    assert not os.path.exists(snapshot_dir(node, "dup"))


def test_default_tag_skip_flush_and_clear_by_keyspace(source):
    node, session = source
    code, out, err = admin(node, "snapshot", "--skip-flush")
    assert code == 0, err
    m = re.match(r"^Requested creating snapshot\(s\) for \[all keyspaces\] "
                 r"with snapshot name \[(\d+)\] and options "
                 r"\{skipFlush=true\}\nSnapshot directory: (\d+)\n$", out)
    assert m and m.group(1) == m.group(2), out
    tag = m.group(1)
    flushed = session.execute("SELECT flushed FROM system_views.snapshots "
                              "WHERE name = %s", (tag,)).all()
    assert flushed and not any(r[0] for r in flushed)
    code, out, err = admin(node, "clearsnapshot", "--tag", tag, "other")
    assert code == 0, err
    assert out == ("Requested clearing snapshot(s) for [other] with snapshot "
                   "name [%s]\n" % tag)
    assert os.path.isdir(snapshot_dir(node, tag))
    code, out, err = admin(node, "clearsnapshot", "--tag", tag, "bk")
    assert code == 0, err
    assert not os.path.exists(snapshot_dir(node, tag))


@local_cluster.SKIP_WITHOUT_ETCD
def test_restore_into_a_fresh_three_node_cluster(source):
    node, session = source
    expected = rows(session)
    code, out, err = admin(node, "snapshot", "bk", "--tag", "c1")
    assert code == 0, err
    cluster = local_cluster.LocalCluster(3)
    try:
        driver = cluster.driver(consistency=ConsistencyLevel.ALL)
        try:
            restored = driver.connect()
            # An existing keyspace is kept: three copies of each partition.
            restored.execute(
                "CREATE KEYSPACE bk WITH replication = "
                "{'class': 'SimpleStrategy', 'replication_factor': 3}")
            code, out, err = admin(cluster, "restore",
                                   snapshot_dir(node, "c1"))
            assert code == 0, err + cluster.logs()
            assert out.startswith("Restored bk.t from snapshot c1\n")
            assert rows(restored) == expected
            # A snapshot of every node, with one tag (from etcd's list).
            out = cluster.admin("snapshot", "bk", "--tag", "every",
                                "--all-nodes")
            assert out.count("Snapshot directory: every") == 3, out
            for i in (1, 2, 3):
                assert os.path.isdir(os.path.join(
                    cluster.dir, "node%d" % i, "data", "snapshots",
                    "every")), i
            out = cluster.admin("listsnapshots", "--all-nodes")
            assert out.count("every ") == 3 * 2, out  # bk.t and bk.u
            out = cluster.admin("clearsnapshot", "--tag", "every",
                                "--all-nodes")
            assert not os.path.exists(os.path.join(
                cluster.dir, "node2", "data", "snapshots", "every"))
        finally:
            driver.shutdown()
    finally:
        cluster.close()
    code, out, err = admin(node, "clearsnapshot", "--tag", "c1")
    assert code == 0, err


def test_snapshots_need_modify_on_the_table_under_cassandra_authorizer():
    from cassandra.auth import PlainTextAuthProvider
    n = Node("authenticator: PasswordAuthenticator\n"
             "authorizer: CassandraAuthorizer\n"
             "auth_bcrypt_gensalt_log2_rounds: 4\n")
    try:
        root = driver_cluster(
            n, auth_provider=PlainTextAuthProvider("cassandra", "cassandra"))
        try:
            s = root.connect()
            create_keyspace(s, "au")
            s.execute("CREATE TABLE au.t (k int PRIMARY KEY)")
            s.execute("CREATE ROLE mike WITH PASSWORD = 'm' AND LOGIN = true")
        finally:
            root.shutdown()
        code, out, err = admin(n, "snapshot", "au", "--tag", "a1",
                               "-u", "cassandra", "-p", "cassandra")
        assert code == 0, err
        code, out, err = admin(n, "snapshot", "au", "--tag", "a2",
                               "-u", "mike", "-p", "m")
        assert code == 1
        assert ("User mike has no MODIFY permission on <table "
                "system_views.snapshots> or any of its parents") in err, err
        code, out, err = admin(n, "listsnapshots", "-u", "cassandra", "-p",
                               "cassandra")
        assert code == 0 and "a1" in out and "a2" not in out, out + err
    finally:
        assert n.stop() == 0
