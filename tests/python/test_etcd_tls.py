"""TLS from a node (and `keywise admin`) to etcd (docs/security.md, 5.3):
etcd serves its client URL as https:// with --client-cert-auth; a node with
`etcd_endpoints: [https://127.0.0.1:P]` and etcd_client_encryption_options
joins it, creates a table and serves reads and writes; `keywise admin
status` reads it with --etcd-cacert/--etcd-cert/--etcd-key; a node
trusting another CA, or without the options, does not start and says why.
Certificates come from tests/make_test_certs.sh (the node certificate,
SAN IP:127.0.0.1, is etcd's)."""

import os
import subprocess
import time
import urllib.request

import pytest

from conftest import ROOT, Node, create_keyspace, driver_cluster, free_port

ETCD = os.environ.get("KEYWISE_ETCD_BIN", "/usr/bin/etcd")
BINARY = os.environ.get("KEYWISE_BIN", str(ROOT / "build" / "keywise"))

pytestmark = pytest.mark.skipif(
    not os.path.exists(ETCD),
    reason="etcd not installed (scripts/setup.sh installs etcd-server)")


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("etcd-tls")
    subprocess.run(["bash", str(ROOT / "tests" / "make_test_certs.sh"), str(d)],
                   check=True, capture_output=True)
    return d


@pytest.fixture(scope="module")
def etcd(certs, tmp_path_factory):
    """A one-member etcd serving https:// with client certificates from
    the test CA; its health on a plain metrics URL."""
    d = tmp_path_factory.mktemp("etcd")
    client, peer, metrics = free_port(), free_port(), free_port()
    url = "https://127.0.0.1:%d" % client
    log = open(d / "etcd.log", "w")
    proc = subprocess.Popen(
        [ETCD, "--name", "kw", "--data-dir", str(d / "data"),
         "--listen-client-urls", url, "--advertise-client-urls", url,
         "--listen-peer-urls", "http://127.0.0.1:%d" % peer,
         "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % peer,
         "--initial-cluster", "kw=http://127.0.0.1:%d" % peer,
         "--listen-metrics-urls", "http://127.0.0.1:%d" % metrics,
         "--cert-file", str(certs / "node-cert.pem"),
         "--key-file", str(certs / "node-key.pem"),
         "--trusted-ca-file", str(certs / "ca.pem"), "--client-cert-auth",
         "--heartbeat-interval", "25", "--election-timeout", "250"],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 20
        while True:
            try:
                with urllib.request.urlopen(
                        "http://127.0.0.1:%d/health" % metrics,
                        timeout=1) as r:
                    if b'"health":"true"' in r.read():
                        break
            except OSError:
                pass
            assert proc.poll() is None, (d / "etcd.log").read_text()
            assert time.time() < deadline, (d / "etcd.log").read_text()
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def etcd_config(url, certs, ca="ca.pem"):
    return ("etcd_endpoints: [%s]\n"
            "storage_port: %d\n"
            "etcd_client_encryption_options:\n"
            "  cacert: %s\n"
            "  cert: %s\n"
            "  key: %s\n" % (url, free_port(), certs / ca,
                             certs / "client-cert.pem",
                             certs / "client-key.pem"))


def startup_failure(config):
    """The output of a node that must not start (it may bind its port
    before it reaches etcd, so wait for it to exit)."""
    try:
        n = Node(config)
    except RuntimeError as e:
        return str(e)
    try:
        n.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the node started:\n" + n.output())
    output = n.output()
    assert n.stop() != 0, output
    return output


def test_node_joins_etcd_over_tls_and_serves(etcd, certs):
    n = Node(etcd_config(etcd, certs))
    try:
        cluster = driver_cluster(n)
        try:
            session = cluster.connect()
            ks = create_keyspace(session, "etcd_tls")
            session.execute("CREATE TABLE %s.kv (k int PRIMARY KEY, v text)"
                            % ks)
            for k in range(20):
                session.execute("INSERT INTO %s.kv (k, v) VALUES (%%s, %%s)"
                                % ks, (k, "v%d" % k))
            rows = sorted(session.execute("SELECT k, v FROM %s.kv" % ks))
            assert [(r.k, r.v) for r in rows] == [
                (k, "v%d" % k) for k in range(20)]
            assert session.execute("SELECT v FROM %s.kv WHERE k = 7"
                                   % ks).one().v == "v7"
        finally:
            cluster.shutdown()
        assert "etcd at " + etcd in n.output()

        # keywise admin reads the same metadata over TLS.
        admin = [BINARY, "admin", "status", "--etcd", etcd]
        files = ["--etcd-cacert", str(certs / "ca.pem"),
                 "--etcd-cert", str(certs / "client-cert.pem"),
                 "--etcd-key", str(certs / "client-key.pem")]
        ok = subprocess.run(admin + files, capture_output=True, text=True,
                            timeout=60)
        assert ok.returncode == 0, ok.stdout + ok.stderr
        assert "127.0.0.1" in ok.stdout, ok.stdout
        no_ca = subprocess.run(admin + files[2:], capture_output=True,
                               text=True, timeout=60)
        assert no_ca.returncode != 0
        assert "certificate verify failed" in no_ca.stdout + no_ca.stderr, (
            no_ca.stdout + no_ca.stderr)
        plain = subprocess.run(
            [BINARY, "admin", "status", "--etcd",
             etcd.replace("https://", "")] + files,
            capture_output=True, text=True, timeout=60)
        assert plain.returncode != 0
        assert ("--etcd-cacert, --etcd-cert and --etcd-key need an https:// "
                "--etcd endpoint") in plain.stdout + plain.stderr
    finally:
        output = n.output()
        assert n.alive(), "the node died:\n" + output
        assert n.stop() == 0, output


def test_node_trusting_another_ca_does_not_start(etcd, certs):
    output = startup_failure(etcd_config(etcd, certs, ca="other-ca.pem"))
    host = etcd.replace("https://", "")
    assert ("TLS handshake with %s: certificate verify failed (unable to "
            "get local issuer certificate)" % host) in output, output


def test_node_without_client_certificate_does_not_start(etcd, certs):
    output = startup_failure(
        "etcd_endpoints: [%s]\nstorage_port: %d\n"
        "etcd_client_encryption_options: {cacert: %s}\n"
        % (etcd, free_port(), certs / "ca.pem"))
    assert "etcd refused the client certificate" in output, output


def test_settings_are_checked_at_startup(etcd, certs, tmp_path):
    missing = startup_failure("etcd_endpoints: [%s]\n" % etcd)
    assert ("etcd_endpoints entry %s needs etcd_client_encryption_options"
            % etcd) in missing, missing
    absent = tmp_path / "absent.pem"
    unreadable = startup_failure(
        "etcd_endpoints: [%s]\nstorage_port: %d\n"
        "etcd_client_encryption_options: {cacert: %s}\n"
        % (etcd, free_port(), absent))
    assert ("etcd_client_encryption_options.cacert %s cannot be read"
            % absent) in unreadable, unreadable
    plain = startup_failure(
        "etcd_endpoints: [127.0.0.1:2379]\n"
        "etcd_client_encryption_options: {cacert: %s}\n" % (certs / "ca.pem"))
    assert ("etcd_client_encryption_options is set but no etcd_endpoints "
            "entry is https://") in plain, plain
