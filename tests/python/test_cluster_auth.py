"""Roles and permissions on a 3-node cluster (its own etcd, nodes on
127.0.0.1-3; docs/security.md, 4): the default superuser is created once,
a role created through one node logs in through every other, a GRANT or
REVOKE made through one node is enforced by the others within the poll
interval, and every node's system_auth tables show the cluster's roles."""

import time

from cassandra import Unauthorized
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import NoHostAvailable

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

CONF = ("authenticator=PasswordAuthenticator",
        "authorizer=CassandraAuthorizer",
        "auth_bcrypt_gensalt_log2_rounds=4")


def eventually(check, seconds=10):
    deadline = time.time() + seconds
    while True:
        try:
            return check()
        # NoHostAvailable: a login the node does not know of yet.
        except (AssertionError, Unauthorized, NoHostAvailable):
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def test_roles_and_grants_reach_every_node():
    cluster = local_cluster.LocalCluster(3, conf=CONF)
    drivers = []
    try:
        def session(address, user, password):
            d = cluster.driver(whitelist=[address],
                               auth_provider=PlainTextAuthProvider(user,
                                                                   password))
            drivers.append(d)
            try:
                return d.connect()
            except NoHostAvailable:
                d.shutdown()
                raise

        root1 = session("127.0.0.1", "cassandra", "cassandra")
        root1.execute("CREATE KEYSPACE ca WITH replication = "
                      "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        root1.execute("CREATE TABLE ca.t (k int PRIMARY KEY, v int)")
        root1.execute("INSERT INTO ca.t (k, v) VALUES (1, 1)")
        root1.execute("CREATE ROLE ann WITH LOGIN = true AND PASSWORD = 'a'")
        # One default superuser, whichever node started first.
        roles = [r.role for r in root1.execute("LIST ROLES")]
        assert roles == ["ann", "cassandra"], roles
        # ann logs in through another node, and is refused there ...
        ann2 = eventually(lambda: session("127.0.0.2", "ann", "a"))
        try:
            ann2.execute("SELECT * FROM ca.t")
            assert False, "ann read ca.t without SELECT"
        except Unauthorized as e:
            assert "User ann has no SELECT permission on <table ca.t>" in \
                str(e), e
        # ... until a GRANT through a third node reaches it.
        root3 = session("127.0.0.3", "cassandra", "cassandra")
        root3.execute("GRANT SELECT ON KEYSPACE ca TO ann")
        rows = eventually(lambda: list(ann2.execute("SELECT k, v FROM ca.t")))
        assert [(r.k, r.v) for r in rows] == [(1, 1)]
        root1.execute("REVOKE SELECT ON KEYSPACE ca FROM ann")

        def refused():
            try:
                ann2.execute("SELECT * FROM ca.t")
            except Unauthorized:
                return True
            raise AssertionError("the revoke has not reached node 2")
        eventually(refused)
        # Every node's system_auth copy shows the cluster's roles.
        root2 = session("127.0.0.2", "cassandra", "cassandra")
        for s in (root1, root2, root3):
            got = eventually(lambda s=s: sorted(
                r.role for r in s.execute("SELECT role FROM system_auth.roles")))
            assert got == ["ann", "cassandra"], got
        root2.execute("DROP ROLE ann")
        for s in (root1, root3):
            eventually(lambda s=s: sorted(
                r.role for r in s.execute("SELECT role FROM system_auth.roles"))
                == ["cassandra"] or (_ for _ in ()).throw(AssertionError()))
    finally:
        for d in drivers:
            d.shutdown()
        cluster.close()
