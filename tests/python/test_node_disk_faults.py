"""Disk faults on one node (docs/reliability.md, "Disk faults"): a full
disk, a read-only data directory, a corrupted table file (SSTable) and a
damaged write-ahead log (the commit log). Each must give a clear error and
lose no acknowledged write: the node refuses to start, or fails the
affected requests, or recovers, as documented there.

The full and read-only disks are tmpfs mounts made by the test (it needs
root; without it the tests are skipped, saying so)."""

import glob
import os
import time

import pytest

from conftest import Node
from disk_faults import FaultNode, fill, remount, tmpfs


def write_until_error(node, first_key, limit=100000, size=32000):
    for key in range(first_key, first_key + limit):
        error = node.write(key, size)
        if error is not None:
            return key, error
    raise AssertionError("the disk never filled")


def assert_disk_full(node, error, data):
    assert node.node.alive(), "the node died on a full disk:\n" + \
        node.node.output()[-2000:]
    assert error is not None
    assert "No space left on device" in str(error), error
    assert data in str(error), error


def test_disk_full_fails_writes_clearly_and_recovers_when_space_returns():
    """Writes on a full disk fail with the disk's error, reads go on, the
    node stays up; writes are accepted again without a restart once there
    is room (RocksDB checks every 5 s for free space of at least the
    largest memtable: the meta column family's 64 MiB). A node started on
    a full disk refuses to start, naming the disk; with room again it
    starts with every acknowledged write."""
    with tmpfs(160) as mount:
        data = os.path.join(mount, "data")
        node = FaultNode(data, "commitlog_sync: batch\n"
                         "memtable_size_in_mb: 4\n")
        try:
            for k in range(100):
                assert node.write(k) is None
            filler = os.path.join(mount, "filler")
            fill(filler, leave_mb=6)
            key, error = write_until_error(node, 100)
            assert_disk_full(node, error, data)
            for k in range(key, key + 5):
                assert_disk_full(node, node.write(k), data)
            assert node.node.alive(), node.node.output()
            assert node.missing() == []  # reads are served

            os.remove(filler)
            began = time.time()
            while node.write(key) is not None:
                assert time.time() - began < 30, "writes never came back"
                time.sleep(0.5)
            for k in range(key + 1, key + 100):
                assert node.write(k) is None
            assert node.missing() == []

            # Full again, killed, started while still full.
            fill(filler, leave_mb=6)
            key, error = write_until_error(node, key + 100)
            assert_disk_full(node, error, data)
            node.kill()
            assert node.try_start() == 1, node.node.output()
            last_line = node.node.output().strip().splitlines()[-1]
            assert "ERROR" in last_line and "No space left on device" in \
                last_line and data in last_line, last_line
            os.remove(filler)
            node.start()
            assert node.missing() == []
            assert node.write(key) is None
        finally:
            node.close()


def test_read_only_data_directory_refuses_to_start():
    """A data directory on a read-only file system: the node refuses to
    start with one ERROR line naming the directory, whether the directory
    holds a database or must be created; once writable it starts with its
    data. (A file system cannot be remounted read-only under a running
    node, whose files are open for writing: that case is not tested.)"""
    with tmpfs(32) as mount:
        data = os.path.join(mount, "data")
        node = FaultNode(data)
        try:
            for k in range(50):
                assert node.write(k) is None
            node.stop_cleanly()
            remount(mount, "ro")
            assert node.try_start() == 1, node.node.output()
            last_line = node.node.output().strip().splitlines()[-1]
            assert "ERROR" in last_line and "Read-only file system" in \
                last_line and data in last_line, last_line
            remount(mount, "rw")
            node.start()
            assert node.missing() == []
        finally:
            node.close()
        remount(mount, "ro")
        missing_dir = os.path.join(mount, "new")
        with pytest.raises(RuntimeError) as failed:
            Node("", data_dir=missing_dir).stop()
        assert "Cannot create data directory " + missing_dir in \
            str(failed.value), failed.value
        remount(mount, "rw")


def flip(path, offset, count):
    with open(path, "r+b") as f:
        f.seek(offset)
        data = f.read(count)
        f.seek(offset)
        f.write(bytes(b ^ 0xFF for b in data))


def newest(data, pattern):
    return max(glob.glob(os.path.join(data, pattern)),
               key=lambda p: int(os.path.basename(p).split(".")[0]))


def sstable_node():
    """A node with 20 partitions of 200 rows flushed to one table file
    (a clean stop flushes); returns (node, the largest .sst)."""
    node = FaultNode()
    node.session.execute("CREATE TABLE faults.p (p int, c int, v text, "
                         "PRIMARY KEY (p, c))")
    insert = node.session.prepare(
        "INSERT INTO faults.p (p, c, v) VALUES (?, ?, ?)")
    for p in range(20):
        for c in range(200):
            node.session.execute(insert, (p, c, row_value(p, c)))
    node.stop_cleanly()
    sst = max(glob.glob(os.path.join(node.node.data_dir, "*.sst")),
              key=os.path.getsize)
    assert os.path.getsize(sst) > 50000
    return node, sst


def row_value(p, c):
    return ("%d.%d-" % (p, c)) * 20


def test_corrupted_sstable_fails_reads_of_the_damaged_range_loudly():
    """Bytes flipped inside a table file's data: every partition reads back
    whole and right, or fails with a Corruption error naming the file; at
    least one fails, and a scan over the table fails too. Never a wrong or
    missing row."""
    node, sst = sstable_node()
    try:
        flip(sst, os.path.getsize(sst) // 3, 16)
        node.start()
        select = node.session.prepare("SELECT c, v FROM faults.p WHERE p = ?")
        failed = 0
        for p in range(20):
            try:
                rows = list(node.session.execute(select, (p,)))
            except Exception as e:
                assert "Corruption" in str(e) and sst in str(e), e
                failed += 1
                continue
            assert [(r.c, r.v) for r in rows] == [
                (c, row_value(p, c)) for c in range(200)], p
        assert failed >= 1
        with pytest.raises(Exception) as scan:
            list(node.session.execute("SELECT p, c FROM faults.p"))
        assert "Corruption" in str(scan.value), scan.value
        assert node.node.alive()
    finally:
        node.close()


def test_corrupted_sstable_footer_refuses_to_start():
    """A table file whose end (footer, index) is damaged: the node refuses
    to start, naming the file."""
    node, sst = sstable_node()
    try:
        flip(sst, os.path.getsize(sst) - 40, 40)
        assert node.try_start() == 1, node.node.output()
        last_line = node.node.output().strip().splitlines()[-1]
        assert "ERROR" in last_line and "Corruption" in last_line and \
            os.path.basename(sst) in last_line, last_line
    finally:
        node.close()


def kill_after_writes(node, keys):
    for k in keys:
        assert node.write(k) is None
    node.kill()
    return newest(node.node.data_dir, "*.log")


def test_write_ahead_log_tail_damage_after_kill9():
    """kill -9 in batch mode, then the newest write-ahead log file damaged
    (wal_recovery_mode kTolerateCorruptedTailRecords, docs/reliability.md):
    garbage appended is ignored and every acknowledged write is there; a
    last record cut short loses that record only (a write torn by a crash
    is never one acknowledged in batch mode); a record damaged before the
    end makes the node refuse to start, naming the log, where RocksDB's
    default recovery dropped every later record without an error."""
    node = FaultNode()
    try:
        log = kill_after_writes(node, range(300))
        with open(log, "ab") as f:
            f.write(bytes(range(7, 107)))  # not a valid record header
        node.start()
        assert node.missing() == []

        log = kill_after_writes(node, range(300, 600))
        os.truncate(log, os.path.getsize(log) - 10)
        node.start()
        assert node.missing() == [599]
        del node.acked[599]

        log = kill_after_writes(node, range(600, 900))
        # Inside the first record's payload (past its 7-byte header and
        # the write batch's own 12): a checksum failure. Damage that hits
        # a record's length field reads as a torn tail instead
        # (docs/reliability.md, "Write-ahead log recovery mode").
        flip(log, 9, 4)
        assert node.try_start() == 1, node.node.output()
        last_line = node.node.output().strip().splitlines()[-1]
        assert "ERROR" in last_line and "Corruption" in last_line and \
            os.path.basename(log) in last_line, last_line
    finally:
        node.close()
