"""User-defined types on a 3-node cluster (RF=3, its own etcd, nodes on
127.0.0.1-3) through the Python driver: a type created through one node is
usable through every other, ALTER TYPE through a third reaches rows written
before it, and the drivers of every node see the same type metadata."""

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD


def test_types_are_one_schema_across_coordinators():
    cluster = local_cluster.LocalCluster(3)
    drivers = []
    try:
        sessions = []
        for address in ["127.0.0.%d" % i for i in (1, 2, 3)]:
            d = cluster.driver(whitelist=[address])
            drivers.append(d)
            sessions.append(d.connect())
        one, two, three = sessions
        one.execute("CREATE KEYSPACE u WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        one.execute("CREATE TYPE u.address (street text, zip int)")
        two.execute("CREATE TABLE u.t (k int PRIMARY KEY, a address, "
                    "f frozen<address>)")
        quorum = ConsistencyLevel.QUORUM
        for k in range(20):
            two.execute(SimpleStatement(
                "INSERT INTO u.t (k, a, f) VALUES (%d, {street: 's%d', zip: %d}, "
                "{street: 'f', zip: %d})" % (k, k, k, k),
                consistency_level=quorum))
        three.execute("ALTER TYPE u.address ADD country text")
        three.execute(SimpleStatement(
            "UPDATE u.t SET a.country = 'FR' WHERE k = 3",
            consistency_level=quorum))
        rows = one.execute(SimpleStatement(
            "SELECT k, a, f FROM u.t", consistency_level=quorum))
        got = {r.k: (r.a.street, r.a.zip, r.a.country, r.f.zip, r.f.country)
               for r in rows}
        assert len(got) == 20
        for k in range(20):
            assert got[k] == ("s%d" % k, k, "FR" if k == 3 else None, k, None)
        for d in drivers:
            d.refresh_schema_metadata()
            fields = d.metadata.keyspaces["u"].user_types["address"].field_names
            assert fields == ["street", "zip", "country"]
    finally:
        for d in drivers:
            d.shutdown()
        cluster.close()
