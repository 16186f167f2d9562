"""ScyllaDB's tablets-routing-v1 extension on a local cluster (nodes on
127.0.0.1-3): a client that names TABLETS_ROUTING_V1 in STARTUP, as
ScyllaDB's tablet-aware drivers do, gets the tablet of a prepared
statement's partition in the RESULT's custom payload whenever the node it
reached holds no replica; other clients never get it. `keywise bench`
learns those routes and, once tablets have split and moved away from the
advertised tokens, still sends its requests straight to a replica.

The DataStax driver does not ask for the extension, so the test adds the
option to its STARTUP message, as a tablet-aware driver would send it.
"""

import json
import re
import subprocess

from cassandra.concurrent import execute_concurrent_with_args
from cassandra.cqltypes import lookup_casstype

import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

ROUTE = lookup_casstype(
    "TupleType(LongType, LongType, ListType(TupleType(UUIDType, Int32Type)))")


def test_routes_come_back_from_nodes_without_a_replica_only():
    cluster = local_cluster.LocalCluster(3)
    setup = cluster.driver()
    try:
        session = setup.connect()
        session.execute(
            "CREATE KEYSPACE routed WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        session.execute("CREATE TABLE routed.t (k int PRIMARY KEY, v int)")
        hosts = {h.address: h.host_id for h in setup.metadata.all_hosts()}
        assert len(hosts) == 3, hosts

        aware = cluster.driver(whitelist=["127.0.0.1"])
        plain = cluster.driver(whitelist=["127.0.0.1"])
        try:
            with local_cluster.asking_for_routes():
                a = aware.connect()
            p = plain.connect()
            insert_a = a.prepare("INSERT INTO routed.t (k, v) VALUES (?, ?)")
            select_a = a.prepare("SELECT v FROM routed.t WHERE k = ?")
            insert_p = p.prepare("INSERT INTO routed.t (k, v) VALUES (?, ?)")
            token_of = a.prepare("SELECT token(k) AS t FROM routed.t "
                                 "WHERE k = ?")
            remote, local = [], []
            for k in range(60):
                rs = a.execute(insert_a, (k, k))
                payload = rs.response_future.custom_payload
                assert not p.execute(
                    insert_p, (k, k)).response_future.custom_payload
                token = a.execute(token_of, (k,)).one().t
                if not payload:
                    local.append(token)
                    continue
                assert set(payload) == {"tablets-routing-v1"}, payload
                first, last, replicas = ROUTE.from_binary(
                    payload["tablets-routing-v1"], 4)
                assert first < token <= last, (first, token, last)
                assert len(replicas) == 1 and replicas[0][1] == 0, replicas
                assert replicas[0][0] in hosts.values(), replicas
                assert replicas[0][0] != hosts["127.0.0.1"], replicas
                remote.append((first, last))
                # A read of the same partition gets the same route.
                rs = a.execute(select_a, (k,))
                assert rs.one().v == k
                assert ROUTE.from_binary(
                    rs.response_future.custom_payload["tablets-routing-v1"],
                    4)[:2] == (first, last)
            # Node 1 holds some of the 8 tablets and not others.
            assert remote and local, (remote, local)
            # A partition answered without a route is in none of the
            # routed tablets (node 1 is its replica).
            for token in local:
                assert not any(f < token <= l for f, l in remote), token
            # A range-placed table's tablets are key ranges, which drivers
            # (hashing keys with Murmur3) would misread: no route is sent,
            # node 1 forwards, and every row is there.
            session.execute("CREATE TABLE routed.r (k int PRIMARY KEY, "
                            "v int) WITH placement = 'range'")
            insert_r = a.prepare("INSERT INTO routed.r (k, v) VALUES (?, ?)")
            select_r = a.prepare("SELECT v FROM routed.r WHERE k = ?")
            for k in range(-30, 30):
                assert not a.execute(
                    insert_r, (k << 26, k)).response_future.custom_payload
                rs = a.execute(select_r, (k << 26,))
                assert rs.one().v == k and \
                    not rs.response_future.custom_payload
            assert [r.v for r in a.execute(
                "SELECT v FROM routed.r WHERE k >= %d" % (-5 << 26))] == \
                list(range(-5, 30))
        finally:
            aware.shutdown()
            plain.shutdown()
    finally:
        setup.shutdown()
        cluster.close()


def bench(cluster, *args):
    """`keywise bench --json` over the cluster's three nodes."""
    out = subprocess.run(
        [local_cluster.BINARY, "bench", "--host",
         "127.0.0.1,127.0.0.2,127.0.0.3", "--port", str(cluster.port),
         "--partitions", "2000", "--rows-per-partition", "20",
         "--concurrency", "32", "--json", "--quiet", *args],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


def test_bench_routes_by_learned_tablets_after_splits_and_moves():
    cluster = local_cluster.LocalCluster(3, conf=local_cluster.SMALL_SPLITS)
    setup = cluster.driver()
    try:
        # Writes grow the bench table past the split size many times, and a
        # second table more; the balancer spreads the parts of both. The
        # tokens nodes advertise follow the table with the most tablets,
        # the second one, so they do not say where the bench table's are.
        wrote = bench(cluster, "--workload", "write", "--ops", "6000",
                      "--value-size", "200")
        assert wrote["errors"] == 0, wrote
        session = setup.connect()
        local_cluster.kv_table(session, "bigger", 1)
        insert = session.prepare("INSERT INTO bigger.t (k, v) VALUES (?, ?)")
        execute_concurrent_with_args(
            session, insert, [(k, "x" * 300) for k in range(12000)],
            concurrency=64)
        def spread():
            counts = dict(re.findall(r"^(\w+)\.\w+ \((\d+) tablets\)",
                                     cluster.admin("tablets"), re.M))
            held = local_cluster.tablets_held(cluster.admin("status"))
            return (len(held) == 3 and min(held.values()) >= 6 and
                    int(counts.get("bigger", 0)) >
                    int(counts.get("keywise_bench", 0)))
        local_cluster.wait_for(spread, 60, "the split tablets on every node")

        by_token = bench(cluster, "--workload", "read", "--no-load",
                         "--duration", "2s", "--no-tablet-routing")
        by_tablet = bench(cluster, "--workload", "read", "--no-load",
                          "--duration", "2s")
        for run in (by_token, by_tablet):
            assert run["errors"] == 0 and run["ops"] > 0, run
            assert run["token_aware"], run
        assert not by_token["tablet_aware"] and by_tablet["tablet_aware"]
        # By the advertised tokens alone, a large share reaches a node
        # without a replica (which forwards it); learning the routes, only
        # the first request of each tablet does.
        assert by_token["routed_replies"] > 0.2 * by_token["ops"], by_token
        assert by_tablet["learned_tablets"] > 0, by_tablet
        assert by_tablet["routed_replies"] < 0.02 * by_tablet["ops"], by_tablet
    finally:
        setup.shutdown()
        cluster.close()
