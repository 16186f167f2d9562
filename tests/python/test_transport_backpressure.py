"""A client that pipelines big SELECTs and never reads its responses.

The node must keep its memory bounded (a connection whose unwritten
responses pass the output limit stops having its requests executed) and
keep serving the other connections promptly (one connection gets at most
half the statement pool); src/server/native_transport.h has the design.

The slow client speaks raw protocol v4 with a small receive buffer; the
other client is the DataStax driver on its own connection. The node's
memory is its VmRSS from /proc/<pid>/status.
"""

import struct
import time

from cassandra import ConsistencyLevel
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.protocol import QueryMessage

import wire
from conftest import create_keyspace

ROWS = 5000           # one page of the slow client holds every row
ROW_BYTES = 1000      # so a page is ~5 MB
SELECTS = 200         # pipelined, never read: ~1 GB of pages if all ran
WINDOW_SECONDS = 8.0  # longer than the 5 s read timeout
# Growth of the node's RSS over its baseline that the slow client may
# cause: the output limit (16 MiB) plus the pages being built and the
# allocator's slack. Unbounded, 200 pages of ~5 MB add ~1 GB.
MAX_RSS_GROWTH = 200 << 20
MAX_OTHER_LATENCY = 2.0  # seconds, per query of the other client

HEADER = struct.Struct(">BBhBi")
OPCODE_ERROR = 0x00
OPCODE_RESULT = 0x08
READ_TIMEOUT = 0x1200


def rss_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS for pid %d" % pid)


def load_rows(session, keyspace):
    session.execute(
        "CREATE TABLE %s.big (p int, c int, v text, PRIMARY KEY (p, c))"
        % keyspace)
    insert = session.prepare(
        "INSERT INTO %s.big (p, c, v) VALUES (?, ?, ?)" % keyspace)
    value = "x" * ROW_BYTES
    args = [(i % 50, i, value) for i in range(ROWS)]
    results = execute_concurrent_with_args(session, insert, args,
                                           concurrency=64)
    assert all(ok for ok, _ in results)


def slow_client(port, cql, count):
    """A v4 connection past STARTUP that sends `count` SELECTs at once and
    reads nothing; returns the socket."""
    client = wire.WireClient(port, version=4, receive_buffer=64 << 10)
    ready = client.startup()
    assert type(ready).__name__ == "ReadyMessage", ready
    burst = b"".join(
        client.encode(QueryMessage(cql, ConsistencyLevel.ONE, fetch_size=ROWS),
                      stream)
        for stream in range(1, count + 1))
    client.send_raw(burst)
    return client.sock


def drain(sock, count, timeout):
    """Reads `count` v4 responses, keeping only their opcode and error code
    (bodies are skipped, not stored); returns {stream: (opcode, code)}."""
    sock.settimeout(timeout)
    buf = bytearray(1 << 20)
    view = memoryview(buf)

    def read_exactly(n, keep):
        out = bytearray()
        while n > 0:
            got = sock.recv_into(view, min(n, len(buf)))
            if got == 0:
                raise ConnectionError("closed by server")
            if keep:
                out += view[:got]
            n -= got
        return bytes(out)

    replies = {}
    while len(replies) < count:
        _, _, stream, opcode, length = HEADER.unpack(read_exactly(9, True))
        code = None
        if opcode == OPCODE_ERROR:
            body = read_exactly(length, True)
            code = struct.unpack(">i", body[:4])[0]
        else:
            read_exactly(length, False)
        replies[stream] = (opcode, code)
    return replies


def test_client_that_never_reads_bounds_memory_and_starves_no_one(
        node, session):
    keyspace = create_keyspace(session, "backpressure")
    load_rows(session, keyspace)
    # The other client's statements: a scan (statement pool) and a read
    # of one partition (quick, run on an I/O thread).
    scan = session.prepare("SELECT p, c FROM %s.big LIMIT 20" % keyspace)
    point = session.prepare(
        "SELECT c FROM %s.big WHERE p = ? LIMIT 5" % keyspace)
    # One big page through the driver first, so the baseline includes what
    # any reader of these pages needs.
    assert len(list(session.execute(
        "SELECT * FROM %s.big" % keyspace).current_rows)) > 0
    time.sleep(0.5)
    baseline = rss_bytes(node.proc.pid)

    sock = slow_client(node.port, "SELECT * FROM %s.big" % keyspace, SELECTS)
    try:
        peak = baseline
        latencies = []
        start = time.time()
        while time.time() - start < WINDOW_SECONDS:
            peak = max(peak, rss_bytes(node.proc.pid))
            if peak - baseline > 2 * MAX_RSS_GROWTH:
                break  # failed already: spare the machine
            for statement, args in ((scan, ()), (point, (7,))):
                t0 = time.time()
                rows = session.execute(statement, args, timeout=10).current_rows
                latencies.append(time.time() - t0)
                assert len(rows) > 0
            time.sleep(0.1)
        peak = max(peak, rss_bytes(node.proc.pid))
        growth = peak - baseline
        print("baseline %d MB, peak %d MB, growth %d MB; other client: %d "
              "queries, max %.3f s" % (baseline >> 20, peak >> 20,
                                       growth >> 20, len(latencies),
                                       max(latencies)))
        assert growth < MAX_RSS_GROWTH, (
            "RSS grew by %d MB (baseline %d MB)" % (growth >> 20,
                                                   baseline >> 20))
        assert max(latencies) < MAX_OTHER_LATENCY, latencies

        # Once the slow client reads, every request is answered: a page or,
        # for those that waited past the read timeout, ReadTimeout.
        replies = drain(sock, SELECTS, timeout=20)
        assert sorted(replies) == list(range(1, SELECTS + 1))
        for stream, (opcode, code) in replies.items():
            assert opcode == OPCODE_RESULT or code == READ_TIMEOUT, (
                stream, opcode, code)
        pages = sum(opcode == OPCODE_RESULT for opcode, _ in replies.values())
        print("slow client: %d pages, %d read timeouts" % (
            pages, SELECTS - pages))
        assert pages > 0
    finally:
        sock.close()
    assert node.alive()
