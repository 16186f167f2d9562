"""The cluster fault campaign (docs/cluster.md, "Tests"): a 3-node local
cluster (RF=3) under QUORUM log writers, register writers and QUORUM
readers while one node at a time is killed with SIGKILL, paused with
SIGSTOP, partitioned from its peers and cut off from etcd (nft rules on
loopback; those two faults are skipped, with the reason printed, where
the machine cannot add rules), and while tablets move to a joining node
with the balancer's leader killed in the middle of a move.

Checks: no acknowledged write lost (QUORUM and ALL reads at the end), no
QUORUM read older than a write acknowledged before it began, and
availability per fault (printed; each fault must leave most operations
succeeding: one node of three is down, slow or cut off; each fault must
show in the logs, so one that did nothing fails).

CI runs every fault once, FAULT_SECONDS (default 5) each. The long
campaign: KEYWISE_FAULT_ROUNDS=N runs N rounds of faults in random order
(KEYWISE_SEED picks it), e.g.
  KEYWISE_FAULT_ROUNDS=20 KEYWISE_FAULT_SECONDS=10 \
      python3 -m pytest -s tests/python/test_cluster_faults.py
"""

import os
import random
import signal
import time

from cassandra import ConsistencyLevel
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import (DCAwareRoundRobinPolicy, TokenAwarePolicy,
                                WhiteListRoundRobinPolicy)

import fault_campaign
import local_cluster

pytestmark = local_cluster.SKIP_WITHOUT_ETCD

ROUNDS = int(os.environ.get("KEYWISE_FAULT_ROUNDS", "1"))
FAULT_SECONDS = float(os.environ.get("KEYWISE_FAULT_SECONDS", "5"))
SEED = int(os.environ.get("KEYWISE_SEED", "20"))
# Each fault must leave at least this share of operations succeeding.
MIN_AVAILABILITY = 0.5


def test_stale_read_check_catches_a_stale_read():
    """The register check itself: a read that returns less than a value
    acknowledged before it began is reported; one that overlaps the write
    is not."""
    acked = {0: [(1.0, 1), (2.0, 2)]}
    assert fault_campaign.stale_reads(acked, [(0, 2.5, 3.0, 2)]) == []
    assert fault_campaign.stale_reads(acked, [(0, 1.5, 3.0, 1)]) == []
    assert fault_campaign.stale_reads(acked, [(0, 2.5, 3.0, 1)]) == \
        [(0, 2.5, 3.0, 1, 2)]
    assert fault_campaign.stale_reads(acked, [(0, 0.5, 3.0, 0)]) == []


def move_began(cluster, nodes):
    """Whether a tablet move shows in `keywise cluster status`, or has
    already ended with node `nodes` (the one just added) holding tablets: a
    small move can start and end between two polls."""
    status = cluster.run("status")
    return "moving" in status or local_cluster.tablets_held(status).get(
        "127.0.0.%d" % nodes, 0) > 0


def test_faults_lose_no_acknowledged_write_and_reads_are_not_stale():
    rng = random.Random(SEED)
    moves = 2 * ROUNDS  # a joining node per move fault
    cluster = local_cluster.LocalCluster(
        3, spare=moves, conf=("tablet_balancer_interval_in_ms=100",
                              "initial_tablets=8",
                              "tablet_load_report_interval_in_ms=500"))
    firewall = fault_campaign.Firewall()
    no_firewall = fault_campaign.Firewall.why_unavailable()
    profile = ExecutionProfile(
        load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy()),
        consistency_level=ConsistencyLevel.QUORUM, request_timeout=3)
    driver = Cluster(["127.0.0.1"], port=cluster.port, protocol_version=4,
                     execution_profiles={EXEC_PROFILE_DEFAULT: profile})
    nodes = 3
    report = []
    work = None
    try:
        session = driver.connect()
        fault_campaign.Workload.create(session, "faults")
        work = fault_campaign.Workload(session, "faults")
        work.start()
        time.sleep(1)

        def wait_all_up():
            local_cluster.wait_for(
                lambda: fault_campaign.all_up(cluster, nodes), 60,
                "every node up again")

        def run_fault(name, inject, heal, evidence=None):
            """Injects, waits, heals; `evidence`: a log line the fault
            must have caused (so a fault that did nothing fails)."""
            work.phase = name
            seen = cluster.count_in_logs(evidence) if evidence else 0
            inject()
            time.sleep(FAULT_SECONDS)
            heal()
            if evidence:
                local_cluster.wait_for(
                    lambda: cluster.count_in_logs(evidence) > seen, 30,
                    "'%s' in the logs after %s" % (evidence, name))
            work.phase = name + " (healing)"
            wait_all_up()
            time.sleep(1)
            work.phase = "between faults"
            availability, total = work.availability(name)
            report.append((name, availability, total))
            assert total > 0, name + ": no operation finished"
            assert availability >= MIN_AVAILABILITY, (
                "%s: only %.0f%% of %d operations succeeded" %
                (name, 100 * availability, total))

        def kill9():
            victim = rng.randint(1, nodes)
            run_fault("kill -9 node %d" % victim,
                      lambda: cluster.run("kill", str(victim)),
                      lambda: cluster.run("start", str(victim)))

        def pause():
            victim = rng.randint(1, nodes)
            pid = fault_campaign.node_pid(cluster, victim)
            # Longer than its lease (3 s): the others see it down.
            run_fault("SIGSTOP node %d" % victim,
                      lambda: os.kill(pid, signal.SIGSTOP),
                      lambda: os.kill(pid, signal.SIGCONT),
                      evidence="Lost this node's etcd lease")

        def partition():
            if no_firewall:
                report.append(("partition: skipped", no_firewall, 0))
                return
            victim = rng.randint(1, nodes)
            address = "127.0.0.%d" % victim
            peers = ["127.0.0.%d" % i for i in range(1, nodes + 1)
                     if i != victim]
            run_fault("node %d cut from its peers" % victim,
                      lambda: firewall.block(
                          fault_campaign.Firewall.partition_rules(
                              address, peers, cluster.storage_port)),
                      firewall.clear, evidence="does not take connections")

        def etcd_cut():
            if no_firewall:
                report.append(("etcd cut: skipped", no_firewall, 0))
                return
            # Not node 1: etcd and the test's tools use 127.0.0.1 too.
            victim = rng.randint(2, nodes)
            run_fault("node %d cut from etcd" % victim,
                      lambda: firewall.block(
                          fault_campaign.Firewall.etcd_rules(
                              "127.0.0.%d" % victim, cluster.etcd_port)),
                      firewall.clear, evidence="Lost this node's etcd lease")

        def moves_with_leader_killed():
            nonlocal nodes
            name = "node %d joins, balancer leader killed mid-move" % (
                nodes + 1)
            work.phase = name
            cluster.run("add")
            nodes += 1
            local_cluster.wait_for(
                lambda: move_began(cluster, nodes), 30,
                "a tablet move to begin")
            leader = fault_campaign.etcd_get(
                cluster.etcd_port, "/keywise/keywise/balancer")
            address = fault_campaign.address_of_host(cluster, leader or "-")
            assert address is not None, (leader, cluster.run("status"))
            victim = int(address.rsplit(".", 1)[1])
            cluster.run("kill", str(victim))
            time.sleep(FAULT_SECONDS / 2)
            cluster.run("start", str(victim))
            work.phase = name + " (healing)"
            wait_all_up()
            local_cluster.wait_for(
                lambda: "moving" not in cluster.run("status") and
                local_cluster.tablets_held(cluster.run("status")).get(
                    "127.0.0.%d" % nodes, 0) > 0,
                120, "the new node's share with no move left")
            work.phase = "between faults"
            availability, total = work.availability(name)
            report.append((name + " (killed node %d)" % victim,
                           availability, total))
            assert availability >= MIN_AVAILABILITY, (
                "%s: only %.0f%% of %d operations succeeded" %
                (name, 100 * availability, total))

        def moves_with_a_stale_node():
            """A node cut from etcd keeps serving clients on its old view
            while tablets move to a joining node: the replicas fence it out
            (its requests carry an epoch below the fence) until it has
            caught up."""
            nonlocal nodes
            if no_firewall:
                report.append(("moves with a stale node: skipped",
                               no_firewall, 0))
                return
            victim = rng.randint(2, nodes)
            name = "node %d cut from etcd while node %d joins" % (
                victim, nodes + 1)
            work.phase = name
            fenced = cluster.count_in_logs("older than the fence")
            # A client of the stale node alone: the others' drivers stop
            # using a node once it is reported down, its own does not.
            address = "127.0.0.%d" % victim
            own = Cluster([address], port=cluster.port, protocol_version=4,
                          execution_profiles={EXEC_PROFILE_DEFAULT:
                                              ExecutionProfile(
                              load_balancing_policy=WhiteListRoundRobinPolicy(
                                  [address]),
                              consistency_level=ConsistencyLevel.QUORUM,
                              request_timeout=3)})
            stop_own = work.writer_through(own.connect())
            firewall.block(fault_campaign.Firewall.etcd_rules(
                address, cluster.etcd_port))
            time.sleep(4)  # its lease runs out: the others see it down
            cluster.run("add")
            nodes += 1
            local_cluster.wait_for(
                lambda: move_began(cluster, nodes), 30,
                "a tablet move to begin")
            time.sleep(FAULT_SECONDS)
            # The stale node's requests met the fence.
            try:
                local_cluster.wait_for(
                    lambda: cluster.count_in_logs("older than the fence") >
                    fenced, 30, "a replica to refuse node %d by the fence" %
                    victim)
            finally:
                firewall.clear()
                stop_own()
                own.shutdown()
            work.phase = name + " (healing)"
            wait_all_up()
            local_cluster.wait_for(
                lambda: "moving" not in cluster.run("status"), 120,
                "the moves to end")
            work.phase = "between faults"
            availability, total = work.availability(name)
            report.append((name, availability, total))
            assert availability >= MIN_AVAILABILITY, (
                "%s: only %.0f%% of %d operations succeeded" %
                (name, 100 * availability, total))

        faults = [kill9, pause, partition, etcd_cut, moves_with_leader_killed,
                  moves_with_a_stale_node]
        for round_ in range(ROUNDS):
            order = list(faults)
            if round_ > 0:
                rng.shuffle(order)
            for fault in order:
                fault()
        work.finish()

        print("\nfault | availability | operations")
        for name, availability, total in report:
            if isinstance(availability, str):
                print("%s | %s | -" % (name, availability))
            else:
                print("%s | %.1f%% | %d" % (name, 100 * availability, total))
        print("acknowledged log writes: %d; register reads checked: %d" %
              (len(work.acknowledged), len(work.reads)))
        stale = fault_campaign.stale_reads(work.acked_writes, work.reads)
        assert stale == [], "%d stale QUORUM reads, e.g. %s" % (
            len(stale), stale[:5])
        assert len(work.acknowledged) > 100
        assert work.lost(ConsistencyLevel.QUORUM) == []
        assert work.lost(ConsistencyLevel.ALL) == []
    finally:
        firewall.clear()
        if work is not None:
            work.finish()  # idempotent; a failed check leaves it running
        driver.shutdown()
        cluster.close()
