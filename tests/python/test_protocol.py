"""Protocol-level black-box tests: handshake, framing, compression, errors
and bad input, through the DataStax driver's codecs over a raw socket."""

import random
import socket
import struct
import threading

import pytest
from cassandra import ConsistencyLevel
from cassandra.protocol import (ExecuteMessage, OptionsMessage,
                                PreparedQueryNotFound, ProtocolException,
                                QueryMessage, ReadyMessage, RegisterMessage,
                                SupportedMessage, SyntaxException)

from wire import HEADER, WireClient, connect


def raw_frame(version, stream, opcode, body=b"", flags=0):
    return HEADER.pack(version, flags, stream, opcode, len(body)) + body


@pytest.mark.parametrize("version", [3, 4, 5])
def test_options_then_startup(node, version):
    client = WireClient(node.port, version)
    supported = client.options()
    assert isinstance(supported, SupportedMessage)
    assert supported.cql_versions == ["3.4.5"]
    assert supported.options["COMPRESSION"] == ["snappy", "lz4"]
    assert supported.options["PROTOCOL_VERSIONS"] == ["3/v3", "4/v4", "5/v5"]
    assert isinstance(client.startup(), ReadyMessage)
    # After STARTUP (v5: now in CRC-checked segments) requests still work.
    assert isinstance(client.options(), SupportedMessage)
    error = client.query("SELEC oops")
    assert isinstance(error, SyntaxException)
    client.close()


def test_request_before_startup_is_refused(node):
    client = WireClient(node.port, 4)
    error = client.query("SELECT * FROM system.local")
    assert isinstance(error, ProtocolException)
    assert error.message == "Unexpected message QUERY, expecting STARTUP or OPTIONS"
    assert isinstance(client.startup(), ReadyMessage)
    client.close()


@pytest.mark.parametrize("version", [1, 2, 6, 0x41, 0x42])
def test_unsupported_version_gets_the_downgrade_error(node, version):
    client = WireClient(node.port, 4)
    if version < 3:
        client.send_raw(struct.pack(">BBbBi", version, 0, 0, 5, 0))
        header = client._read_exactly(8)
        v, _, _, opcode, length = struct.unpack(">BBbBi", header)
        body = client._read_exactly(length)
        assert v == 0x80 | version
    else:
        client.send_raw(raw_frame(version, 0, 0x05))
        frame = client.read_frame()
        assert frame.version == 0x85  # answered in the highest version
        opcode, body = frame.opcode, frame.body
    assert opcode == 0
    code, msg_len = struct.unpack(">iH", body[:6])
    assert code == 0x000A
    assert body[6:6 + msg_len].decode() == (
        "Invalid or unsupported protocol version (%d); supported versions "
        "are (3/v3, 4/v4, 5/v5)" % version)
    assert client.closed_by_server()


def test_unknown_id_is_unprepared_with_the_id(node):
    client = connect(node.port)
    query_id = bytes(range(16))
    error = client.request(ExecuteMessage(query_id, [], ConsistencyLevel.ONE))
    assert isinstance(error, PreparedQueryNotFound)
    assert error.info == query_id
    client.close()


@pytest.mark.parametrize("version,compression",
                         [(3, "lz4"), (4, "lz4"), (4, "snappy"), (5, "lz4")])
def test_compression(node, version, compression):
    client = connect(node.port, version, compression)
    # Large enough to be worth compressing in either direction.
    error = client.query("SELEC " + "x" * 5000)
    assert isinstance(error, SyntaxException)
    assert isinstance(client.options(), SupportedMessage)
    client.close()


def test_snappy_is_refused_in_v5(node):
    client = WireClient(node.port, 5)
    from cassandra.protocol import StartupMessage
    error = client.request(StartupMessage("3.4.5", {"COMPRESSION": "snappy"}))
    assert isinstance(error, ProtocolException)
    client.close()


def test_corrupt_compressed_body_is_a_protocol_error(node):
    client = connect(node.port, 4, "lz4")
    client.send_raw(raw_frame(4, 7, 0x07, b"\x00\x00\x01\x00garbage", flags=0x01))
    error = client.decode(client.read_frame())
    assert isinstance(error, ProtocolException)
    assert isinstance(client.options(), SupportedMessage)
    client.close()


def test_oversized_frame_is_rejected_and_the_connection_lives(node):
    client = connect(node.port)
    body = b"x" * (16 * 1024 * 1024)
    client.send_raw(raw_frame(4, 5, 0x07, body))
    frame = client.read_frame()
    assert frame.stream == 5
    error = client.decode(frame)
    assert error.code == 0x2200
    assert error.message == (
        "Request is too big: length %d exceeds maximum allowed length %d."
        % (len(body) + 9, 16 * 1024 * 1024))
    assert isinstance(client.options(), SupportedMessage)
    client.close()


@pytest.mark.parametrize("garbage", [
    raw_frame(4, 3, 0x33),            # unknown opcode
    raw_frame(4, 3, 0x08),            # a RESULT sent to the server
    raw_frame(0x84, 3, 0x07),         # response direction bit
    b"\x04\x00\x00\x03\x07\xff\xff\xff\xff",  # negative length
])
def test_bad_frames_close_only_their_connection(node, garbage):
    bystander = connect(node.port)
    client = connect(node.port)
    client.send_raw(garbage)
    error = client.decode(client.read_frame())
    assert isinstance(error, ProtocolException)
    assert client.closed_by_server()
    assert isinstance(bystander.options(), SupportedMessage)
    bystander.close()


def test_truncated_frames_and_abrupt_closes(node):
    for cut in range(1, 9):
        s = socket.create_connection(("127.0.0.1", node.port))
        s.sendall(raw_frame(4, 1, 0x05)[:cut])
        s.close()
    s = socket.create_connection(("127.0.0.1", node.port))
    s.sendall(raw_frame(4, 1, 0x07, b"\x00\x00\x00\x10SELECT")[:12])
    s.close()
    assert node.alive()
    client = connect(node.port)
    assert isinstance(client.options(), SupportedMessage)
    client.close()


def test_register_for_every_event_type(node):
    client = connect(node.port)
    ready = client.request(RegisterMessage(
        ["TOPOLOGY_CHANGE", "STATUS_CHANGE", "SCHEMA_CHANGE"]))
    assert isinstance(ready, ReadyMessage)
    client.close()


def test_many_concurrent_streams_on_one_connection(node):
    client = connect(node.port)
    streams = list(range(1, 2001))
    payload = b"".join(
        client.encode(QueryMessage("SELEC %d" % s, ConsistencyLevel.ONE), s)
        for s in streams)
    client.send_raw(payload)
    seen = set()
    for _ in streams:
        frame = client.read_frame()
        assert isinstance(client.decode(frame), SyntaxException)
        seen.add(frame.stream)
    assert seen == set(streams)
    client.close()


def test_many_connections_at_once(node):
    errors = []

    def worker():
        try:
            client = connect(node.port, random.choice([3, 4, 5]))
            for _ in range(20):
                assert isinstance(client.query("SELEC 1"), SyntaxException)
            client.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_seeded_random_frames_never_hurt_the_node(node):
    rng = random.Random(20240601)
    opcodes = [0x01, 0x05, 0x07, 0x09, 0x0A, 0x0B, 0x0D, rng.randrange(256)]
    for _ in range(300):
        version = rng.choice([3, 4, 5, rng.randrange(256)])
        try:
            client = connect(node.port, rng.choice([3, 4, 5]),
                             rng.choice([None, "lz4"])) if rng.random() < 0.7 \
                else WireClient(node.port, 4)
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
            frame = raw_frame(version & 0xFF, rng.randrange(-32768, 32767),
                              rng.choice(opcodes), body, rng.randrange(32))
            if client.segments is not None and rng.random() < 0.5:
                import io
                buf = io.BytesIO()
                client.segments.encode(buf, frame)
                frame = buf.getvalue()
            if rng.random() < 0.3:
                frame = frame[:rng.randrange(len(frame) + 1)]
            client.sock.settimeout(0.05)
            client.send_raw(frame)
            try:
                client.sock.recv(65536)
            except (socket.timeout, ConnectionError):
                pass
            client.close()
        except (ConnectionError, OSError):
            pass
    assert node.alive()
    client = connect(node.port)
    assert isinstance(client.options(), SupportedMessage)
    client.close()
