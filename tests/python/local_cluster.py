"""A local Keywise cluster for black-box tests: `keywise cluster` starts an
etcd on 127.0.0.1 and nodes on 127.0.0.1..N (loopback only) in a temporary
directory; the DataStax Python driver connects to it.

Needs /usr/bin/etcd (scripts/setup.sh installs etcd-server).
"""

import contextlib
import os
import pathlib
import re
import socket
import shutil
import ssl as ssl_lib
import subprocess
import tempfile
import threading
import time

import pytest
from cassandra import ConsistencyLevel
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.protocol import StartupMessage
from cassandra.policies import (DCAwareRoundRobinPolicy, TokenAwarePolicy,
                                WhiteListRoundRobinPolicy)

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("KEYWISE_BIN", str(ROOT / "build" / "keywise"))
ETCD = os.environ.get("KEYWISE_ETCD_BIN", "/usr/bin/etcd")

SKIP_WITHOUT_ETCD = pytest.mark.skipif(
    not os.access(ETCD, os.X_OK),
    reason="etcd not installed (scripts/setup.sh installs etcd-server)")


def port_free_on_all(port, addresses):
    for address in addresses:
        with socket.socket() as s:
            try:
                s.bind((address, port))
            except OSError:
                return False
    return True


def free_port_on(addresses, taken=()):
    """A port free (with the next one, which etcd's peer URL takes) on
    every address, and apart from the ports in `taken` and their next ones:
    a port released by one call can come back from the next."""
    busy = set(taken) | {t + 1 for t in taken}
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port < 65000 and port not in busy and port + 1 not in busy and \
                port_free_on_all(port, addresses) and \
                port_free_on_all(port + 1, addresses):
            return port
    raise RuntimeError("no free port")


# Settings for a cluster whose tables split at 64 KiB into tablets the
# balancer spreads within seconds (2 tablets to start, no load splits).
SMALL_SPLITS = ("tablet_load_report_interval_in_ms=300",
                "tablet_balancer_interval_in_ms=100", "initial_tablets=2",
                "tablet_split_size_in_kb=64",
                "tablet_split_requests_per_second=0")


class LocalCluster:
    def __init__(self, nodes=3, spare=0, conf=(), ssl=False):
        """`spare` more addresses get free ports too (nodes added later);
        `conf`: "key=value" settings for every node's keywise.yaml; `ssl`:
        `keywise cluster start --ssl` (TLS on every port with the
        cluster's own CA, in DIR/tls/), the driver then trusts that CA."""
        self.tmp = tempfile.TemporaryDirectory(prefix="keywise-cluster-")
        self.dir = self.tmp.name
        self.tls_dir = pathlib.Path(self.dir) / "tls"
        self.nodes = nodes
        self.ssl = ssl
        addresses = ["127.0.0.%d" % i for i in range(1, nodes + spare + 1)]
        self.port = free_port_on(addresses)
        self.storage_port = free_port_on(addresses, taken=[self.port])
        self.etcd_port = free_port_on(["127.0.0.1"],
                                      taken=[self.port, self.storage_port])
        try:
            self.start_output = self.run(
                "start", "--nodes", str(nodes), "--port", str(self.port),
                "--storage-port", str(self.storage_port),
                "--etcd-port", str(self.etcd_port),
                *(["--ssl"] if ssl else []),
                *[arg for setting in conf for arg in ("--conf", setting)])
        except BaseException:
            # The nodes and etcd that did start must not outlive the test.
            try:
                self.close()
            except Exception:
                pass
            raise

    def run(self, *args, timeout=120):
        out = subprocess.run([BINARY, "cluster", *args, "--dir", self.dir],
                             capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            raise RuntimeError("keywise cluster %s failed:\n%s%s\n%s" %
                               (" ".join(args), out.stdout, out.stderr,
                                self.logs()))
        if args and args[0] in ("add", "replace"):
            self.nodes += 1
        return out.stdout

    def admin(self, *args):
        """keywise admin ACTION ... against this cluster's etcd (with ssl,
        over TLS with the cluster's client certificate)."""
        etcd = ["--etcd", "127.0.0.1:%d" % self.etcd_port]
        if self.ssl:
            etcd = ["--etcd", "https://127.0.0.1:%d" % self.etcd_port,
                    "--etcd-cacert", str(self.tls_dir / "ca.pem"),
                    "--etcd-cert", str(self.tls_dir / "client-cert.pem"),
                    "--etcd-key", str(self.tls_dir / "client-key.pem"),
                    # Messaging and CQL: the same client certificate.
                    "--ssl", "--ssl-ca", str(self.tls_dir / "ca.pem"),
                    "--ssl-cert", str(self.tls_dir / "client-cert.pem"),
                    "--ssl-key", str(self.tls_dir / "client-key.pem")]
        out = subprocess.run(
            [BINARY, "admin", *args, *etcd, "--cluster", "keywise"],
            capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise RuntimeError("keywise admin %s failed:\n%s%s" %
                               (" ".join(args), out.stdout, out.stderr))
        return out.stdout

    def logs(self):
        """The end of every node's log, a node being added or replacing
        another included (the one a failed command was about)."""
        text = ""
        i = 1
        while (pathlib.Path(self.dir) / ("node%d" % i)).exists():
            log = pathlib.Path(self.dir) / ("node%d" % i) / "keywise.log"
            if log.exists():
                text += "---- node%d\n%s" % (i, log.read_text()[-3000:])
            i += 1
        return text

    def count_in_logs(self, text):
        """How many lines of all nodes' logs contain `text`."""
        count = 0
        for i in range(1, self.nodes + 1):
            log = pathlib.Path(self.dir) / ("node%d" % i) / "keywise.log"
            if log.exists():
                count += sum(text in line
                             for line in log.read_text().splitlines())
        return count

    def ssl_context(self, client_cert=False):
        """A context trusting the cluster's CA (a node's certificate names
        its address, which the driver checks), presenting the cluster's
        client certificate when `client_cert`."""
        ctx = ssl_lib.SSLContext(ssl_lib.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(str(self.tls_dir / "ca.pem"))
        if client_cert:
            ctx.load_cert_chain(str(self.tls_dir / "client-cert.pem"),
                                str(self.tls_dir / "client-key.pem"))
        return ctx

    def driver(self, whitelist=None, consistency=ConsistencyLevel.QUORUM,
               auth_provider=None, plain=False):
        """With ssl the driver speaks TLS unless `plain`."""
        policy = (WhiteListRoundRobinPolicy(whitelist) if whitelist else
                  TokenAwarePolicy(DCAwareRoundRobinPolicy()))
        profile = ExecutionProfile(load_balancing_policy=policy,
                                   consistency_level=consistency,
                                   request_timeout=10)
        tls = {"ssl_context": self.ssl_context()} \
            if self.ssl and not plain else {}
        return Cluster(whitelist or ["127.0.0.1"], port=self.port,
                       protocol_version=4, auth_provider=auth_provider,
                       execution_profiles={EXEC_PROFILE_DEFAULT: profile},
                       **tls)

    def wait_view_updates_applied(self, seconds=60):
        """Waits until every node's system_views.view_backlog shows no view
        update in flight and no hint pending: base writes are acknowledged
        before their view updates reach other nodes. The table is
        rewritten every second, so a row read right after the writes may
        be older than them: it is read after a second and a half."""
        time.sleep(1.5)
        for i in range(1, self.nodes + 1):
            address = "127.0.0.%d" % i
            driver = self.driver(whitelist=[address])
            try:
                session = driver.connect()

                def settled():
                    row = session.execute(
                        "SELECT updates_in_flight, hints_pending FROM "
                        "system_views.view_backlog").one()
                    return row is not None and tuple(row) == (0, 0)
                wait_for(settled, seconds,
                         "the view updates of %s to be applied" % address)
            finally:
                driver.shutdown()

    def close(self):
        try:
            self.run("stop")
        finally:
            self.keep_logs()
            self.tmp.cleanup()

    def keep_logs(self):
        """With KEYWISE_TEST_LOGS=DIR, every node's log is copied to
        DIR/<cluster dir name>/nodeN.log before the cluster's files go."""
        target = os.environ.get("KEYWISE_TEST_LOGS")
        if not target:
            return
        dest = pathlib.Path(target) / pathlib.Path(self.dir).name
        dest.mkdir(parents=True, exist_ok=True)
        for i in range(1, self.nodes + 1):
            log = pathlib.Path(self.dir) / ("node%d" % i) / "keywise.log"
            if log.exists():
                shutil.copy(log, dest / ("node%d.log" % i))



@contextlib.contextmanager
def asking_for_routes():
    """Connections opened inside name TABLETS_ROUTING_V1 in STARTUP, as
    ScyllaDB's tablet-aware drivers do: a node holding no replica of a
    request's partition then answers with the tablet's route in the
    RESULT's custom payload (the DataStax driver does not ask for it)."""
    original = StartupMessage.__init__

    def init(self, cqlversion, options):
        original(self, cqlversion, dict(options, TABLETS_ROUTING_V1=""))
    StartupMessage.__init__ = init
    try:
        yield
    finally:
        StartupMessage.__init__ = original


def kv_table(session, keyspace, rf, rows=0):
    """Creates `keyspace` (SimpleStrategy, factor `rf`) with a table
    t (k int PRIMARY KEY, v text), writes rows k = 0..rows-1 with v "v<k>",
    and returns the prepared INSERT."""
    session.execute(
        "CREATE KEYSPACE %s WITH replication = "
        "{'class': 'SimpleStrategy', 'replication_factor': %d}" %
        (keyspace, rf))
    session.execute("CREATE TABLE %s.t (k int PRIMARY KEY, v text)" %
                    keyspace)
    insert = session.prepare("INSERT INTO %s.t (k, v) VALUES (?, ?)" %
                             keyspace)
    for k in range(rows):
        session.execute(insert, (k, "v%d" % k))
    return insert


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError("timed out waiting for " + what)


def tablet_rows(listing, table):
    """[(first token, last token, size, req/s, replicas)] of `table` in
    `keywise admin tablets` (replicas as listed, with any move in
    progress)."""
    section = listing.split(table + " (", 1)[1].split("\n\n", 1)[0]
    return [(int(m.group(1)), int(m.group(2)), m.group(3), float(m.group(4)),
             m.group(5))
            for m in re.finditer(
                r"^\s+\d+\s+(-?\d+)\s+(-?\d+)\s+(\?|[\d.]+ [KMGT]?i?B)\s+"
                r"([\d.]+)\s+(?:-|\d+%)\s+(.*)$", section, re.M)]


def tablets_held(status):
    """{address: tablet replicas held} from `keywise cluster status`."""
    return {m.group(2): int(m.group(3)) for m in re.finditer(
        r"^([UD][NLJX])\s+(127\.0\.0\.\d+)\s+(?:\?|[\d.]+ [KMGT]?i?B)"
        r"\s+(?:\?|\d+)\s+(\d+)\s", status, re.M)}


class Writer:
    """QUORUM writes of fresh keys on a thread, recording what the driver
    acknowledged; a failed write is not acknowledged (it may exist)."""

    def __init__(self, session, insert):
        self.session, self.insert = session, insert
        self.acknowledged, self.failed = {}, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        k = 100000
        while not self.stop.is_set():
            futures = []
            for _ in range(16):
                futures.append((k, self.session.execute_async(
                    self.insert, (k, "w%d" % k))))
                k += 1
            for key, f in futures:
                try:
                    f.result()
                    self.acknowledged[key] = "w%d" % key
                except Exception:
                    self.failed += 1

    def finish(self):
        self.stop.set()
        self.thread.join()
