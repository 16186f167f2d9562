"""Full-driver checks through cassandra.cluster.Cluster. The driver's
control connection reads system.local, system.peers and system_schema.*,
which a later change provides; until then connect() is expected to fail
after the protocol handshake, and this records how far it gets."""

import pytest
from cassandra.cluster import Cluster, NoHostAvailable


def test_driver_negotiates_v5_and_connects(node):
    cluster = Cluster(["127.0.0.1"], port=node.port, connect_timeout=5,
                      control_connection_timeout=5)
    try:
        session = cluster.connect()
    except NoHostAvailable as e:
        # The driver starts at DSE_V2 and downgrades on our ProtocolError;
        # it must have settled on v5 before failing on missing tables.
        cluster.shutdown()
        assert cluster.protocol_version == 5
        pytest.xfail("driver connect needs system tables: %r" % e)
    try:
        assert cluster.protocol_version == 5
        row = session.execute("SELECT release_version FROM system.local").one()
        assert row is not None
    finally:
        cluster.shutdown()
