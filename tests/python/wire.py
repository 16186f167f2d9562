"""A minimal native-protocol client for black-box tests.

It speaks the wire protocol over a raw socket but encodes requests and
decodes responses with the DataStax Python driver's own codecs
(cassandra.protocol, cassandra.segment), so every answer Keywise sends is
checked by the same code real applications run. It needs no system tables,
unlike cassandra.cluster.Cluster.
"""

import io
import socket
import struct

import lz4.block
import snappy
from cassandra import ConsistencyLevel
from cassandra.protocol import (OptionsMessage, ProtocolHandler, QueryMessage,
                                StartupMessage)
from cassandra.segment import SegmentCodec

HEADER = struct.Struct(">BBhBi")


def lz4_compress(data):
    # Cassandra's frame-body lz4: big-endian length, then a raw block.
    return struct.pack(">i", len(data)) + lz4.block.compress(data, store_size=False)


def lz4_decompress(data):
    (length,) = struct.unpack(">i", data[:4])
    return lz4.block.decompress(data[4:], uncompressed_size=length)


COMPRESSORS = {
    "lz4": (lz4_compress, lz4_decompress),
    "snappy": (snappy.compress, snappy.decompress),
}


class Frame:
    def __init__(self, version, flags, stream, opcode, body):
        self.version, self.flags, self.stream, self.opcode, self.body = (
            version, flags, stream, opcode, body)


class WireClient:
    def __init__(self, port, version=4, timeout=10.0, receive_buffer=None):
        self.version = version
        if receive_buffer is None:
            self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        else:
            # Set before connecting, so the TCP window starts small.
            self.sock = socket.socket()
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            self.sock.settimeout(timeout)
            self.sock.connect(("127.0.0.1", port))
        self.buffer = b""
        self.envelopes = b""
        self.compressor = None
        self.decompressor = None
        self.segments = None  # SegmentCodec once v5 framing is on
        self.next_stream = 1

    def close(self):
        self.sock.close()

    # --- raw bytes -------------------------------------------------------
    def send_raw(self, data):
        self.sock.sendall(data)

    def _read_exactly(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed by server")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def closed_by_server(self):
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True

    def read_frame(self):
        if self.segments is not None:
            return self._read_envelope()
        version, flags, stream, opcode, length = HEADER.unpack(self._read_exactly(9))
        return Frame(version, flags, stream, opcode, self._read_exactly(length))

    def _read_segment_payload(self):
        codec = self.segments
        header = io.BytesIO(self._read_exactly(codec.header_length_with_crc))
        seg_header = codec.decode_header(header)
        rest = self._read_exactly(seg_header.payload_length + 4)
        return codec.decode(io.BytesIO(rest), seg_header).payload

    def _read_envelope(self):
        while True:
            if len(self.envelopes) >= 9:
                version, flags, stream, opcode, length = HEADER.unpack(self.envelopes[:9])
                if len(self.envelopes) >= 9 + length:
                    body = self.envelopes[9:9 + length]
                    self.envelopes = self.envelopes[9 + length:]
                    return Frame(version, flags, stream, opcode, body)
            self.envelopes += self._read_segment_payload()

    # --- messages --------------------------------------------------------
    def encode(self, msg, stream):
        data = ProtocolHandler.encode_message(
            msg, stream, self.version, self.compressor, False)
        if self.segments is not None:
            buf = io.BytesIO()
            self.segments.encode(buf, data)
            data = buf.getvalue()
        return data

    def decode(self, frame, result_metadata=None):
        return ProtocolHandler.decode_message(
            frame.version & 0x7F, {}, frame.stream, frame.flags, frame.opcode,
            frame.body, self.decompressor, result_metadata)

    def send(self, msg, stream=None):
        if stream is None:
            stream = self.next_stream
            self.next_stream = (self.next_stream % 30000) + 1
        self.send_raw(self.encode(msg, stream))
        return stream

    def request(self, msg, result_metadata=None):
        stream = self.send(msg)
        frame = self.read_frame()
        assert frame.stream == stream, (frame.stream, stream)
        return self.decode(frame, result_metadata)

    def startup(self, compression=None):
        options = {"DRIVER_NAME": "keywise-wire-test"}
        if compression:
            options["COMPRESSION"] = compression
        response = self.request(StartupMessage(cqlversion="3.4.5", options=options))
        if compression and self.version < 5:
            self.compressor, self.decompressor = COMPRESSORS[compression]
        if self.version >= 5:
            if compression == "lz4":
                self.segments = SegmentCodec(*COMPRESSORS["lz4"])
            else:
                self.segments = SegmentCodec()
        return response

    def options(self):
        return self.request(OptionsMessage())

    def query(self, cql, consistency=ConsistencyLevel.ONE, **kwargs):
        return self.request(QueryMessage(cql, consistency, **kwargs))


def connect(port, version=4, compression=None):
    client = WireClient(port, version)
    ready = client.startup(compression)
    assert type(ready).__name__ == "ReadyMessage", ready
    return client
