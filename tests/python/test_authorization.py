"""CassandraAuthorizer through the Python driver (docs/security.md, 3): GRANT,
REVOKE and LIST PERMISSIONS, the check on every statement (prepared ones at
each execution), the system tables every role may read and the driver's own
metadata queries, creator grants and revokes on drop, and a permission
change seen by an open session at once. Written to pass against Cassandra
4.0 too."""

import base64
import urllib.error
import urllib.request

import pytest
from cassandra import Unauthorized
from cassandra.auth import PlainTextAuthProvider

from conftest import Node, driver_cluster, free_port

CONFIG = ("authenticator: PasswordAuthenticator\n"
          "authorizer: CassandraAuthorizer\n"
          "auth_bcrypt_gensalt_log2_rounds: 4\n")


@pytest.fixture(scope="module")
def node():
    port = free_port()
    n = Node(CONFIG + "metrics_port: %d\n" % port)
    n.metrics_url = "http://127.0.0.1:%d/metrics" % port
    yield n
    assert n.alive(), "the node died during the tests:\n" + n.output()
    assert n.stop() == 0


class Session:
    def __init__(self, node, user, password):
        self.cluster = driver_cluster(
            node, auth_provider=PlainTextAuthProvider(user, password))
        self.session = self.cluster.connect()

    def __enter__(self):
        return self.session

    def __exit__(self, *exc):
        self.cluster.shutdown()


@pytest.fixture(scope="module")
def root(node):
    with Session(node, "cassandra", "cassandra") as s:
        s.execute("CREATE KEYSPACE az WITH replication = "
                  "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        s.execute("CREATE TABLE az.t (k int PRIMARY KEY, v int)")
        s.execute("INSERT INTO az.t (k, v) VALUES (1, 10)")
        yield s


def unauthorized(session, query, *args):
    with pytest.raises(Unauthorized) as e:
        session.execute(query, *args)
    return str(e.value)


def test_a_new_role_reads_only_what_it_is_granted(node, root):
    root.execute("CREATE ROLE reader WITH LOGIN = true AND PASSWORD = 'r'")
    with Session(node, "reader", "r") as s:
        # The driver's own metadata queries passed: connect() read
        # system.local, system.peers and system_schema.
        assert list(s.execute("SELECT key FROM system.local"))
        assert list(s.execute(
            "SELECT table_name FROM system_schema.tables "
            "WHERE keyspace_name = 'az'"))
        message = unauthorized(s, "SELECT * FROM az.t")
        assert "User reader has no SELECT permission on <table az.t> or " \
            "any of its parents" in message, message
        message = unauthorized(s, "SELECT * FROM system_auth.roles")
        assert "<table system_auth.roles>" in message, message
        root.execute("GRANT SELECT ON KEYSPACE az TO reader")
        # Seen at once by the open session.
        assert [tuple(r) for r in s.execute("SELECT k, v FROM az.t")] == \
            [(1, 10)]
        message = unauthorized(s, "INSERT INTO az.t (k, v) VALUES (2, 2)")
        assert "has no MODIFY permission on <table az.t>" in message
        prepared = s.prepare("SELECT v FROM az.t WHERE k = ?")
        assert s.execute(prepared, [1]).one().v == 10
        root.execute("REVOKE SELECT ON KEYSPACE az FROM reader")
        # The statement prepared before the revoke is refused now.
        message = unauthorized(s, prepared, [1])
        assert "has no SELECT permission" in message, message


def test_list_permissions(node, root):
    root.execute("CREATE ROLE lister WITH LOGIN = true AND PASSWORD = 'l'")
    root.execute("GRANT SELECT ON az.t TO lister")
    root.execute("GRANT MODIFY ON KEYSPACE az TO lister")
    rows = list(root.execute("LIST ALL PERMISSIONS OF lister"))
    assert [(r.role, r.username, r.resource, r.permission) for r in rows] == [
        ("lister", "lister", "<keyspace az>", "MODIFY"),
        ("lister", "lister", "<table az.t>", "SELECT"),
    ]
    assert len(list(root.execute("LIST ALL ON az.t OF lister NORECURSIVE"))) == 1
    with Session(node, "lister", "l") as s:
        assert len(list(s.execute("LIST ALL OF lister"))) == 2
        message = unauthorized(s, "LIST ALL PERMISSIONS")
        assert "You are not authorized to view everyone's permissions" in \
            message, message
        message = unauthorized(s, "GRANT SELECT ON az.t TO lister")
        assert "has no AUTHORIZE permission on <table az.t>" in message


def test_creators_own_what_they_create(node, root):
    root.execute("CREATE ROLE builder WITH LOGIN = true AND PASSWORD = 'b'")
    root.execute("GRANT CREATE ON ALL KEYSPACES TO builder")
    with Session(node, "builder", "b") as s:
        s.execute("CREATE KEYSPACE built WITH replication = "
                  "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        s.execute("CREATE TABLE built.t (k int PRIMARY KEY, v int)")
        s.execute("INSERT INTO built.t (k, v) VALUES (1, 1)")
        assert s.execute("SELECT v FROM built.t WHERE k = 1").one().v == 1
        perms = {(r.resource, r.permission)
                 for r in s.execute("LIST ALL OF builder")}
        assert ("<keyspace built>", "DROP") in perms
        assert ("<table built.t>", "MODIFY") in perms
        s.execute("DROP KEYSPACE built")
        perms = {r.resource for r in s.execute("LIST ALL OF builder")}
        assert perms == {"<all keyspaces>"}, perms
        # Other keyspaces stay closed.
        message = unauthorized(s, "DROP TABLE az.t")
        assert "has no DROP permission on <table az.t>" in message


def test_roles_granted_to_a_role_carry_their_permissions(node, root):
    root.execute("CREATE ROLE writers")
    root.execute("GRANT MODIFY ON az.t TO writers")
    root.execute("CREATE ROLE wanda WITH LOGIN = true AND PASSWORD = 'w'")
    with Session(node, "wanda", "w") as s:
        unauthorized(s, "INSERT INTO az.t (k, v) VALUES (3, 3)")
        root.execute("GRANT writers TO wanda")
        s.execute("INSERT INTO az.t (k, v) VALUES (3, 3)")
        rows = list(root.execute("LIST ALL OF wanda"))
        assert [(r.role, r.resource, r.permission) for r in rows] == [
            ("writers", "<table az.t>", "MODIFY")]


def http_status(url, user=None, password=None):
    request = urllib.request.Request(url)
    if user is not None:
        token = base64.b64encode(("%s:%s" % (user, password)).encode())
        request.add_header("Authorization", "Basic " + token.decode())
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers)


def test_metrics_and_console_ask_for_the_same_roles(node, root):
    root.execute("CREATE ROLE prom WITH LOGIN = true AND PASSWORD = 'p'")
    url = node.metrics_url
    console = url.rsplit("/", 1)[0] + "/api/overview"
    status, headers = http_status(url)
    assert status == 401
    assert headers["WWW-Authenticate"].startswith('Basic realm="keywise"')
    assert http_status(url, "prom", "wrong")[0] == 401
    assert http_status(url, "nobody", "p")[0] == 401
    assert http_status(url, "prom", "p")[0] == 200
    # The console shows every table's data: superusers only.
    assert http_status(console, "prom", "p")[0] == 403
    assert http_status(console, "cassandra", "cassandra")[0] == 200
    # A changed password is asked for at once.
    root.execute("ALTER ROLE prom WITH PASSWORD = 'q'")
    assert http_status(url, "prom", "p")[0] == 401
    assert http_status(url, "prom", "q")[0] == 200


def test_permissions_are_kept_across_a_restart(node, root):
    root.execute("CREATE ROLE keeper WITH LOGIN = true AND PASSWORD = 'k'")
    root.execute("GRANT SELECT ON az.t TO keeper")
    node.restart()
    with Session(node, "keeper", "k") as s:
        assert s.execute("SELECT v FROM az.t WHERE k = 1").one().v == 10
        unauthorized(s, "INSERT INTO az.t (k, v) VALUES (4, 4)")
