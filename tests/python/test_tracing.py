"""Request tracing (docs/tracing.md) through the DataStax Python driver:
`session.execute(..., trace=True)` gets a session id back and
`get_query_trace()` reads the session and its events from system_traces, as
against Cassandra 4; trace_probability traces untraced requests (their
responses carry no id) and is changed with UPDATE system_views.settings;
trace rows expire after tracing_ttl_seconds; `keywise shell` prints traces
as cqlsh does."""

import subprocess
import time

import pytest
from cassandra import ConsistencyLevel, InvalidRequest
from cassandra.query import BatchStatement, SimpleStatement

from conftest import Node, create_keyspace, driver_cluster


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, "tracing_ks")
    session.execute("CREATE TABLE IF NOT EXISTS tracing_ks.t "
                    "(k int, c int, v text, PRIMARY KEY (k, c))")
    # Partition 1: seven rows, two of them deleted afterwards.
    for c in range(7):
        session.execute("INSERT INTO tracing_ks.t (k, c, v) VALUES (1, %d, 'v')" % c)
    session.execute("DELETE FROM tracing_ks.t WHERE k = 1 AND c = 2")
    session.execute("DELETE FROM tracing_ks.t WHERE k = 1 AND c = 5")
    return "tracing_ks"


def activities(trace):
    return [e.description for e in trace.events]


def has(trace, prefix):
    return any(a.startswith(prefix) for a in activities(trace))


def test_traced_select_reports_real_steps(session, ks):
    rs = session.execute(
        SimpleStatement("SELECT * FROM tracing_ks.t WHERE k = 1",
                        consistency_level=ConsistencyLevel.ONE),
        trace=True)
    assert len(list(rs)) == 5
    trace = rs.get_query_trace(max_wait_sec=10)
    assert trace is not None
    assert trace.duration is not None and trace.duration.total_seconds() > 0
    assert str(trace.coordinator) == "127.0.0.1"
    assert str(trace.client) == "127.0.0.1"
    assert trace.request_type == "Execute CQL3 query"
    assert trace.started_at is not None
    assert trace.parameters["query"] == "SELECT * FROM tracing_ks.t WHERE k = 1"
    assert trace.parameters["consistency_level"] == "ONE"
    assert trace.parameters["serial_consistency_level"] == "SERIAL"
    assert trace.parameters["page_size"] == "5000"  # the driver's fetch size
    names = activities(trace)
    assert "Parsing SELECT * FROM tracing_ks.t WHERE k = 1" in names
    assert "Preparing statement" in names
    assert has(trace, "Plan: SCAN tracing_ks.t: partition k = 1")
    # The counts are the data's: five live rows, two deleted ones.
    assert has(trace, "Read 5 live rows and 2 tombstones"), names
    assert has(trace, "Response ready: RESULT Rows (5 rows)"), names
    for e in trace.events:
        assert str(e.source) == "127.0.0.1"
        assert e.thread_name
    elapsed = [e.source_elapsed.total_seconds() for e in trace.events]
    assert elapsed == sorted(elapsed)
    assert elapsed[-1] <= trace.duration.total_seconds()


def test_point_read_counts_what_it_found(session, ks):
    trace = session.execute(
        "SELECT v FROM tracing_ks.t WHERE k = 1 AND c = 3",
        trace=True).get_query_trace()
    assert has(trace, "Plan: GET tracing_ks.t: the row k = 1 AND c = 3")
    assert has(trace, "Read 1 live row and 0 tombstones (deleted or expired "
                      "rows) in 1 partition")
    trace = session.execute(
        "SELECT v FROM tracing_ks.t WHERE k = 1 AND c = 2",
        trace=True).get_query_trace()
    assert has(trace, "Read 0 live rows and 1 tombstone (deleted or expired "
                      "rows) in 1 partition"), activities(trace)


def test_prepared_statement_traced(session, ks):
    insert = session.prepare(
        "INSERT INTO tracing_ks.t (k, c, v) VALUES (?, ?, ?)")
    rs = session.execute(insert, (2, 1, "it's"), trace=True)
    trace = rs.get_query_trace()
    assert trace.request_type == "Execute CQL3 prepared query"
    assert trace.parameters["query"] == \
        "INSERT INTO tracing_ks.t (k, c, v) VALUES (?, ?, ?)"
    assert trace.parameters["bound_var_0_k"] == "2"
    assert trace.parameters["bound_var_2_v"] == "'it''s'"
    assert has(trace, "Plan: INSERT tracing_ks.t")
    assert has(trace, "Applying 1 partition update (1 row) of tracing_ks.t")
    assert has(trace, "Write applied to storage")
    assert has(trace, "Wrote 1 row to 1 partition")
    assert has(trace, "Response ready: RESULT Void")
    select = session.prepare("SELECT * FROM tracing_ks.t WHERE k = ?")
    trace = session.execute(select, (1,), trace=True).get_query_trace()
    assert trace.request_type == "Execute CQL3 prepared query"
    assert not has(trace, "Parsing")  # prepared: nothing to parse
    assert has(trace, "Read 5 live rows")


def test_batch_traced(session, ks):
    insert = session.prepare(
        "INSERT INTO tracing_ks.t (k, c, v) VALUES (?, ?, ?)")
    batch = BatchStatement()
    for k in (10, 11, 12):
        batch.add(insert, (k, 0, "b"))
    batch.add("INSERT INTO tracing_ks.t (k, c, v) VALUES (13, 0, 'b')")
    trace = session.execute(batch, trace=True).get_query_trace()
    assert trace.request_type == "Execute batch of CQL3 queries"
    assert trace.parameters["consistency_level"] == "LOCAL_ONE"
    assert "query" not in trace.parameters
    assert has(trace, "Plan: BATCH LOGGED, 4 statements")
    assert has(trace, "Parsing INSERT INTO tracing_ks.t (k, c, v) VALUES (13")
    assert has(trace, "Wrote 4 rows to 4 partitions"), activities(trace)


def test_untraced_request_gets_no_tracing_id(session, ks):
    rs = session.execute("SELECT * FROM tracing_ks.t WHERE k = 1")
    assert rs.get_query_trace() is None
    assert not rs.response_future._query_traces


def test_error_response_carries_the_trace(session, ks):
    future = session.execute_async("SELECT * FROM tracing_ks.nope", trace=True)
    with pytest.raises(InvalidRequest):
        future.result()
    trace = future.get_query_trace(max_wait=10)
    assert trace is not None
    assert trace.duration is not None
    assert has(trace, "Response ready: ERROR Invalid (0x2200): "
                      "unconfigured table nope"), activities(trace)


def test_protocol_v4_and_v3_traced(node, ks):
    for version in (3, 4):
        cluster = driver_cluster(node, protocol_version=version)
        try:
            s = cluster.connect()
            trace = s.execute("SELECT * FROM tracing_ks.t WHERE k = 1",
                              trace=True).get_query_trace()
            assert has(trace, "Read 5 live rows"), (version, activities(trace))
        finally:
            cluster.shutdown()


def test_trace_rows_have_the_one_day_ttl(session, ks):
    trace = session.execute("SELECT * FROM tracing_ks.t WHERE k = 1",
                            trace=True).get_query_trace()
    row = session.execute(
        "SELECT TTL(request), TTL(duration) FROM system_traces.sessions "
        "WHERE session_id = %s" % trace.trace_id).one()
    assert 86300 < row[0] <= 86400 and 86300 < row[1] <= 86400
    row = session.execute(
        "SELECT TTL(activity) FROM system_traces.events "
        "WHERE session_id = %s LIMIT 1" % trace.trace_id).one()
    assert 86300 < row[0] <= 86400


def settings(session):
    return {r.name: r.value for r in
            session.execute("SELECT * FROM system_views.settings")}


def sessions_for(session, marker):
    """Sessions whose query text contains `marker`."""
    return [r for r in session.execute(
        "SELECT session_id, parameters, duration FROM system_traces.sessions")
        if marker in (r.parameters or {}).get("query", "")]


def test_trace_probability_changes_at_run_time(session, ks):
    assert settings(session)["trace_probability"] == "0"
    session.execute("UPDATE system_views.settings SET value = '1.0' "
                    "WHERE name = 'trace_probability'")
    try:
        assert settings(session)["trace_probability"] == "1"
        for i in range(5):
            rs = session.execute(
                "SELECT * FROM tracing_ks.t WHERE k = 1 AND c = %d "
                "/* sampled-on */" % i)
            # Sampled: traced, but the response says nothing (Cassandra).
            assert rs.get_query_trace() is None
    finally:
        session.execute("UPDATE system_views.settings SET value = '0' "
                        "WHERE name = 'trace_probability'")
    assert settings(session)["trace_probability"] == "0"
    deadline = time.time() + 10
    while True:
        found = sessions_for(session, "sampled-on")
        if len(found) == 5 and all(r.duration is not None for r in found):
            break
        assert time.time() < deadline, found
        time.sleep(0.1)
    for i in range(5):
        session.execute("SELECT * FROM tracing_ks.t WHERE k = 1 AND c = %d "
                        "/* sampled-off */" % i)
    time.sleep(1)  # the writer runs in the background: give it time
    assert sessions_for(session, "sampled-off") == []


def test_trace_probability_through_a_prepared_update(session, ks):
    update = session.prepare(
        "UPDATE system_views.settings SET value = ? WHERE name = ?")
    session.execute(update, ("0.25", "trace_probability"))
    try:
        assert settings(session)["trace_probability"] == "0.25"
        with pytest.raises(InvalidRequest) as e:
            session.execute(update, ("2", "trace_probability"))
        assert "must be a number from 0 to 1" in str(e.value)
        assert settings(session)["trace_probability"] == "0.25"
    finally:
        session.execute(update, ("0", "trace_probability"))
    assert settings(session)["trace_probability"] == "0"


def test_bad_settings_refused(session, ks):
    def refused(cql, message):
        with pytest.raises(InvalidRequest) as e:
            session.execute(cql)
        assert message in str(e.value), str(e.value)

    for bad in ("1.5", "-0.1", "often", "", "nan"):
        refused("UPDATE system_views.settings SET value = '%s' "
                "WHERE name = 'trace_probability'" % bad,
                "Invalid value '%s' for setting trace_probability: it must be "
                "a number from 0 to 1" % bad)
    refused("UPDATE system_views.settings SET value = '60' "
            "WHERE name = 'tracing_ttl_seconds'",
            "Setting 'tracing_ttl_seconds' cannot be changed while the node "
            "runs; only trace_probability can be changed")
    refused("UPDATE system_views.settings SET value = '1' WHERE name = 'foo'",
            "Unknown setting 'foo'")
    refused("INSERT INTO system_views.settings (name, value) "
            "VALUES ('trace_probability', '1')",
            "Modification is not supported by table system_views.settings")
    refused("DELETE FROM system_views.settings WHERE name = 'trace_probability'",
            "Modification is not supported by table system_views.settings")
    refused("INSERT INTO system_views.clients (address, port) "
            "VALUES ('1.2.3.4', 1)",
            "Modification is not supported by table system_views.clients")
    refused("BEGIN BATCH UPDATE system_views.settings SET value = '1' "
            "WHERE name = 'trace_probability' APPLY BATCH",
            "Cannot include a virtual table statement in a batch")
    assert settings(session) == {"trace_probability": "0",
                                 "tracing_ttl_seconds": "86400"}


def test_bad_config_refused():
    for config, message in (
            ("trace_probability: 2\n",
             "trace_probability must be a number from 0 to 1"),
            ("tracing_ttl_seconds: 0\n",
             "tracing_ttl_seconds must be between 1 and 630720000")):
        with pytest.raises(RuntimeError) as e:
            Node(config)
        assert message in str(e.value), str(e.value)


def test_short_ttl_expires_and_config_probability():
    n = Node("tracing_ttl_seconds: 2\ntrace_probability: 1\n")
    cluster = driver_cluster(n)
    try:
        s = cluster.connect()
        assert settings(s) == {"trace_probability": "1",
                               "tracing_ttl_seconds": "2"}
        s.execute("UPDATE system_views.settings SET value = '0' "
                  "WHERE name = 'trace_probability'")
        trace = s.execute("SELECT * FROM system.local",
                          trace=True).get_query_trace()
        query = "SELECT * FROM system_traces.events WHERE session_id = %s" % \
            trace.trace_id
        assert len(list(s.execute(query))) > 0
        time.sleep(3)
        assert list(s.execute(query)) == []
        assert s.execute("SELECT * FROM system_traces.sessions WHERE "
                         "session_id = %s" % trace.trace_id).one() is None
    finally:
        cluster.shutdown()
        assert n.stop() == 0


def test_shell_prints_the_trace_like_cqlsh(node, ks):
    out = subprocess.run(
        [node.binary, "shell", "127.0.0.1", str(node.port), "-e",
         "TRACING ON; SELECT * FROM tracing_ks.t WHERE k = 1; TRACING OFF; "
         "SELECT * FROM tracing_ks.t WHERE k = 1"],
        capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.count("Tracing session: ") == 1, text
    assert "(5 rows)" in text
    header = [line for line in text.splitlines()
              if line.lstrip().startswith("activity")]
    assert len(header) == 1
    assert [w.strip() for w in header[0].split("|")] == \
        ["activity", "timestamp", "source", "source_elapsed", "client"]
    assert "Execute CQL3 query |" in text
    assert "Read 5 live rows and 2 tombstones" in text
    assert "Request complete |" in text
