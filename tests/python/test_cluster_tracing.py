"""Request tracing on a 3-node cluster (docs/tracing.md): a traced QUORUM
read or write coordinated by node 1 has events from the replicas
themselves (their own source, the session learnt from the message), and
the trace reads the same from any node, as drivers read it at ONE from
whichever node they pick, even with one node down (its rows are kept by a
second node)."""

import time

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

import local_cluster
import metrics_util

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

NODES = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]


def events_of(session, trace_id):
    return list(session.execute(SimpleStatement(
        "SELECT * FROM system_traces.events WHERE session_id = %s" % trace_id,
        consistency_level=ConsistencyLevel.ONE)))


def wait_for_events(session, trace_id, predicate):
    """The session's events once `predicate` holds for them: every node
    writes its own events in the background, a little after it answered."""
    deadline = time.time() + 10
    while True:
        events = events_of(session, trace_id)
        if predicate(events):
            return events
        assert time.time() < deadline, [
            (str(e.source), e.activity) for e in events]
        time.sleep(0.1)


def test_replicas_record_their_own_events():
    cluster = local_cluster.LocalCluster(3)
    drivers = [cluster.driver(whitelist=[address]) for address in NODES]
    try:
        sessions = [d.connect() for d in drivers]
        one = sessions[0]
        one.execute("CREATE KEYSPACE trace3 WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        one.execute("CREATE TABLE trace3.t (k int, c int, v text, "
                    "PRIMARY KEY (k, c))")
        for c in range(6):
            one.execute(SimpleStatement(
                "INSERT INTO trace3.t (k, c, v) VALUES (1, %d, 'v')" % c,
                consistency_level=ConsistencyLevel.ALL))
        one.execute(SimpleStatement(
            "DELETE FROM trace3.t WHERE k = 1 AND c = 0",
            consistency_level=ConsistencyLevel.ALL))

        rs = one.execute(SimpleStatement(
            "SELECT * FROM trace3.t WHERE k = 1",
            consistency_level=ConsistencyLevel.QUORUM), trace=True)
        assert len(list(rs)) == 5
        trace = rs.get_query_trace(max_wait_sec=10)
        assert str(trace.coordinator) == "127.0.0.1"
        assert trace.parameters["consistency_level"] == "QUORUM"

        def replica_read(events):
            return any(str(e.source) != "127.0.0.1" and
                       e.activity.startswith("Read 5 live rows and 1 tombstone")
                       for e in events)
        events = wait_for_events(one, trace.trace_id, replica_read)
        by_source = {}
        for e in events:
            by_source.setdefault(str(e.source), []).append(e.activity)
        others = [s for s in by_source if s != "127.0.0.1"]
        assert others, by_source
        replica = by_source[others[0]]
        assert any(a.endswith("message received from /127.0.0.1")
                   for a in replica), replica
        assert any(a.startswith("Enqueuing response to /127.0.0.1")
                   for a in replica), replica
        coordinator = by_source["127.0.0.1"]
        assert any(a.startswith("Replicas of the partition")
                   for a in coordinator), coordinator
        assert any(a.startswith("Sending READ_") for a in coordinator)
        assert any(" answer from /127.0.0." in a for a in coordinator)
        assert any(a.startswith("Read 5 live rows and 1 tombstone")
                   for a in coordinator), coordinator
        # Replica elapsed times count from when the session reached it.
        for e in events:
            if str(e.source) != "127.0.0.1":
                assert 0 <= e.source_elapsed < 1000000

        # Read from the other nodes: the same events, from every node.
        for s in sessions[1:]:
            again = wait_for_events(s, trace.trace_id,
                                    lambda ev: len(ev) >= len(events))
            assert {(str(e.source), e.activity) for e in again} >= \
                {(str(e.source), e.activity) for e in events}
            row = s.execute(SimpleStatement(
                "SELECT duration, coordinator FROM system_traces.sessions "
                "WHERE session_id = %s" % trace.trace_id,
                consistency_level=ConsistencyLevel.ONE)).one()
            assert row.duration is not None
            assert str(row.coordinator) == "127.0.0.1"

        # A write at ALL: every replica applies it and says so.
        rs = one.execute(SimpleStatement(
            "INSERT INTO trace3.t (k, c, v) VALUES (2, 1, 'w')",
            consistency_level=ConsistencyLevel.ALL), trace=True)
        trace = rs.get_query_trace(max_wait_sec=10)

        def applied_everywhere(events):
            return {str(e.source) for e in events
                    if e.activity == "Mutation applied on this replica"} == \
                set(NODES)
        events = wait_for_events(sessions[2], trace.trace_id,
                                 applied_everywhere)
        activities = [e.activity for e in events]
        assert "Write acknowledged by enough replicas for ALL" in activities
        assert sum(a.startswith("MUTATION message received from /127.0.0.1")
                   for a in activities) == 2
    finally:
        for d in drivers:
            d.shutdown()
        cluster.close()


def sources_and_activities(events):
    return {(str(e.source), e.activity) for e in events}


def test_trace_survives_a_node_going_down():
    """Each node's trace rows are kept by a second node too (as Cassandra's
    system_traces at RF 2): with node 2 killed, a read through node 3 still
    has node 2's events, as a replica of a request node 1 coordinated and
    as the coordinator of another, and the session node 2 coordinated with
    its duration."""
    metrics_port = local_cluster.free_port_on(NODES)
    cluster = local_cluster.LocalCluster(
        3, conf=("metrics_port=%d" % metrics_port,))
    drivers = [cluster.driver(whitelist=[address]) for address in NODES]
    try:
        sessions = [d.connect() for d in drivers]
        sessions[0].execute(
            "CREATE KEYSPACE trace_down WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        sessions[0].execute("CREATE TABLE trace_down.t (k int PRIMARY KEY, "
                            "v text)")

        def applied_everywhere(events):
            return {str(e.source) for e in events
                    if e.activity == "Mutation applied on this replica"} == \
                set(NODES)

        # Writes at ALL, one coordinated by node 1, one by node 2: every
        # node records events of both.
        traces = {}
        for coordinator in (1, 2):
            rs = sessions[coordinator - 1].execute(SimpleStatement(
                "INSERT INTO trace_down.t (k, v) VALUES (%d, 'x')"
                % coordinator, consistency_level=ConsistencyLevel.ALL),
                trace=True)
            trace = rs.get_query_trace(max_wait_sec=10)
            assert str(trace.coordinator) == NODES[coordinator - 1]
            traces[coordinator] = (trace.trace_id, sources_and_activities(
                wait_for_events(sessions[2], trace.trace_id,
                                applied_everywhere)))
        for _, events in traces.values():
            assert any(source == "127.0.0.2" for source, _ in events)

        # Node 2's copies are kept elsewhere once it has an answer for each
        # record it wrote.
        def copies_kept():
            samples = metrics_util.scrape(
                "http://127.0.0.2:%d/metrics" % metrics_port)

            def count(name, outcome):
                return metrics_util.value(samples, name, outcome=outcome)
            assert count("keywise_trace_copies_total", "failed") == 0
            assert count("keywise_trace_copies_total", "dropped") == 0
            written = count("keywise_trace_records_total", "written")
            return written > 0 and \
                count("keywise_trace_copies_total", "kept") == written
        local_cluster.wait_for(copies_kept, 10, "node 2's trace copies")

        cluster.run("kill", "2")
        drivers[1].shutdown()
        for coordinator, (trace_id, before) in traces.items():
            after = sources_and_activities(events_of(sessions[2], trace_id))
            missing = before - after
            assert not missing, (coordinator, sorted(missing))
            row = sessions[2].execute(SimpleStatement(
                "SELECT duration, coordinator FROM system_traces.sessions "
                "WHERE session_id = %s" % trace_id,
                consistency_level=ConsistencyLevel.ONE)).one()
            assert row is not None, coordinator
            assert row.duration is not None and row.duration > 0
            assert str(row.coordinator) == NODES[coordinator - 1]
    finally:
        for d in drivers:
            d.shutdown()
        cluster.close()
