"""Tablet-aware routing for the DataStax Python driver (cassandra-driver 3.x).

Keywise places each table's partitions in tablets (token ranges) that split,
merge and move between nodes on their own. The driver's own TokenAwarePolicy
routes by the tokens nodes advertise in system.local/system.peers, which
describe only a new table's tablets: once a table has split or a tablet has
moved, many requests reach a node that holds no replica and is forwarded.

TabletAwarePolicy reads where every tablet is from system.tablets
(keyspace_name, table_name, last_token, replicas: the host ids serving
reads) and sends each request whose statement names its table and routing
key (a prepared statement bound to values) to one of that tablet's
replicas; other requests go to the child policy. It re-reads the tablets of
the tables it has seen every `refresh_interval` seconds, so a split or move
costs forwarded requests for at most that long.

    from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
    from cassandra.policies import DCAwareRoundRobinPolicy, TokenAwarePolicy
    from keywise_tablets import TabletAwarePolicy

    policy = TabletAwarePolicy(TokenAwarePolicy(DCAwareRoundRobinPolicy()))
    cluster = Cluster(["127.0.0.1"], execution_profiles={
        EXEC_PROFILE_DEFAULT: ExecutionProfile(load_balancing_policy=policy)})
    session = cluster.connect()
    policy.attach(session)      # starts reading system.tablets

This file has no dependency beyond the driver; copy it into a project.
"""

import bisect
import logging
import random
import threading

from cassandra.metadata import Murmur3Token
from cassandra.policies import HostDistance, LoadBalancingPolicy

log = logging.getLogger(__name__)

_SELECT = ("SELECT last_token, replicas FROM system.tablets "
           "WHERE keyspace_name = ? AND table_name = ?")


class _Tablets(object):
    """One table's tablets: last tokens ascending, replica host ids."""

    __slots__ = ("last_tokens", "replicas")

    def __init__(self, rows):
        self.last_tokens = [r.last_token for r in rows]
        self.replicas = [list(r.replicas or ()) for r in rows]

    def replicas_of(self, token):
        i = bisect.bisect_left(self.last_tokens, token)
        return self.replicas[i] if i < len(self.replicas) else []


def table_of(query):
    """The table a statement reads or writes, when the driver knows it: a
    bound prepared statement's first column's table, or a `table` attribute
    set on the statement."""
    prepared = getattr(query, "prepared_statement", None)
    if prepared is not None and prepared.column_metadata:
        return prepared.column_metadata[0].table_name
    return getattr(query, "table", None)


class TabletAwarePolicy(LoadBalancingPolicy):
    """Routes to a replica of the statement's tablet, then to the rest of
    the child policy's plan. `shuffle_replicas` spreads the requests of a
    tablet over its replicas (as ScyllaDB's drivers do); off, the first
    replica listed comes first."""

    def __init__(self, child_policy, refresh_interval=5.0,
                 shuffle_replicas=True):
        LoadBalancingPolicy.__init__(self)
        self._child = child_policy
        self._interval = refresh_interval
        self._shuffle = shuffle_replicas
        self._cluster = None
        self._session = None
        self._tables = {}        # (keyspace, table) -> _Tablets or None
        self._hosts = {}         # host id -> Host
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._thread = None
        self._select = None

    # --- the driver's LoadBalancingPolicy interface -----------------------

    def populate(self, cluster, hosts):
        self._cluster = cluster
        self._child.populate(cluster, hosts)
        self._index_hosts()

    def check_supported(self):
        self._child.check_supported()

    def distance(self, host):
        return self._child.distance(host)

    def make_query_plan(self, working_keyspace=None, query=None):
        replicas = self._replicas(working_keyspace, query)
        if not replicas:
            for host in self._child.make_query_plan(working_keyspace, query):
                yield host
            return
        if self._shuffle:
            replicas = list(replicas)
            random.shuffle(replicas)
        for host in replicas:
            if host.is_up and self._child.distance(host) == HostDistance.LOCAL:
                yield host
        for host in self._child.make_query_plan(working_keyspace, query):
            if host not in replicas or self._child.distance(host) != HostDistance.LOCAL:
                yield host

    def on_up(self, host):
        self._child.on_up(host)
        self._index_hosts()

    def on_down(self, host):
        self._child.on_down(host)

    def on_add(self, host):
        self._child.on_add(host)
        self._index_hosts()

    def on_remove(self, host):
        self._child.on_remove(host)
        self._index_hosts()

    # --- tablets ----------------------------------------------------------

    def attach(self, session):
        """Starts reading system.tablets through `session` (a daemon thread
        that stops with shutdown() or when the cluster shuts down)."""
        self._session = session
        self._select = session.prepare(_SELECT)
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="keywise-tablets")
        self._thread.start()

    def shutdown(self):
        self._stopped.set()
        self._wake.set()

    def refresh(self):
        """Re-reads the tablets of every table seen so far, now."""
        with self._lock:
            keys = list(self._tables)
        for keyspace, table in keys:
            try:
                rows = self._session.execute(self._select, (keyspace, table))
                tablets = _Tablets(list(rows))
            except Exception as e:  # a node down, the cluster shutting down
                log.debug("Cannot read the tablets of %s.%s: %s",
                          keyspace, table, e)
                continue
            with self._lock:
                self._tables[(keyspace, table)] = \
                    tablets if tablets.last_tokens else None

    def tablets_known(self):
        """How many tablets the policy knows, over all tables."""
        with self._lock:
            return sum(len(t.last_tokens) for t in self._tables.values() if t)

    def _run(self):
        while not self._stopped.is_set():
            cluster = self._cluster
            if cluster is not None and cluster.is_shutdown:
                return
            self.refresh()
            self._wake.wait(self._interval)
            self._wake.clear()

    def _replicas(self, working_keyspace, query):
        if query is None or query.routing_key is None:
            return None
        keyspace = query.keyspace or working_keyspace
        table = table_of(query)
        if not keyspace or not table or keyspace.startswith("system"):
            return None
        key = (keyspace, table)
        tablets = self._tables.get(key)
        if tablets is None:
            if key not in self._tables:
                with self._lock:
                    self._tables.setdefault(key, None)
                self._wake.set()  # read this table's tablets now
            return None
        token = Murmur3Token.from_key(query.routing_key).value
        hosts = []
        for host_id in tablets.replicas_of(token):
            host = self._hosts.get(host_id)
            if host is None:
                self._index_hosts()
                host = self._hosts.get(host_id)
            if host is not None:
                hosts.append(host)
        return hosts

    def _index_hosts(self):
        if self._cluster is not None:
            self._hosts = {h.host_id: h for h in
                           self._cluster.metadata.all_hosts() if h.host_id}
