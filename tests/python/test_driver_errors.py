"""Server errors mapped to the Python driver's exception classes, with the
extra fields each error code carries."""

import pytest
from cassandra import (AlreadyExists, ConsistencyLevel, InvalidRequest,
                       ReadTimeout, Unauthorized, WriteTimeout)
from cassandra.policies import WriteType
from cassandra.protocol import (BatchMessage, ConfigurationException,
                                ExecuteMessage, PrepareMessage, SupportedMessage,
                                SyntaxException)
from cassandra.query import BatchStatement, BatchType

from conftest import Node, create_keyspace
from wire import connect


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, "er")
    session.execute("CREATE TABLE IF NOT EXISTS er.t (k int, c int, v text, "
                    "PRIMARY KEY (k, c))")
    return "er"


def test_syntax_error(session):
    with pytest.raises(SyntaxException, match="no viable alternative at input 'SELEC'"):
        session.execute("SELEC * FROM er.t")
    with pytest.raises(SyntaxException):
        session.execute("SELECT * FROM")
    with pytest.raises(SyntaxException):
        session.prepare("INSERT INTO er.t (k) VALUES (?")


def test_invalid_request(session, ks):
    cases = {
        "SELECT * FROM er.nope": "unconfigured table nope",
        "SELECT * FROM nope.t": "Keyspace nope does not exist",
        "SELECT nope FROM er.t": "Undefined column name nope",
        "INSERT INTO er.t (k, c, v) VALUES ('x', 1, 'a')": "Invalid STRING constant",
        "INSERT INTO er.t (k, v) VALUES (1, 'a')": "Some clustering keys are missing: c",
        "SELECT * FROM er.t WHERE c = 1": "ALLOW FILTERING",
        "DROP TABLE er.nope": "doesn't exist",
        "USE nope": "Keyspace 'nope' does not exist",
    }
    for cql, message in cases.items():
        with pytest.raises(InvalidRequest, match=message):
            session.execute(cql)
    # Also at prepare time and at execution of a prepared statement.
    with pytest.raises(InvalidRequest, match="unconfigured table"):
        session.prepare("SELECT * FROM er.nope WHERE k = ?")
    limit = session.prepare("SELECT * FROM er.t WHERE k = ? LIMIT ?")
    with pytest.raises(InvalidRequest, match="LIMIT must be strictly positive"):
        session.execute(limit, (1, 0))
    # The session goes on working after errors.
    assert session.execute("SELECT count(*) FROM er.t").one()[0] >= 0


def test_already_exists_carries_keyspace_and_table(session, ks):
    with pytest.raises(AlreadyExists) as e:
        session.execute("CREATE KEYSPACE er WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    assert e.value.keyspace == "er" and not e.value.table
    with pytest.raises(AlreadyExists) as e:
        session.execute("CREATE TABLE er.t (k int PRIMARY KEY)")
    assert (e.value.keyspace, e.value.table) == ("er", "t")
    # IF NOT EXISTS is no error.
    session.execute("CREATE TABLE IF NOT EXISTS er.t (k int PRIMARY KEY)")


def test_configuration_exception(session):
    with pytest.raises(ConfigurationException, match="replication_factor"):
        session.execute("CREATE KEYSPACE er_bad WITH replication = "
                        "{'class': 'SimpleStrategy'}")
    with pytest.raises(ConfigurationException):
        session.execute("CREATE KEYSPACE er_bad WITH replication = "
                        "{'class': 'NoSuchStrategy', 'replication_factor': 1}")


@pytest.mark.parametrize("cql,message", [
    ("CREATE TABLE system.foo (k int PRIMARY KEY)", "system keyspace is not user-modifiable."),
    ("DROP KEYSPACE system", "system keyspace is not user-modifiable."),
    ("DROP TABLE system.local", "system keyspace is not user-modifiable."),
    ("ALTER TABLE system.local ADD x int", "system keyspace is not user-modifiable."),
    ("ALTER KEYSPACE system WITH durable_writes = false",
     "system keyspace is not user-modifiable."),
    ("DROP KEYSPACE system_schema", "system_schema keyspace is not user-modifiable."),
    ("CREATE TABLE system_auth.foo (k int PRIMARY KEY)", "Cannot CREATE <keyspace system_auth>"),
    ("DROP TABLE system_traces.sessions", "Cannot DROP <table system_traces.sessions>"),
])
def test_unauthorized_ddl_on_system_keyspaces(session, cql, message):
    with pytest.raises(Unauthorized) as e:
        session.execute(cql)
    assert message in str(e.value)


def test_errors_inside_batches_and_concurrent_requests(session, ks):
    futures = [session.execute_async("SELECT * FROM er.nope%d" % i) for i in range(50)]
    futures += [session.execute_async("SELECT * FROM er.t WHERE k = %s", (i,))
                for i in range(50)]
    for i, f in enumerate(futures):
        if i < 50:
            with pytest.raises(InvalidRequest, match="unconfigured table nope%d" % i):
                f.result()
        else:
            f.result()


def create_timeout_table(client):
    """Keyspace tmo and table tmo.t (k int, c int, PRIMARY KEY (k, c))."""
    assert client.query("CREATE KEYSPACE tmo WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 1}"
                        ).kind == 5
    assert client.query("CREATE TABLE tmo.t (k int, c int, PRIMARY KEY (k, c))").kind == 5


def test_batch_size_limits(session, ks):
    """Cassandra 4's batch_size_warn_threshold_in_kb (5) and
    batch_size_fail_threshold_in_kb (50): a batch of several partitions
    past them is warned, then refused; one partition is never checked."""
    session.execute("CREATE TABLE IF NOT EXISTS %s.batched (k int, c int, "
                    "v text, PRIMARY KEY (k, c))" % ks)
    insert = session.prepare("INSERT INTO %s.batched (k, c, v) VALUES (?, ?, ?)" % ks)

    def run(partitions, bytes_each, c=0):
        batch = BatchStatement()
        for k in range(partitions):
            batch.add(insert, (k, c, "x" * bytes_each))
        future = session.execute_async(batch)
        future.result()
        return future.warnings or []

    assert run(2, 1000) == []
    warned = run(2, 4000)
    assert len(warned) == 1 and warned[0].startswith(
        "Batch for [%s.batched] is of size 7." % ks), warned
    assert warned[0].endswith("(see batch_size_fail_threshold_in_kb)"), warned
    with pytest.raises(InvalidRequest, match="Batch too large"):
        run(2, 30000, c=9)
    assert session.execute("SELECT count(*) FROM %s.batched WHERE k = 1 "
                           "AND c = 9" % ks).one()[0] == 0  # nothing written
    assert run(1, 60000) == []  # one partition


def test_write_timeout_from_config():
    """write_request_timeout_in_ms of 1 ms: writes that take longer end in
    WriteTimeout with the request's consistency and write type. The read
    timeout stays long, as a request still queued counts as a read. (The
    raw client: the driver's own control connection needs working reads.)"""
    # Its batches of 5,000 partitions are over Cassandra's batch size limit:
    # off here, so they run long enough to time out.
    node = Node("write_request_timeout_in_ms: 1\nread_request_timeout_in_ms: 5000\n"
                "batch_size_fail_threshold_in_kb: 0\n")
    try:
        client = connect(node.port, 4)
        create_timeout_table(client)
        # Thousands of statements take well over a millisecond.
        inserts = ["INSERT INTO tmo.t (k, c) VALUES (%d, %d)" % (i, i) for i in range(5000)]
        error = client.request(BatchMessage(
            BatchType.UNLOGGED, [(False, q, []) for q in inserts],
            ConsistencyLevel.ONE)).to_exception()
        assert isinstance(error, WriteTimeout), error
        assert error.write_type == WriteType.UNLOGGED_BATCH
        assert error.received_responses == 0 and error.required_responses == 1
        # A prepared CQL batch: the request's consistency, the batch's type.
        text = "BEGIN BATCH %s; APPLY BATCH" % "; ".join(inserts)
        prepared = client.request(PrepareMessage(text))
        error = client.request(ExecuteMessage(
            prepared.query_id, [], ConsistencyLevel.LOCAL_QUORUM)).to_exception()
        assert isinstance(error, WriteTimeout), error
        assert error.write_type == WriteType.BATCH
        assert error.consistency == ConsistencyLevel.LOCAL_QUORUM
        # The connection still works afterwards.
        assert client.query("SELECT count(*) FROM tmo.t").kind == 2
        client.close()
    finally:
        assert node.stop() == 0


def test_read_timeout_from_config():
    node = Node("read_request_timeout_in_ms: 1\n")
    try:
        client = connect(node.port, 4)
        create_timeout_table(client)
        keys = ", ".join(str(i) for i in range(20000))
        error = client.query("SELECT * FROM tmo.t WHERE k IN (%s)" % keys).to_exception()
        assert isinstance(error, ReadTimeout), error
        assert error.received_responses == 0 and not error.data_retrieved
        assert isinstance(client.options(), SupportedMessage)  # still connected
        client.close()
    finally:
        assert node.stop() == 0
