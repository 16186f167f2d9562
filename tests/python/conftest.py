"""Fixtures: a Keywise node on a free port with a fresh data directory.

The binary is $KEYWISE_BIN, else build/keywise under the repository root.
Run with Debian's interpreter, which has the driver and codecs installed:
    /usr/bin/python3 -m pytest tests/python
"""

import os
import pathlib
import signal
import socket
import subprocess
import tempfile
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    def __init__(self, extra_config="", data_dir=None):
        """data_dir: where the node keeps its data (default: data/ in a
        fresh temporary directory, removed by stop())."""
        self.binary = os.environ.get("KEYWISE_BIN", str(ROOT / "build" / "keywise"))
        self.dir = tempfile.TemporaryDirectory(prefix="keywise-pytest-")
        self.data_dir = str(data_dir or pathlib.Path(self.dir.name) / "data")
        self.port = free_port()
        config = pathlib.Path(self.dir.name) / "keywise.yaml"
        # Nodes of concurrent tests share 127.0.0.1: each serves /metrics on
        # a free port unless the test says otherwise.
        if "metrics_port" not in extra_config:
            extra_config = "metrics_port: 0\n" + extra_config
        config.write_text(extra_config)
        self.config = config
        self.log = open(pathlib.Path(self.dir.name) / "node.log", "w+")
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [self.binary, "server", "--config", str(self.config),
             "--data-dir", self.data_dir,
             "--port", str(self.port), "--listen-address", "127.0.0.1"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("keywise exited early:\n" + self.output())
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("keywise did not start:\n" + self.output())

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def restart(self):
        """Stops the process cleanly and starts it again on the same data."""
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=30) == 0
        self.start()

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        code = self.proc.returncode
        self.log.close()
        self.dir.cleanup()
        return code


@pytest.fixture(scope="module")
def node():
    n = Node()
    yield n
    assert n.alive(), "the node died during the tests:\n" + n.output()
    assert n.stop() == 0


# ---- DataStax Python driver fixtures (test_driver_*.py) ----

def driver_cluster(node, **kwargs):
    """A cassandra.cluster.Cluster for `node`, token-aware, protocol v5
    unless the caller asks for another version."""
    from cassandra.cluster import (EXEC_PROFILE_DEFAULT, Cluster,
                                   ExecutionProfile)
    from cassandra.policies import DCAwareRoundRobinPolicy, TokenAwarePolicy
    kwargs.setdefault("protocol_version", 5)
    kwargs.setdefault("connect_timeout", 5)
    kwargs.setdefault("control_connection_timeout", 5)
    profile = ExecutionProfile(
        load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy()),
        request_timeout=kwargs.pop("request_timeout", 10))
    kwargs.setdefault("execution_profiles", {EXEC_PROFILE_DEFAULT: profile})
    return Cluster(["127.0.0.1"], port=node.port, **kwargs)


def create_keyspace(session, name):
    session.execute(
        "CREATE KEYSPACE IF NOT EXISTS %s WITH replication = "
        "{'class': 'SimpleStrategy', 'replication_factor': 1}" % name)
    return name


@pytest.fixture(scope="module")
def cluster(node):
    c = driver_cluster(node)
    yield c
    c.shutdown()


@pytest.fixture(scope="module")
def session(cluster):
    return cluster.connect()
