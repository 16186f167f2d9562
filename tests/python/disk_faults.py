"""Pieces of the single node's disk fault tests (test_node_disk_faults.py):
a tmpfs mounted for one test, a node on a data directory there, writes
that record what was acknowledged, and the check that reads them back
partition by partition."""

import contextlib
import os
import signal
import subprocess
import tempfile
import time

import pytest
from cassandra.concurrent import execute_concurrent_with_args

from conftest import Node, create_keyspace, driver_cluster

KEYSPACE = "faults"


@contextlib.contextmanager
def tmpfs(size_mb):
    """A tmpfs of `size_mb` MiB mounted on a fresh directory, unmounted
    (and the directory removed) on the way out. Skips the test when
    mounting is not permitted (mount needs root or CAP_SYS_ADMIN)."""
    mount_point = tempfile.mkdtemp(prefix="keywise-tmpfs-")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=%dm" % size_mb, "tmpfs",
         mount_point], capture_output=True, text=True)
    if done.returncode != 0:
        os.rmdir(mount_point)
        pytest.skip("cannot mount a tmpfs here (mount needs root or "
                    "CAP_SYS_ADMIN): " + done.stderr.strip())
    try:
        yield mount_point
    finally:
        if subprocess.run(["umount", mount_point]).returncode != 0:
            subprocess.run(["umount", "-l", mount_point])
        os.rmdir(mount_point)


def remount(mount_point, options):
    subprocess.run(["mount", "-o", "remount," + options, mount_point],
                   check=True)


def fill(path, leave_mb):
    """Writes `path` until its file system has about `leave_mb` MiB free."""
    stat = os.statvfs(os.path.dirname(path))
    free = stat.f_bavail * stat.f_frsize
    size = max(0, free - leave_mb * 2**20)
    with open(path, "wb") as f:
        chunk = b"\0" * 2**20
        while size > 0:
            f.write(chunk[:min(size, len(chunk))])
            size -= len(chunk)


class FaultNode:
    """A node (conftest.Node) with a driver session, table faults.t
    (k int PRIMARY KEY, v blob) and the keys it acknowledged."""

    def __init__(self, data_dir=None, config="commitlog_sync: batch\n"):
        self.node = Node(config, data_dir=data_dir)
        self.cluster = None
        self.acked = {}  # key -> value
        self.cluster = driver_cluster(self.node, request_timeout=20)
        self.session = self.cluster.connect()
        create_keyspace(self.session, KEYSPACE)
        self.session.execute("CREATE TABLE IF NOT EXISTS %s.t "
                             "(k int PRIMARY KEY, v blob)" % KEYSPACE)
        self.prepare()

    def connect(self):
        self.cluster = driver_cluster(self.node, request_timeout=20)
        self.session = self.cluster.connect()
        self.prepare()

    def prepare(self):
        self.insert = self.session.prepare(
            "INSERT INTO %s.t (k, v) VALUES (?, ?)" % KEYSPACE)
        self.select = self.session.prepare(
            "SELECT v FROM %s.t WHERE k = ?" % KEYSPACE)

    def disconnect(self):
        if self.cluster is not None:
            self.cluster.shutdown()
            self.cluster = None

    def write(self, key, size=64):
        """Writes key; returns None when acknowledged, else the error."""
        value = (b"%d:" % key) * (size // 4 + 1)
        value = value[:size]
        try:
            self.session.execute(self.insert, (key, value))
        except Exception as e:  # the driver wraps the server's error
            return e
        self.acked[key] = value
        return None

    def missing(self):
        """The acknowledged keys that do not read back with their value,
        one SELECT per key (on a new connection: after write errors the
        driver may have marked the node down)."""
        self.disconnect()
        self.connect()
        keys = sorted(self.acked)
        results = execute_concurrent_with_args(
            self.session, self.select, [(k,) for k in keys], concurrency=32,
            raise_on_first_error=True)
        return [k for k, (ok, rows) in zip(keys, results)
                if rows.one() is None or rows.one().v != self.acked[k]]

    def kill(self):
        """SIGKILL, then waits for the process."""
        self.disconnect()
        self.node.proc.send_signal(signal.SIGKILL)
        self.node.proc.wait()

    def stop_cleanly(self):
        self.disconnect()
        self.node.proc.send_signal(signal.SIGTERM)
        assert self.node.proc.wait(timeout=30) == 0, self.node.output()

    def start(self):
        self.node.start()
        self.connect()

    def try_start(self, seconds=30):
        """Starts the process; returns its exit code if it exits within
        `seconds` (it refused to start), else None once CQL answers."""
        self.node.proc = subprocess.Popen(
            [self.node.binary, "server", "--config", str(self.node.config),
             "--data-dir", self.node.data_dir, "--port", str(self.node.port),
             "--listen-address", "127.0.0.1"],
            stdout=self.node.log, stderr=subprocess.STDOUT)
        deadline = time.time() + seconds
        while time.time() < deadline:
            code = self.node.proc.poll()
            if code is not None:
                return code
            try:
                self.connect()
                self.session.execute("SELECT key FROM system.local")
                return None
            except Exception:
                self.disconnect()
                time.sleep(0.2)
        raise AssertionError("neither started nor exited:\n" +
                             self.node.output())

    def close(self):
        """Kills the process if it runs; keeps nothing."""
        self.disconnect()
        if self.node.alive():
            self.node.proc.send_signal(signal.SIGKILL)
            self.node.proc.wait()
        self.node.log.close()
        self.node.dir.cleanup()
