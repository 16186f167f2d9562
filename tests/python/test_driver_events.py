"""Schema change events: DDL from one cluster object refreshes another
cluster's metadata through the SCHEMA_CHANGE events pushed to its control
connection (also when the control connection is compressed)."""

import time

import pytest

from conftest import driver_cluster


def record_events(cluster):
    """The SCHEMA_CHANGE events the control connection receives (the Python
    driver has no public schema listener; wrap its event handler)."""
    events = []
    control = cluster.control_connection
    handle = control._handle_schema_change

    def recording(event):
        events.append((event["target_type"], event["change_type"],
                       event.get("keyspace"), event.get("table")))
        return handle(event)

    control._handle_schema_change = recording
    return events


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.mark.parametrize("version,compression", [(5, False), (4, "lz4"), (4, "snappy"),
                                                 (3, False)])
def test_metadata_follows_ddl_from_another_cluster(node, session, version, compression):
    ks = "ev_%d_%s" % (version, compression or "plain")
    # A short refresh window: the driver debounces events by up to this long.
    watcher = driver_cluster(node, protocol_version=version, compression=compression,
                             schema_event_refresh_window=0.05)
    try:
        watcher.connect()
        events = record_events(watcher)
        md = watcher.metadata
        assert ks not in md.keyspaces

        session.execute("CREATE KEYSPACE %s WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
        assert wait_for(lambda: ks in md.keyspaces)

        session.execute("CREATE TABLE %s.t (k int PRIMARY KEY, v text)" % ks)
        assert wait_for(lambda: "t" in md.keyspaces[ks].tables)
        assert [c.name for c in md.keyspaces[ks].tables["t"].partition_key] == ["k"]

        session.execute("ALTER TABLE %s.t ADD w int" % ks)
        assert wait_for(lambda: "w" in md.keyspaces[ks].tables["t"].columns)

        session.execute("ALTER KEYSPACE %s WITH durable_writes = false" % ks)
        assert wait_for(lambda: md.keyspaces[ks].durable_writes is False)

        session.execute("DROP TABLE %s.t" % ks)
        assert wait_for(lambda: "t" not in md.keyspaces[ks].tables)

        session.execute("DROP KEYSPACE %s" % ks)
        assert wait_for(lambda: ks not in md.keyspaces)

        assert events == [
            ("KEYSPACE", "CREATED", ks, None),
            ("TABLE", "CREATED", ks, "t"),
            ("TABLE", "UPDATED", ks, "t"),
            ("KEYSPACE", "UPDATED", ks, None),
            ("TABLE", "DROPPED", ks, "t"),
            ("KEYSPACE", "DROPPED", ks, None),
        ]
    finally:
        watcher.shutdown()


def test_schema_version_changes_with_ddl(node, cluster, session):
    before = session.execute("SELECT schema_version FROM system.local").one()[0]
    session.execute("CREATE KEYSPACE IF NOT EXISTS ev_version WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    after = session.execute("SELECT schema_version FROM system.local").one()[0]
    assert before != after
    # No-op DDL (IF NOT EXISTS on an existing keyspace) keeps the version.
    session.execute("CREATE KEYSPACE IF NOT EXISTS ev_version WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    assert session.execute("SELECT schema_version FROM system.local").one()[0] == after
    # A fresh cluster object agrees with the first on the schema.
    other = driver_cluster(node)
    try:
        other.connect()
        assert other.metadata.keyspaces["ev_version"].export_as_string() == \
            cluster.metadata.keyspaces["ev_version"].export_as_string()
    finally:
        other.shutdown()


def test_refresh_schema_metadata_by_hand(node, session):
    # With events off (schema_metadata_enabled=False the driver still
    # answers refresh calls), an explicit refresh picks up changes.
    c = driver_cluster(node, schema_event_refresh_window=-1)
    try:
        c.connect()
        session.execute("CREATE KEYSPACE IF NOT EXISTS ev_manual WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        session.execute("CREATE TABLE IF NOT EXISTS ev_manual.t (k int PRIMARY KEY)")
        c.refresh_keyspace_metadata("ev_manual")
        c.refresh_table_metadata("ev_manual", "t")
        assert "t" in c.metadata.keyspaces["ev_manual"].tables
        c.refresh_schema_metadata()
        assert "ev_manual" in c.metadata.keyspaces
    finally:
        c.shutdown()
