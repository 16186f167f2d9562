"""native_transport_max_concurrent_connections_per_ip and
native_transport_max_concurrent_connections (Cassandra 4.0's): a connection
over a limit is closed at once, those open go on, and a closed one frees
its place."""

import socket
import time

import pytest

from conftest import Node
from wire import WireClient


@pytest.fixture(scope="module")
def node():
    n = Node("native_transport_max_concurrent_connections_per_ip: 3\n")
    yield n
    assert n.alive(), "the node died during the tests:\n" + n.output()
    assert n.stop() == 0


def refused(port):
    """Whether the node closes a new connection without answering."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(b"\x04\x00\x00\x01\x05\x00\x00\x00\x00")  # OPTIONS
        return s.recv(1) == b""
    except ConnectionResetError:
        return True
    finally:
        s.close()


def wait_until(predicate, seconds=10):
    deadline = time.time() + seconds
    while not predicate():
        if time.time() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_connections_over_the_limit_per_address_are_closed(node):
    clients = [WireClient(node.port) for _ in range(3)]
    for c in clients:
        c.startup()
    assert refused(node.port)
    # The open ones still answer.
    for c in clients:
        assert c.options() is not None
    # A closed one frees its place.
    clients.pop().close()
    assert wait_until(lambda: not refused(node.port))
    for c in clients:
        c.close()
    assert "Exceeded maximum native connection limit per ip of 3" in \
        node.output()


def test_idle_connections_are_closed_after_the_idle_timeout():
    n = Node("native_transport_idle_timeout_in_ms: 600\n")
    try:
        idle = WireClient(n.port)
        idle.startup()
        silent = socket.create_connection(("127.0.0.1", n.port), timeout=10)
        busy = WireClient(n.port)
        busy.startup()
        start = time.time()
        # A connection that talks every 200 ms stays open past the timeout.
        while time.time() - start < 1.8:
            assert busy.options() is not None
            time.sleep(0.2)
        idle.sock.settimeout(10)
        assert idle.closed_by_server()
        try:
            assert silent.recv(1) == b""  # never sent STARTUP
        except ConnectionResetError:
            pass
        assert busy.options() is not None
        busy.close()
        assert "Closing the idle connection of 127.0.0.1" in n.output()
    finally:
        assert n.stop() == 0
