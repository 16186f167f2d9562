"""clients/python/keywise_tablets.py's TabletAwarePolicy without a server:
the query plans it makes from tablets it was given, against a child
policy that lists every host (what it does with a cluster:
test_cluster_driver_tablets.py)."""

import sys
import uuid

from cassandra.metadata import Murmur3Token
from cassandra.policies import HostDistance, LoadBalancingPolicy

import conftest

sys.path.insert(0, str(conftest.ROOT / "clients" / "python"))
import keywise_tablets  # noqa: E402


class Host(object):
    def __init__(self, name):
        self.address = name
        self.host_id = uuid.uuid4()
        self.is_up = True

    def __repr__(self):
        return self.address


class Child(LoadBalancingPolicy):
    """Every host, in order, all local."""

    def __init__(self, hosts):
        LoadBalancingPolicy.__init__(self)
        self.hosts = hosts

    def populate(self, cluster, hosts):
        pass

    def distance(self, host):
        return HostDistance.LOCAL

    def make_query_plan(self, working_keyspace=None, query=None):
        return list(self.hosts)


class Metadata(object):
    def __init__(self, hosts):
        self.hosts = hosts

    def all_hosts(self):
        return self.hosts


class Cluster(object):
    def __init__(self, hosts):
        self.metadata = Metadata(hosts)
        self.is_shutdown = False


class Column(object):
    def __init__(self, keyspace, table):
        self.keyspace_name, self.table_name = keyspace, table


class Prepared(object):
    def __init__(self, keyspace, table):
        self.column_metadata = [Column(keyspace, table)]


class Bound(object):
    """What the policy reads of a BoundStatement."""

    def __init__(self, keyspace, table, routing_key):
        self.keyspace = keyspace
        self.routing_key = routing_key
        self.prepared_statement = Prepared(keyspace, table)


class Row(object):
    def __init__(self, last_token, replicas):
        self.last_token, self.replicas = last_token, replicas


def policy_with(hosts, tablets, shuffle=False):
    """A policy over `hosts` that knows ks.t's `tablets`: [(last token,
    [host, ...])]."""
    policy = keywise_tablets.TabletAwarePolicy(Child(hosts),
                                               shuffle_replicas=shuffle)
    policy.populate(Cluster(hosts), hosts)
    policy._tables[("ks", "t")] = keywise_tablets._Tablets(
        [Row(last, [h.host_id for h in replicas]) for last, replicas in tablets])
    return policy


def key_with_token(predicate):
    """A 4-byte routing key whose token satisfies `predicate`."""
    for i in range(100000):
        key = i.to_bytes(4, "big")
        if predicate(Murmur3Token.from_key(key).value):
            return key
    raise AssertionError("no such key")


def test_a_tablets_replicas_come_first_then_the_childs_other_hosts():
    a, b, c = Host("a"), Host("b"), Host("c")
    policy = policy_with([a, b, c], [(0, [c, b]), (2**63 - 1, [a])])
    low = key_with_token(lambda t: t <= 0)
    high = key_with_token(lambda t: t > 0)
    assert list(policy.make_query_plan("ks", Bound("ks", "t", low))) == \
        [c, b, a]
    assert list(policy.make_query_plan("ks", Bound("ks", "t", high))) == \
        [a, b, c]
    # The boundary token belongs to the tablet it ends.
    assert policy._tables[("ks", "t")].replicas_of(0) == [c.host_id, b.host_id]
    assert policy._tables[("ks", "t")].replicas_of(1) == [a.host_id]


def test_a_replica_that_is_down_is_skipped():
    # As the driver's TokenAwarePolicy does: the other replicas, then the
    # child's hosts that are not replicas.
    a, b, c = Host("a"), Host("b"), Host("c")
    policy = policy_with([a, b, c], [(2**63 - 1, [c, b])])
    c.is_up = False
    plan = list(policy.make_query_plan("ks", Bound("ks", "t", b"\0\0\0\1")))
    assert plan == [b, a]


def test_shuffled_replicas_all_come_first():
    hosts = [Host(n) for n in "abcde"]
    policy = policy_with(hosts, [(2**63 - 1, hosts[2:])], shuffle=True)
    firsts = set()
    for _ in range(100):
        plan = list(policy.make_query_plan("ks", Bound("ks", "t", b"k")))
        assert set(plan[:3]) == set(hosts[2:]) and plan[3:] == hosts[:2]
        firsts.add(plan[0])
    assert len(firsts) > 1


def test_without_a_known_table_the_child_decides():
    a, b = Host("a"), Host("b")
    policy = policy_with([a, b], [(2**63 - 1, [b])])
    # No routing key, a table not read yet, a system table, no table.
    unrouted = Bound("ks", "t", None)
    other = Bound("ks", "other", b"k")
    system = Bound("system", "local", b"k")
    simple = Bound("ks", "t", b"k")
    simple.prepared_statement = None
    for query in (unrouted, other, system, simple):
        assert list(policy.make_query_plan("ks", query)) == [a, b], query
    # The unknown table is now due to be read (on the next refresh).
    assert ("ks", "other") in policy._tables
    assert ("system", "local") not in policy._tables
