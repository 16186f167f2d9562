"""A 3-node local cluster made with `keywise cluster start --ssl`
(docs/security.md 5.2, 5.3, 5.5): TLS on the CQL port, between nodes and
to etcd, with certificates of the cluster's own CA in DIR/tls/. The driver
writes and reads at QUORUM over TLS, a plain driver is refused, the
messaging port refuses a TLS client without the cluster's certificate,
a node stopped and started again serves and replicates, and a node added
later gets a certificate from the saved CA.

Also: admin flush and reloadssl over TLS with the client certificate, a
renewed certificate served after reloadssl, a half-written one not loaded,
and the TLS metrics.

Needs /usr/bin/etcd."""

import socket
import ssl
import subprocess
import time
import urllib.request

import pytest
from cassandra import ConsistencyLevel
from cassandra.cluster import NoHostAvailable
from cassandra.query import SimpleStatement

from local_cluster import (BINARY, SKIP_WITHOUT_ETCD, LocalCluster,
                           free_port_on, wait_for)

pytestmark = SKIP_WITHOUT_ETCD


@pytest.fixture(scope="module")
def cluster():
    metrics_port = free_port_on(["127.0.0.%d" % i for i in (1, 2, 3, 4)])
    c = LocalCluster(nodes=3, spare=1, ssl=True,
                     conf=("metrics_port=%d" % metrics_port,))
    c.metrics_port = metrics_port
    yield c
    c.close()


@pytest.fixture(scope="module")
def session(cluster):
    driver = cluster.driver()
    s = driver.connect()
    s.execute("CREATE KEYSPACE tls WITH replication = "
              "{'class': 'SimpleStrategy', 'replication_factor': 3}")
    s.execute("CREATE TABLE tls.t (k int PRIMARY KEY, v text)")
    yield s
    driver.shutdown()


def write(session, keys, consistency=ConsistencyLevel.QUORUM):
    insert = SimpleStatement("INSERT INTO tls.t (k, v) VALUES (%s, %s)",
                             consistency_level=consistency)
    for k in keys:
        session.execute(insert, (k, "v%d" % k))


def read(session, keys, consistency=ConsistencyLevel.QUORUM):
    select = SimpleStatement("SELECT v FROM tls.t WHERE k = %s",
                             consistency_level=consistency)
    return {k: session.execute(select, (k,)).one().v for k in keys}


def test_start_says_where_the_certificates_are(cluster):
    out = cluster.start_output
    assert str(cluster.tls_dir / "ca.pem") in out, out
    assert str(cluster.tls_dir / "client-cert.pem") in out, out
    assert "keywise shell --ssl --ssl-ca %s" % (cluster.tls_dir / "ca.pem") \
        in out, out
    for name in ("ca.pem", "ca-key.pem", "node1.pem", "node3.pem",
                 "etcd-cert.pem", "etcd-key.pem", "client-cert.pem",
                 "client-key.pem"):
        assert (cluster.tls_dir / name).exists(), name
    assert (cluster.tls_dir / "ca-key.pem").stat().st_mode & 0o777 == 0o600


def test_quorum_writes_and_reads_over_tls(session):
    keys = range(100)
    write(session, keys)
    assert read(session, keys) == {k: "v%d" % k for k in keys}


def test_a_plain_driver_is_refused(cluster):
    driver = cluster.driver(plain=True)
    try:
        with pytest.raises(NoHostAvailable):
            driver.connect()
    finally:
        driver.shutdown()


def test_the_shell_connects_as_printed(cluster, session):
    out = subprocess.run(
        [BINARY, "shell", "--ssl", "--ssl-ca", str(cluster.tls_dir / "ca.pem"),
         "127.0.0.2", str(cluster.port), "-e",
         "SELECT release_version FROM system.local"],
        capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "release_version" in out.stdout


def messaging_exchange(cluster, ctx, address="127.0.0.2"):
    """Connects to a node's messaging port (TLS with `ctx`, plain when
    None), sends bytes and reads: "open" if the node kept the connection
    without answering for a second (it waits for a whole hello), else how
    it ended ("closed", or the TLS error: a handshake without a
    certificate fails on the server's side, which the client of TLS 1.3
    learns on its first read)."""
    raw = socket.create_connection((address, cluster.storage_port),
                                   timeout=10)
    try:
        conn = raw
        if ctx is not None:
            conn = ctx.wrap_socket(raw, server_hostname=address)
        conn.settimeout(1)
        conn.sendall(b"\0" * 8)
        try:
            data = conn.recv(100)
        except socket.timeout:
            return "open"
        return "closed" if not data else "answered %r" % data
    except (ssl.SSLError, ConnectionError) as e:
        return "refused: %s" % e
    finally:
        raw.close()


def test_the_messaging_port_wants_the_cluster_certificate(cluster, session):
    # The cluster's client certificate: the TLS connection stays open,
    # waiting for the rest of a hello.
    assert messaging_exchange(cluster, cluster.ssl_context(client_cert=True)) \
        == "open"
    # No certificate: the handshake fails on the node's side.
    outcome = messaging_exchange(cluster, cluster.ssl_context())
    assert outcome == "closed" or outcome.startswith("refused"), outcome
    # Plain bytes are no TLS handshake.
    outcome = messaging_exchange(cluster, None)
    assert outcome == "closed" or outcome.startswith("refused"), outcome
    # The cluster still replicates (its own connections have certificates).
    write(session, range(200, 210), ConsistencyLevel.ALL)


def test_a_stopped_node_comes_back(cluster, session):
    cluster.run("stop", "3")
    write(session, range(300, 350))
    assert read(session, range(300, 350)) == \
        {k: "v%d" % k for k in range(300, 350)}
    cluster.run("start", "3")

    def all_replicas():
        try:
            write(session, [399], ConsistencyLevel.ALL)
            return True
        except Exception:
            return False
    wait_for(all_replicas, 60, "writes at ALL after node 3 came back")
    # Node 3 coordinates over TLS and reaches the others over TLS.
    driver = cluster.driver(whitelist=["127.0.0.3"])
    try:
        s3 = driver.connect()
        assert read(s3, range(300, 350), ConsistencyLevel.ALL) == \
            {k: "v%d" % k for k in range(300, 350)}
    finally:
        driver.shutdown()


def test_an_added_node_gets_a_certificate_from_the_cluster_ca(cluster,
                                                              session):
    ca = (cluster.tls_dir / "ca.pem").read_bytes()
    cluster.run("add")
    assert (cluster.tls_dir / "node4.pem").exists()
    assert (cluster.tls_dir / "ca.pem").read_bytes() == ca
    # The driver checks node 4's certificate against the same CA, and node
    # 4 reaches the replicas over TLS.
    driver = cluster.driver(whitelist=["127.0.0.4"])
    try:
        s4 = driver.connect()
        assert read(s4, range(100)) == {k: "v%d" % k for k in range(100)}
    finally:
        driver.shutdown()


def test_admin_commands_reach_nodes_over_tls(cluster, session):
    # flush goes over messaging with the client certificate (--ssl-cert).
    out = cluster.admin("flush")
    assert out.count("ok") == cluster.nodes, out
    out = cluster.admin("reloadssl", "127.0.0.2")
    assert "client_encryption_options: unchanged" in out, out
    assert "server_encryption_options: unchanged" in out, out
    assert "etcd_client_encryption_options: unchanged" in out, out


def peer_certificate(cluster, address, port):
    """The DER certificate a node presents on `port`."""
    ctx = cluster.ssl_context(client_cert=True)
    with socket.create_connection((address, port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname=address) as conn:
            return conn.getpeercert(binary_form=True)


def renew_node_certificate(cluster, i):
    """Issues node `i` a new key and certificate from the cluster's CA with
    the openssl command, and writes them over nodeI.pem and its etcd client
    files (nodeI-cert.pem, nodeI-key.pem); returns the new certificate,
    DER."""
    tls = cluster.tls_dir
    work = tls / "renew"
    work.mkdir(exist_ok=True)
    key, csr, cert, ext = (work / "key.pem", work / "req.csr",
                           work / "cert.pem", work / "ext.cnf")
    ext.write_text("basicConstraints=CA:FALSE\n"
                   "extendedKeyUsage=serverAuth,clientAuth\n"
                   "subjectAltName=IP:127.0.0.%d,DNS:localhost\n" % i)
    for args in (
            ["genpkey", "-algorithm", "EC", "-pkeyopt",
             "ec_paramgen_curve:P-256", "-out", str(key)],
            ["req", "-new", "-key", str(key), "-subj", "/CN=node%d" % i,
             "-out", str(csr)],
            ["x509", "-req", "-in", str(csr), "-CA", str(tls / "ca.pem"),
             "-CAkey", str(tls / "ca-key.pem"), "-CAcreateserial", "-days",
             "2", "-sha256", "-extfile", str(ext), "-out", str(cert)]):
        subprocess.run(["openssl", *args], check=True, capture_output=True)
    (tls / ("node%d.pem" % i)).write_text(key.read_text() + cert.read_text())
    # The etcd client's certificate and key (etcd_client_encryption_options).
    (tls / ("node%d-cert.pem" % i)).write_text(cert.read_text())
    (tls / ("node%d-key.pem" % i)).write_text(key.read_text())
    return ssl.PEM_cert_to_DER_cert(cert.read_text())


def test_reloadssl_serves_a_renewed_certificate(cluster, session):
    before = peer_certificate(cluster, "127.0.0.1", cluster.port)
    renewed = renew_node_certificate(cluster, 1)
    # Not before the check: the node still presents the old one.
    assert peer_certificate(cluster, "127.0.0.1", cluster.port) == before
    out = cluster.admin("reloadssl", "127.0.0.1")
    assert "client_encryption_options: reloaded" in out, out
    assert "server_encryption_options: reloaded" in out, out
    assert "server_encryption_options (outgoing): reloaded" in out, out
    assert "etcd_client_encryption_options: reloaded" in out, out
    assert peer_certificate(cluster, "127.0.0.1", cluster.port) == renewed
    assert peer_certificate(cluster, "127.0.0.1", cluster.storage_port) \
        == renewed
    # The cluster goes on with it: new connections of the other nodes to
    # node 1 check the renewed certificate against the same CA.
    write(session, range(500, 520), ConsistencyLevel.ALL)


def test_a_broken_certificate_is_not_loaded(cluster, session):
    node1 = cluster.tls_dir / "node1.pem"
    good = node1.read_text()
    current = peer_certificate(cluster, "127.0.0.1", cluster.port)
    try:
        node1.write_text(good[:len(good) // 2])  # half written
        with pytest.raises(RuntimeError) as failed:
            cluster.admin("reloadssl", "127.0.0.1")
        assert "not reloaded" in str(failed.value), failed.value
        # The old context still serves.
        assert peer_certificate(cluster, "127.0.0.1", cluster.port) == current
        assert cluster.count_in_logs(
            "Failed to hot reload the SSL Certificates!") >= 1
    finally:
        node1.write_text(good)
    out = cluster.admin("reloadssl", "127.0.0.1")
    assert "client_encryption_options: reloaded" in out, out
    write(session, range(520, 530), ConsistencyLevel.ALL)


def metric(cluster, address, name, labels=""):
    """The value of one sample of a node's /metrics (plain HTTP: TLS covers
    the CQL, messaging and etcd ports), or None."""
    text = urllib.request.urlopen(
        "http://%s:%d/metrics" % (address, cluster.metrics_port),
        timeout=10).read().decode()
    for line in text.splitlines():
        if line.startswith(name + labels + " "):
            return float(line.split()[-1])
    return None


def test_metrics_show_expiry_and_failed_reloads(cluster, session):
    now = time.time()
    for context in ("client_encryption_options", "server_encryption_options",
                    "server_encryption_options (outgoing)",
                    "etcd_client_encryption_options"):
        expiry = metric(cluster, "127.0.0.1",
                        "keywise_tls_certificate_expiry_timestamp_seconds",
                        '{context="%s"}' % context)
        assert expiry is not None, context
        # The cluster's certificates: ten years; node 1's renewed one: two
        # days (renew_node_certificate).
        assert now < expiry < now + 11 * 365 * 86400, (context, expiry)
    assert metric(cluster, "127.0.0.1",
                  "keywise_tls_reload_failures_total") >= 1
    assert metric(cluster, "127.0.0.2",
                  "keywise_tls_reload_failures_total") == 0
