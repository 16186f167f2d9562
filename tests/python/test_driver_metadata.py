"""Connection and schema metadata through the DataStax Python driver:
what the control connection reads from system.local and system_schema.*,
DDL completing with schema agreement in milliseconds, and
export_as_string() producing CQL that recreates the table."""

import time

import pytest
from cassandra.metadata import Murmur3Token

from conftest import create_keyspace, driver_cluster


def test_connect_reads_system_local(cluster, session):
    md = cluster.metadata
    assert md.cluster_name == "Test Cluster"
    assert md.partitioner == "org.apache.cassandra.dht.Murmur3Partitioner"
    hosts = md.all_hosts()
    assert len(hosts) == 1
    host = hosts[0]
    assert host.is_up
    assert host.release_version.startswith("4.")
    assert host.datacenter and host.rack
    assert host.host_id is not None
    # The token map is built from system.local's tokens.
    assert md.token_map is not None
    assert md.token_map.ring
    assert all(isinstance(t, Murmur3Token) for t in md.token_map.ring)
    row = session.execute(
        "SELECT cluster_name, partitioner, native_protocol_version "
        "FROM system.local WHERE key = 'local'").one()
    assert row.cluster_name == "Test Cluster"
    # Cassandra 4.0 reports ProtocolVersion.CURRENT, which is v4.
    assert row.native_protocol_version == "4"
    # Every system keyspace a driver looks at is in the metadata.
    for ks in ("system", "system_schema", "system_auth", "system_distributed",
               "system_traces"):
        assert ks in md.keyspaces, ks


def test_connect_with_keyspace_and_set_keyspace(node, session):
    create_keyspace(session, "md_use")
    session.execute("CREATE TABLE IF NOT EXISTS md_use.t (k int PRIMARY KEY)")
    c = driver_cluster(node)
    try:
        s = c.connect("md_use")
        assert s.keyspace == "md_use"
        s.execute("INSERT INTO t (k) VALUES (1)")
        assert s.execute("SELECT k FROM t").one().k == 1
        s.set_keyspace("system")
        assert s.keyspace == "system"
        assert s.execute("SELECT key FROM local").one().key == "local"
    finally:
        c.shutdown()


def timed(session, cql):
    start = time.monotonic()
    rs = session.execute(cql)
    elapsed = time.monotonic() - start
    assert rs.response_future.is_schema_agreed, cql
    assert elapsed < 2.0, "%s took %.2f s" % (cql, elapsed)
    return elapsed


def test_ddl_completes_in_milliseconds_with_schema_agreement(cluster, session):
    md = cluster.metadata
    timed(session, "CREATE KEYSPACE md_ddl WITH replication = "
                   "{'class': 'NetworkTopologyStrategy', 'datacenter1': 1} "
                   "AND durable_writes = false")
    ks = md.keyspaces["md_ddl"]
    assert ks.durable_writes is False
    assert ks.replication_strategy.name == "NetworkTopologyStrategy"

    timed(session, "CREATE TABLE md_ddl.t (k int PRIMARY KEY, v text)")
    assert set(md.keyspaces["md_ddl"].tables["t"].columns) == {"k", "v"}

    timed(session, "ALTER TABLE md_ddl.t ADD w list<int>")
    assert md.keyspaces["md_ddl"].tables["t"].columns["w"].cql_type == "list<int>"

    timed(session, "ALTER TABLE md_ddl.t DROP v")
    assert "v" not in md.keyspaces["md_ddl"].tables["t"].columns

    timed(session, "ALTER TABLE md_ddl.t WITH comment = 'changed'")
    assert md.keyspaces["md_ddl"].tables["t"].options["comment"] == "changed"

    timed(session, "TRUNCATE md_ddl.t")
    timed(session, "DROP TABLE md_ddl.t")
    assert "t" not in md.keyspaces["md_ddl"].tables

    timed(session, "ALTER KEYSPACE md_ddl WITH durable_writes = true")
    assert md.keyspaces["md_ddl"].durable_writes is True

    timed(session, "DROP KEYSPACE md_ddl")
    assert "md_ddl" not in md.keyspaces


def test_table_metadata_keys_order_types_and_options(cluster, session):
    create_keyspace(session, "md_tab")
    session.execute(
        "CREATE TABLE md_tab.events (host text, day date, ts timestamp, "
        "seq int, value double, tags set<text>, attrs map<text, int>, "
        "hist frozen<list<tuple<int, text>>>, note text, "
        "PRIMARY KEY ((host, day), ts, seq)) "
        "WITH CLUSTERING ORDER BY (ts DESC, seq ASC) "
        "AND comment = 'events by host' AND gc_grace_seconds = 3600 "
        "AND default_time_to_live = 86400")
    ks = cluster.metadata.keyspaces["md_tab"]
    assert ks.replication_strategy.replication_factor == 1
    assert ks.durable_writes is True
    t = ks.tables["events"]
    assert [c.name for c in t.partition_key] == ["host", "day"]
    assert [c.name for c in t.clustering_key] == ["ts", "seq"]
    assert [c.is_reversed for c in t.clustering_key] == [True, False]
    assert t.primary_key == t.partition_key + t.clustering_key
    types = {name: c.cql_type for name, c in t.columns.items()}
    assert types == {
        "host": "text", "day": "date", "ts": "timestamp", "seq": "int",
        "value": "double", "tags": "set<text>", "attrs": "map<text, int>",
        "hist": "frozen<list<frozen<tuple<int, text>>>>", "note": "text",
    }
    # Column order: partition key, clustering key, then the rest by name.
    assert list(t.columns)[:4] == ["host", "day", "ts", "seq"]
    assert t.options["comment"] == "events by host"
    assert t.options["gc_grace_seconds"] == 3600
    assert t.options["default_time_to_live"] == 86400
    assert "compaction" in t.options and "compression" in t.options
    assert t.is_cql_compatible
    assert t.indexes == {} and t.views == {}


EXPORT_TABLES = [
    "CREATE TABLE %s.plain (k int PRIMARY KEY, v text)",
    "CREATE TABLE %s.composite (a uuid, b text, c timestamp, d bigint, "
    "e map<text, frozen<list<int>>>, f frozen<set<inet>>, g tuple<int, blob>, "
    "\"Quoted Col\" varint, PRIMARY KEY ((a, b), c, d)) "
    "WITH CLUSTERING ORDER BY (c DESC, d ASC) AND comment = 'it''s here' "
    "AND gc_grace_seconds = 99 AND bloom_filter_fp_chance = 0.05 "
    "AND caching = {'keys': 'NONE', 'rows_per_partition': '10'} "
    "AND compaction = {'class': 'LeveledCompactionStrategy'}",
    "CREATE TABLE %s.statics (k text, c int, s int STATIC, v duration, "
    "PRIMARY KEY (k, c))",
]


@pytest.mark.parametrize("create", EXPORT_TABLES)
def test_export_as_string_recreates_the_table(cluster, session, create):
    create_keyspace(session, "md_src")
    create_keyspace(session, "md_dst")
    session.execute(create % "md_src")
    name = create.split(".", 1)[1].split(" ", 1)[0]
    src = cluster.metadata.keyspaces["md_src"].tables[name]
    cql = src.export_as_string()
    assert cql.startswith("CREATE TABLE md_src.%s (" % name)
    session.execute(cql.replace("md_src.", "md_dst."))
    dst = cluster.metadata.keyspaces["md_dst"].tables[name]
    assert dst.export_as_string() == cql.replace("md_src.", "md_dst.")
    assert [c.name for c in dst.primary_key] == [c.name for c in src.primary_key]
    assert {n: c.cql_type for n, c in dst.columns.items()} == \
        {n: c.cql_type for n, c in src.columns.items()}
    assert dst.options == src.options


def test_keyspace_export_as_string_recreates_everything(cluster, session):
    session.execute("CREATE KEYSPACE md_whole WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1} "
                    "AND durable_writes = false")
    session.execute("CREATE TABLE md_whole.a (k int PRIMARY KEY, v text)")
    session.execute("CREATE TABLE md_whole.b (k int, c int, v int, "
                    "PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)")
    cql = cluster.metadata.keyspaces["md_whole"].export_as_string()
    session.execute("DROP KEYSPACE md_whole")
    assert "md_whole" not in cluster.metadata.keyspaces
    for statement in cql.split(";"):
        if statement.strip():
            session.execute(statement)
    assert cluster.metadata.keyspaces["md_whole"].export_as_string() == cql


def test_token_map_and_replicas(cluster, session):
    create_keyspace(session, "md_tok")
    session.execute("CREATE TABLE IF NOT EXISTS md_tok.t (k int PRIMARY KEY)")
    prepared = session.prepare("INSERT INTO md_tok.t (k) VALUES (?)")
    bound = prepared.bind([42])
    replicas = cluster.metadata.get_replicas("md_tok", bound.routing_key)
    assert [h.endpoint for h in replicas] == \
        [h.endpoint for h in cluster.metadata.all_hosts()]
    # The token the driver computes equals the server's token().
    session.execute(bound)
    server_token = session.execute(
        "SELECT token(k) FROM md_tok.t WHERE k = 42").one()[0]
    assert cluster.metadata.token_map.token_class.from_key(
        bound.routing_key).value == server_token
