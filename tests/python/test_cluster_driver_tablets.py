"""What the DataStax Python driver's routing gets from a cluster whose
table has split and whose tablets moved (nodes on 127.0.0.1-3, RF=1).
The tokens nodes advertise follow the tablets of the table with the most of
them, so the driver's own TokenAwarePolicy reaches its replicas, but only
as they were when the driver read the tokens: driver 3.25 does not re-read
them on MOVED_NODE. clients/python/keywise_tablets.py's TabletAwarePolicy
reads system.tablets again every few seconds, so it keeps reaching them
after the table grew, split and moved.

Whether a request reached a non-replica is the server's word: both drivers
ask for tablets-routing-v1 routes (local_cluster.asking_for_routes), which
only a node holding no replica of the partition sends back.
"""

import random
import sys
import time

from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.policies import DCAwareRoundRobinPolicy, TokenAwarePolicy

import local_cluster

sys.path.insert(0, str(local_cluster.ROOT / "clients" / "python"))
import keywise_tablets  # noqa: E402

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

KEYS = 6000
LISTING = ("SELECT last_token, replicas FROM system.tablets "
           "WHERE keyspace_name = 'routed' AND table_name = 't'")


def value(k):
    return "v%d-%s" % (k, "x" * 200)  # 3000 of them split the table in 8-16


def connect(cluster, policy):
    profile = ExecutionProfile(load_balancing_policy=policy,
                               request_timeout=10)
    driver = Cluster(["127.0.0.1"], port=cluster.port, protocol_version=4,
                     execution_profiles={EXEC_PROFILE_DEFAULT: profile})
    return driver, driver.connect()


def forwarded_share(session, reads, keys):
    """The share of `reads` point reads of random keys below `keys` that
    were answered with a route."""
    select = session.prepare("SELECT v FROM routed.t WHERE k = ?")
    routed = 0
    for _ in range(reads):
        k = random.randrange(keys)
        rs = session.execute(select, (k,))
        assert rs.one().v == value(k)
        routed += bool(rs.response_future.custom_payload)
        # Below 250 requests/s, the balancer's bar for moving tablets by
        # load (docs/cluster.md, "The balancer"): the reads measure, not
        # move.
        time.sleep(0.003)
    return routed / reads


def wait_until_settled(session):
    """Waits until the table's tablets stay where they are for 2 s (the
    balancer has finished spreading them)."""
    last, since = None, time.time()
    deadline = since + 60
    while time.time() < deadline:
        now = list(session.execute(LISTING))
        if now != last:
            last, since = now, time.time()
        elif time.time() - since >= 2:
            return
        time.sleep(0.2)
    raise AssertionError("the tablets kept moving: %r" % last)


def wait_for_spread_tablets(cluster, session, least):
    def spread():
        held = local_cluster.tablets_held(cluster.admin("status"))
        return len(held) == 3 and min(held.values()) >= least
    local_cluster.wait_for(spread, 90, "the split tablets on every node")
    wait_until_settled(session)


def load(session, keys):
    insert = session.prepare("INSERT INTO routed.t (k, v) VALUES (?, ?)")
    execute_concurrent_with_args(session, insert,
                                 [(k, value(k)) for k in keys], concurrency=64)


def test_tablet_aware_policy_reaches_the_replica_after_splits_and_moves():
    cluster = local_cluster.LocalCluster(3, conf=local_cluster.SMALL_SPLITS)
    setup = cluster.driver()
    try:
        session = setup.connect()
        session.execute(
            "CREATE KEYSPACE routed WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        session.execute("CREATE TABLE routed.t (k int PRIMARY KEY, v text)")
        load(session, range(KEYS // 2))
        wait_for_spread_tablets(cluster, session, 2)
        # Every connection the drivers open (some open later, on their own
        # threads) asks for routes.
        with local_cluster.asking_for_routes():
            measure(cluster, session)
    finally:
        setup.shutdown()
        cluster.close()


def measure(cluster, session):
    policy = keywise_tablets.TabletAwarePolicy(
        TokenAwarePolicy(DCAwareRoundRobinPolicy()), refresh_interval=0.5)
    aware_driver, aware = connect(cluster, policy)
    plain_driver = None
    try:
        policy.attach(aware)
        # The first request of the table makes the policy read its tablets.
        forwarded_share(aware, 10, KEYS // 2)
        local_cluster.wait_for(lambda: policy.tablets_known() > 2, 10,
                               "the policy to read system.tablets")
        rows = list(aware.execute(LISTING))
        assert len(rows) > 2 and rows[-1].last_token == 2**63 - 1, rows
        hosts = {h.host_id for h in aware.cluster.metadata.all_hosts()}
        assert all(len(r.replicas) == 1 and r.replicas[0] in hosts
                   for r in rows), rows

        # A driver that has just read the tokens reaches the replicas. The
        # balancer may still move a tablet for the reads' load: a run
        # during which one moved is repeated.
        for _ in range(5):
            before = list(aware.execute(LISTING))
            plain_driver, plain = connect(
                cluster, TokenAwarePolicy(DCAwareRoundRobinPolicy()))
            fresh_tokens = forwarded_share(plain, 600, KEYS // 2)
            by_tablet = forwarded_share(aware, 600, KEYS // 2)
            if list(aware.execute(LISTING)) == before:
                break
            plain_driver.shutdown()
            time.sleep(1)
        print("reached a non-replica after connecting: TokenAwarePolicy "
              "%.1f%%, TabletAwarePolicy %.1f%%" % (100 * fresh_tokens,
                                                    100 * by_tablet))
        assert fresh_tokens < 0.05, fresh_tokens
        assert by_tablet < 0.01, by_tablet

        # The table doubles: more splits, and moves.
        load(aware, range(KEYS // 2, KEYS))
        wait_for_spread_tablets(cluster, aware, 4)
        for _ in range(5):
            before = list(aware.execute(LISTING))
            old_tokens = forwarded_share(plain, 600, KEYS)
            by_tablet = forwarded_share(aware, 600, KEYS)
            if list(aware.execute(LISTING)) == before:
                break
            time.sleep(1)
        print("reached a non-replica after the table grew and moved: "
              "TokenAwarePolicy %.1f%%, TabletAwarePolicy %.1f%%" %
              (100 * old_tokens, 100 * by_tablet))
        assert by_tablet < 0.01, by_tablet
    finally:
        policy.shutdown()
        if plain_driver is not None:
            plain_driver.shutdown()
        aware_driver.shutdown()
