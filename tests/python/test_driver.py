"""The driver with its defaults: it starts above v5 (DSE versions), is
refused with the protocol error that makes it downgrade, settles on v5 and
connects. The rest of the driver suite is in test_driver_*.py."""

from cassandra.cluster import Cluster


def test_driver_negotiates_v5_and_connects(node):
    cluster = Cluster(["127.0.0.1"], port=node.port, connect_timeout=5,
                      control_connection_timeout=5)
    try:
        session = cluster.connect()
        assert cluster.protocol_version == 5
        row = session.execute("SELECT release_version FROM system.local").one()
        assert row.release_version.startswith("4.")
    finally:
        cluster.shutdown()
