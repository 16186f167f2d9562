"""PasswordAuthenticator through real drivers and raw frames (docs/security.md,
1.2-1.7): the default superuser, Cassandra's Bad credentials messages (the
same whether the role exists or not), requests before login refused, every
protocol version and compression, failed logins slowed, and keywise's own
tools with -u/-p. Written to pass against Cassandra 4.0 too (except the
slowing, which is Keywise's)."""

import os
import pty
import subprocess
import time

import pytest
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import NoHostAvailable
from cassandra.protocol import AuthResponseMessage, ErrorMessage

from conftest import Node, driver_cluster
from wire import WireClient

CONFIG = ("authenticator: PasswordAuthenticator\n"
          "auth_bcrypt_gensalt_log2_rounds: 4\n"
          "auth_failed_login_delay_max_in_ms: 400\n")


@pytest.fixture(scope="module")
def node():
    n = Node(CONFIG)
    yield n
    assert n.alive(), "the node died during the tests:\n" + n.output()
    assert n.stop() == 0


def login_error(node, user, password, **kwargs):
    cluster = driver_cluster(
        node, auth_provider=PlainTextAuthProvider(user, password), **kwargs)
    try:
        cluster.connect()
    except NoHostAvailable as e:
        return str(list(e.errors.values())[0])
    finally:
        cluster.shutdown()
    return None


def test_default_superuser_logs_in_with_every_version(node):
    for version, compression in [(3, "snappy"), (4, "lz4"), (5, "lz4"), (5, False)]:
        cluster = driver_cluster(
            node, protocol_version=version, compression=compression,
            auth_provider=PlainTextAuthProvider("cassandra", "cassandra"))
        try:
            session = cluster.connect()
            rows = list(session.execute(
                "SELECT role, is_superuser, can_login, salted_hash "
                "FROM system_auth.roles"))
        finally:
            cluster.shutdown()
        assert [(r.role, r.is_superuser, r.can_login) for r in rows] == \
            [("cassandra", True, True)], (version, rows)
        # Cassandra's jBCrypt format.
        assert rows[0].salted_hash.startswith("$2a$04$")
        assert len(rows[0].salted_hash) == 60


def test_bad_credentials_do_not_tell_whether_the_role_exists(node):
    for user, password in [("cassandra", "wrong"), ("nobody", "cassandra"),
                           ("Cassandra", "cassandra")]:
        error = login_error(node, user, password)
        assert error is not None, user
        assert "code=0100 [Bad credentials]" in error, error
        assert 'message="Provided username %s and/or password are ' \
            'incorrect"' % user in error, error


def test_a_client_without_credentials_is_told_to_authenticate(node):
    cluster = driver_cluster(node)
    try:
        with pytest.raises(NoHostAvailable) as e:
            cluster.connect()
    finally:
        cluster.shutdown()
    assert "Remote end requires authentication" in str(e.value)


def raw_startup(node, version=4):
    client = WireClient(node.port, version)
    answer = client.startup()
    assert type(answer).__name__ == "AuthenticateMessage", answer
    assert answer.authenticator == \
        "org.apache.cassandra.auth.PasswordAuthenticator"
    return client


def test_raw_frames_before_and_after_login(node):
    client = raw_startup(node)
    try:
        # Nothing but AUTH_RESPONSE before logging in.
        error = client.query("SELECT * FROM system.local")
        assert isinstance(error, ErrorMessage)
        assert error.code == 0x000A
        assert error.message == \
            "Unexpected message QUERY, expecting SASL_RESPONSE"
        for token, message in [
                (b"", "Password must not be null"),
                (b"cassandra\x00cassandra", "Authentication ID must not be null"),
                (b"a\x00b\x00c\x00d", "Credential format error: username or "
                 "password is empty or contains NUL(\\0) character")]:
            error = client.request(AuthResponseMessage(token))
            assert isinstance(error, ErrorMessage), error
            assert (error.code, error.message) == (0x0100, message)
        # The connection stays in the handshake: the right credentials, with
        # an authzid in front, log in.
        ok = client.request(AuthResponseMessage(b"admin\x00cassandra\x00cassandra"))
        assert type(ok).__name__ == "AuthSuccessMessage", ok
        rows = client.query("SELECT key FROM system.local")
        assert rows.parsed_rows == [("local",)], rows
    finally:
        client.close()


def test_failed_logins_from_one_address_are_slowed(node):
    client = raw_startup(node)
    try:
        took = []
        for _ in range(8):  # past the five free ones, whatever came before
            start = time.monotonic()
            error = client.request(AuthResponseMessage(b"\x00mallory\x00guess"))
            took.append(time.monotonic() - start)
            assert error.code == 0x0100
    finally:
        client.close()
    # Past five failures, each check waits first: 250 ms, then 400 (the
    # most configured here).
    assert took[-1] >= 0.35 and took[-2] >= 0.2, took
    assert max(took) < 2, took
    # Logged, at most once per address per 10 s, with the window's count.
    assert "failures in 60 s)" in node.output()
    assert "Failed login for role" in node.output()


def test_keywise_tools_log_in_with_u_and_p(node):
    shell = subprocess.run(
        [node.binary, "shell", "127.0.0.1", str(node.port), "-u", "cassandra",
         "-p", "cassandra", "-e", "SELECT role FROM system_auth.roles"],
        capture_output=True, text=True, timeout=60)
    assert shell.returncode == 0, shell.stderr
    assert "cassandra" in shell.stdout
    refused = subprocess.run(
        [node.binary, "shell", "127.0.0.1", str(node.port), "-u", "cassandra",
         "-p", "nope", "-e", "SELECT role FROM system_auth.roles"],
        capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0
    assert "Provided username cassandra and/or password are incorrect" in \
        refused.stdout + refused.stderr
    admin = subprocess.run(
        [node.binary, "admin", "info", "--port", str(node.port), "-u",
         "cassandra", "-p", "cassandra"],
        capture_output=True, text=True, timeout=60)
    assert admin.returncode == 0, admin.stderr
    bench = subprocess.run(
        [node.binary, "bench", "--port", str(node.port), "-u", "cassandra",
         "-p", "cassandra", "--ops", "200", "--quiet"],
        capture_output=True, text=True, timeout=120)
    assert bench.returncode == 0, bench.stdout + bench.stderr
    advise = subprocess.run(
        [node.binary, "advise", "127.0.0.1", str(node.port), "-u", "cassandra",
         "-p", "cassandra"],
        capture_output=True, text=True, timeout=60)
    assert advise.returncode == 0, advise.stdout + advise.stderr


def test_u_without_p_asks_for_the_password_on_the_terminal(node):
    # As cqlsh: the prompt on a terminal, without echo.
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(node.binary, [node.binary, "shell", "127.0.0.1",
                               str(node.port), "-u", "cassandra", "-e",
                               "SELECT role FROM system_auth.roles"])
    output = b""
    try:
        deadline = time.time() + 30
        while b"Password:" not in output and time.time() < deadline:
            output += os.read(fd, 1024)
        assert b"Password:" in output, output
        os.write(fd, b"cassandra\n")
        while time.time() < deadline:
            try:
                chunk = os.read(fd, 1024)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, output
    assert b"cassandra" in output.split(b"Password:", 1)[1]
    # Not echoed: the typed password appears only as the query's result.
    assert output.count(b"cassandra") == 1, output


def superuser_session(node):
    cluster = driver_cluster(
        node, auth_provider=PlainTextAuthProvider("cassandra", "cassandra"))
    return cluster, cluster.connect()


def test_roles_are_created_listed_altered_and_dropped(node):
    from cassandra import InvalidRequest
    cluster, session = superuser_session(node)
    try:
        session.execute("CREATE ROLE mike WITH PASSWORD = 'pw' AND LOGIN = true")
        session.execute("CREATE ROLE IF NOT EXISTS mike WITH PASSWORD = 'x'")
        session.execute("CREATE ROLE readers")
        session.execute("GRANT readers TO mike")
        result = session.execute("LIST ROLES")
        assert result.column_names == \
            ["role", "super", "login", "options", "datacenters"]
        rows = {r.role: (r.super, r.login) for r in result}
        assert rows == {"cassandra": (True, True), "mike": (False, True),
                        "readers": (False, False)}, rows
        assert sorted(r.role for r in session.execute("LIST ROLES OF mike")) == \
            ["mike", "readers"]
        with pytest.raises(InvalidRequest) as e:
            session.execute("CREATE ROLE mike")
        assert "mike already exists" in str(e.value)
        with pytest.raises(InvalidRequest) as e:
            session.execute("GRANT mike TO readers")
        assert "mike is a member of readers" in str(e.value)  # a cycle
        assert [r.role for r in session.execute(
            "SELECT role FROM system_auth.role_members")] == ["readers"]
    finally:
        cluster.shutdown()

    # mike logs in, changes its own password, and the old one stops working.
    assert login_error(node, "mike", "pw") is None
    cluster = driver_cluster(node, auth_provider=PlainTextAuthProvider("mike", "pw"))
    try:
        cluster.connect().execute("ALTER ROLE mike WITH PASSWORD = 'new'")
    finally:
        cluster.shutdown()
    assert "Provided username mike and/or password are incorrect" in \
        login_error(node, "mike", "pw")
    assert login_error(node, "mike", "new") is None

    cluster, session = superuser_session(node)
    try:
        session.execute("ALTER ROLE mike WITH LOGIN = false")
        assert 'message="mike is not permitted to log in"' in \
            login_error(node, "mike", "new")
        session.execute("DROP ROLE mike")
        session.execute("DROP ROLE IF EXISTS mike")
        with pytest.raises(InvalidRequest) as e:
            session.execute("DROP ROLE cassandra")
        assert "Cannot DROP primary role for current login" in str(e.value)
        assert sorted(r.role for r in session.execute(
            "SELECT role FROM system_auth.roles")) == ["cassandra", "readers"]
    finally:
        cluster.shutdown()
    assert "Provided username mike and/or password are incorrect" in \
        login_error(node, "mike", "new")


def test_roles_survive_a_restart():
    node = Node(CONFIG)
    try:
        cluster, session = superuser_session(node)
        try:
            session.execute("CREATE ROLE kept WITH PASSWORD = 'k' AND LOGIN = true")
            session.execute("ALTER ROLE cassandra WITH PASSWORD = 'changed'")
        finally:
            cluster.shutdown()
        node.restart()
        assert login_error(node, "kept", "k") is None
        # The superuser is not created again: its changed password holds.
        assert login_error(node, "cassandra", "cassandra") is not None
        assert login_error(node, "cassandra", "changed") is None
    finally:
        node.stop()


def test_clients_cannot_write_system_auth(node):
    from cassandra import InvalidRequest
    cluster, session = superuser_session(node)
    try:
        for cql in [
                "INSERT INTO system_auth.roles (role, is_superuser, can_login) "
                "VALUES ('forged', true, true)",
                "DELETE FROM system_auth.roles WHERE role = 'cassandra'",
                "BEGIN BATCH INSERT INTO system_auth.role_members (role, member) "
                "VALUES ('a', 'b') APPLY BATCH",
                "TRUNCATE system_auth.roles"]:
            with pytest.raises(InvalidRequest) as e:
                session.execute(cql)
            assert "system_auth is maintained by the role and permission " \
                "statements" in str(e.value), cql
        assert "forged" not in [r.role for r in session.execute(
            "SELECT role FROM system_auth.roles")]
    finally:
        cluster.shutdown()


def test_traced_role_statements_keep_no_password(node):
    from cassandra.protocol import SyntaxException
    cluster, session = superuser_session(node)
    try:
        future = session.execute_async(
            "CREATE ROLE traced WITH PASSWORD = 'sekrit' AND LOGIN = true",
            trace=True)
        future.result()
        trace = future.get_query_trace(max_wait=10)
        assert "sekrit" not in str(trace.parameters), trace.parameters
        assert trace.parameters["query"] == \
            "CREATE ROLE traced WITH PASSWORD *******"
        # A password is a literal (Cassandra's grammar has no marker for it).
        with pytest.raises(SyntaxException):
            session.prepare("ALTER ROLE traced WITH PASSWORD = ?")
        session.execute("DROP ROLE traced")
    finally:
        cluster.shutdown()
