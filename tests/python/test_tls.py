"""TLS on the CQL port (docs/security.md, 5.1 and 5.6) through the Python
driver's ssl_context and `keywise shell --ssl`: a TLS-only port refuses
plain clients, an optional one serves both, require_client_auth wants a
certificate from the truststore's CA, a client refuses a server from
another CA, every protocol version with LZ4 works over TLS, and bad
settings stop the node at startup with a clear message. Certificates come
from tests/make_test_certs.sh (the openssl command)."""

import os
import pathlib
import socket
import ssl
import subprocess

import pytest
from cassandra.cluster import NoHostAvailable

from conftest import ROOT, Node, driver_cluster


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["bash", str(ROOT / "tests" / "make_test_certs.sh"), str(d)],
                   check=True, capture_output=True)
    return d


def tls_config(certs, **options):
    settings = {"enabled": "true", "keystore": certs / "node.pem",
                "truststore": certs / "ca.pem"}
    settings.update(options)
    return "client_encryption_options:\n" + "".join(
        "  %s: %s\n" % (k, v) for k, v in settings.items())


def started(config):
    n = Node(config)
    return n


def stop(n):
    assert n.alive(), "the node died during the tests:\n" + n.output()
    assert n.stop() == 0


@pytest.fixture(scope="module")
def tls_node(certs):
    n = started(tls_config(certs))
    yield n
    stop(n)


@pytest.fixture(scope="module")
def optional_node(certs):
    n = started(tls_config(certs, optional="true"))
    yield n
    stop(n)


@pytest.fixture(scope="module")
def client_auth_node(certs):
    n = started(tls_config(certs, require_client_auth="true"))
    yield n
    stop(n)


def context(certs, ca="ca.pem", client_cert=False):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(str(certs / ca))
    if client_cert:
        ctx.load_cert_chain(str(certs / "client-cert.pem"),
                            str(certs / "client-key.pem"))
    return ctx


def release_version(node, **kwargs):
    cluster = driver_cluster(node, **kwargs)
    try:
        return cluster.connect().execute(
            "SELECT release_version FROM system.local").one()[0]
    finally:
        cluster.shutdown()


def connect_error(node, **kwargs):
    with pytest.raises(NoHostAvailable) as e:
        release_version(node, **kwargs)
    return str(e.value)


@pytest.mark.parametrize("version", [3, 4, 5])
def test_every_protocol_version_with_lz4_over_tls(tls_node, certs, version):
    cluster = driver_cluster(tls_node, ssl_context=context(certs),
                             protocol_version=version, compression="lz4")
    try:
        s = cluster.connect()
        ks = "tls_v%d" % version
        s.execute("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = "
                  "{'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
        s.execute("CREATE TABLE IF NOT EXISTS %s.t (k int PRIMARY KEY, v text)"
                  % ks)
        # Large enough that frames span many TLS records.
        big = "x" * 300000
        insert = s.prepare("INSERT INTO %s.t (k, v) VALUES (?, ?)" % ks)
        for k in range(20):
            s.execute(insert, (k, big + str(k)))
        rows = sorted(s.execute("SELECT k, v FROM %s.t" % ks))
        assert [r.k for r in rows] == list(range(20))
        assert rows[7].v == big + "7"
        assert cluster.protocol_version == version
    finally:
        cluster.shutdown()


def test_a_plain_client_is_refused_when_tls_is_required(tls_node):
    connect_error(tls_node)
    assert tls_node.alive()


def test_the_client_refuses_a_server_from_another_ca(tls_node, certs):
    error = connect_error(tls_node, ssl_context=context(certs, "other-ca.pem"))
    assert "CERTIFICATE_VERIFY_FAILED" in error, error


def test_a_closing_connection_sends_close_notify(tls_node, certs):
    """A frame of protocol v2 gets its error and the connection closes: the
    error arrives whole, then TLS close_notify (without it Python raises
    SSLEOFError instead of reading the end)."""
    ctx = context(certs)
    with socket.create_connection(("127.0.0.1", tls_node.port)) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1",
                             suppress_ragged_eofs=False) as s:
            s.settimeout(10)
            s.sendall(bytes([0x02, 0, 0, 0x05, 0, 0, 0, 0]))  # OPTIONS
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
    assert b"Invalid or unsupported protocol version (2)" in data, data


def test_a_stalled_handshake_is_closed(tls_node, optional_node):
    """A client that connects and sends nothing, or half a ClientHello,
    is closed after the 10 s handshake limit (both at once: one wait)."""
    import time
    silent = socket.create_connection(("127.0.0.1", tls_node.port))
    half = socket.create_connection(("127.0.0.1", tls_node.port))
    half.sendall(b"\x16\x03\x01\x02\x00\x01")  # a record header, cut
    quiet = socket.create_connection(("127.0.0.1", optional_node.port))
    start = time.time()
    try:
        for s in (silent, half, quiet):
            s.settimeout(20)
            try:
                data = s.recv(100)
            except ConnectionResetError:
                data = b""
            assert data == b"", "expected the node to close, got %r" % data
        assert 8 < time.time() - start < 18, time.time() - start
    finally:
        for s in (silent, half, quiet):
            s.close()


def test_optional_serves_plain_and_tls(optional_node, certs):
    assert release_version(optional_node, ssl_context=context(certs))
    assert release_version(optional_node)
    assert release_version(optional_node, protocol_version=4,
                           compression="lz4")


def test_require_client_auth(client_auth_node, certs):
    connect_error(client_auth_node, ssl_context=context(certs))
    assert release_version(client_auth_node,
                           ssl_context=context(certs, client_cert=True))


def shell(node, *args, env=None):
    return subprocess.run(
        [node.binary, "shell", "127.0.0.1", str(node.port), *args,
         "-e", "SELECT release_version FROM system.local"],
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, **(env or {})))


def test_keywise_shell_ssl(tls_node, client_auth_node, certs):
    ok = shell(tls_node, "--ssl", "--ssl-ca", str(certs / "ca.pem"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "release_version" in ok.stdout
    # cqlsh's variables.
    ok = shell(tls_node, "--ssl", env={"SSL_CERTFILE": str(certs / "ca.pem")})
    assert ok.returncode == 0, ok.stdout + ok.stderr
    ok = shell(tls_node, "--ssl", env={"SSL_VALIDATE": "false"})
    assert ok.returncode == 0, ok.stdout + ok.stderr
    ok = shell(tls_node, "--ssl", "--ssl-no-verify")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    refused = shell(tls_node, "--ssl", "--ssl-ca", str(certs / "other-ca.pem"))
    assert refused.returncode != 0
    assert "certificate verify failed" in refused.stdout + refused.stderr
    assert shell(tls_node).returncode != 0  # plain
    ok = shell(client_auth_node, "--ssl", "--ssl-ca", str(certs / "ca.pem"),
               "--ssl-cert", str(certs / "client-cert.pem"),
               "--ssl-key", str(certs / "client-key.pem"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert shell(client_auth_node, "--ssl", "--ssl-ca",
                 str(certs / "ca.pem")).returncode != 0


def test_keywise_bench_and_advise_ssl(tls_node, certs):
    bench = subprocess.run(
        [tls_node.binary, "bench", "--port", str(tls_node.port), "--ssl",
         "--ssl-ca", str(certs / "ca.pem"), "--ops", "200", "--quiet"],
        capture_output=True, text=True, timeout=120)
    assert bench.returncode == 0, bench.stdout + bench.stderr
    advise = subprocess.run(
        [tls_node.binary, "advise", "127.0.0.1", str(tls_node.port), "--ssl",
         "--ssl-ca", str(certs / "ca.pem")],
        capture_output=True, text=True, timeout=60)
    assert advise.returncode == 0, advise.stdout + advise.stderr


def startup_error(config):
    with pytest.raises(RuntimeError) as e:
        Node(config).stop()
    return str(e.value)


def test_bad_settings_stop_the_node(certs, tmp_path):
    (tmp_path / "mixed.pem").write_text(
        (certs / "client-key.pem").read_text() +
        (certs / "node-cert.pem").read_text())
    cases = [
        (tls_config(certs, keystore=tmp_path / "absent.pem"),
         "client_encryption_options.keystore %s cannot be read"
         % (tmp_path / "absent.pem")),
        (tls_config(certs, keystore=tmp_path / "mixed.pem"),
         "the private key does not match the certificate"),
        (tls_config(certs, store_type="JKS"),
         "store_type JKS is not supported: Keywise reads PEM files only"),
        (tls_config(certs, cipher_suites="[TLS_NO_SUCH_SUITE]"),
         "No ciphers left after filtering supported cipher suite"),
        (tls_config(certs, protocol="SSLv3"),
         "protocol 'SSLv3' is not supported"),
        (tls_config(certs, require_client_auth="true", truststore='""'),
         "truststore must be set when require_client_auth is true"),
        (tls_config(certs, unknown_key="1"),
         "client_encryption_options.unknown_key"),
    ]
    for config, message in cases:
        error = startup_error(config)
        assert message in error, error


def test_unknown_cipher_suites_are_dropped_with_a_warning(certs):
    n = started(tls_config(
        certs, cipher_suites="[TLS_NO_SUCH_SUITE, TLS_AES_128_GCM_SHA256, "
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]"))
    try:
        assert release_version(n, ssl_context=context(certs))
        log = n.output()
        assert ("Dropping unsupported cipher_suite TLS_NO_SUCH_SUITE from "
                "client_encryption_options configuration") in log
        assert "TLS_AES_256_GCM_SHA384" not in log
    finally:
        stop(n)


def test_certificate_files_are_not_needed_when_disabled(tmp_path):
    n = started("client_encryption_options:\n  enabled: false\n"
                "  keystore: %s\n" % pathlib.Path(tmp_path / "absent.pem"))
    try:
        assert release_version(n)
    finally:
        stop(n)


def served_certificate(node, certs):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(str(certs / "ca.pem"))
    with socket.create_connection(("127.0.0.1", node.port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as conn:
            return conn.getpeercert(binary_form=True)


def test_sighup_reloads_a_renewed_certificate(certs, tmp_path):
    """A single node has no `keywise admin reloadssl` (no messaging):
    `kill -HUP` checks its certificate files now (docs/security.md 5.4)."""
    import shutil
    import signal
    import time
    keystore = tmp_path / "node.pem"
    shutil.copy(certs / "node.pem", keystore)
    n = started(tls_config(certs, keystore=keystore))
    try:
        before = served_certificate(n, certs)
        key, csr, cert, ext = (tmp_path / "k.pem", tmp_path / "r.csr",
                               tmp_path / "c.pem", tmp_path / "ext.cnf")
        ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        for args in (
                ["genpkey", "-algorithm", "EC", "-pkeyopt",
                 "ec_paramgen_curve:P-256", "-out", str(key)],
                ["req", "-new", "-key", str(key), "-subj", "/CN=renewed",
                 "-out", str(csr)],
                ["x509", "-req", "-in", str(csr), "-CA", str(certs / "ca.pem"),
                 "-CAkey", str(certs / "ca-key.pem"), "-CAcreateserial",
                 "-days", "2", "-sha256", "-extfile", str(ext), "-out",
                 str(cert)]):
            subprocess.run(["openssl", *args], check=True, capture_output=True)
        keystore.write_text(key.read_text() + cert.read_text())
        renewed = ssl.PEM_cert_to_DER_cert(cert.read_text())
        assert served_certificate(n, certs) == before  # not checked yet
        n.proc.send_signal(signal.SIGHUP)
        deadline = time.time() + 10
        while served_certificate(n, certs) != renewed:
            assert time.time() < deadline, n.output()
            time.sleep(0.1)
        assert "Reloaded the certificates of client_encryption_options" in \
            n.output()
    finally:
        stop(n)
