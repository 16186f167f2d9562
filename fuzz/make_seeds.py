#!/usr/bin/python3
"""Writes the seed corpus of each fuzz target under fuzz/corpus/<target>/.

Each seed is one valid (or nearly valid) input in the target's input format
(the comment at the top of fuzz/<target>.cc), built here from the wire
formats the headers describe, so that a short run starts past the first
length and checksum checks. Deterministic: re-running rewrites the same
files. Uses python3-lz4 and python3-snappy (scripts/setup.sh).

  /usr/bin/python3 fuzz/make_seeds.py
"""
import os
import shutil
import struct
import zlib

import lz4.block
import snappy

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# --- CQL native protocol notation ---------------------------------------

def short(n):
    return struct.pack(">H", n)


def int32(n):
    return struct.pack(">i", n)


def string(s):
    b = s.encode()
    return short(len(b)) + b


def long_string(s):
    b = s.encode()
    return int32(len(b)) + b


def string_map(m):
    return short(len(m)) + b"".join(string(k) + string(v) for k, v in m.items())


def bytes_(b):
    return int32(-1) if b is None else int32(len(b)) + b


def short_bytes(b):
    return short(len(b)) + b


def bytes_map(m):
    return short(len(m)) + b"".join(string(k) + bytes_(v) for k, v in m.items())


def frame(version, opcode, body, flags=0, stream=1, response=False):
    v = version | (0x80 if response else 0)
    return struct.pack(">BBhBi", v, flags, stream, opcode, len(body)) + body


STARTUP, QUERY, PREPARE, EXECUTE, REGISTER, BATCH = 1, 7, 9, 10, 11, 13
ERROR, RESULT, SUPPORTED, EVENT = 0, 8, 6, 12


def query_params(version, values=(), page_size=None, paging_state=None):
    flags = 0
    rest = b""
    if values:
        flags |= 0x01
        rest += short(len(values)) + b"".join(bytes_(v) for v in values)
    if page_size is not None:
        flags |= 0x04
        rest += int32(page_size)
    if paging_state is not None:
        flags |= 0x08
        rest += bytes_(paging_state)
    flags_bytes = struct.pack(">I", flags) if version >= 5 else bytes([flags])
    return short(0x0004) + flags_bytes + rest  # QUORUM


def segment(payload, self_contained=True):
    header = len(payload) | ((1 << 17) if self_contained else 0)
    h = header.to_bytes(3, "little")
    return (h + crc24(h).to_bytes(3, "little") + payload +
            (zlib.crc32(b"\xfa\x2d\x55\xca" + payload) & 0xFFFFFFFF)
            .to_bytes(4, "little"))


def crc24(data):
    crc = 0x875060
    for b in data:
        crc ^= b << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1974F0B
    return crc & 0xFFFFFF


def native_frame():
    t = "native_frame"
    startup = frame(4, STARTUP, string_map({"CQL_VERSION": "3.0.0"}))
    q4 = frame(4, QUERY, long_string("SELECT * FROM ks.t WHERE pk = ?") +
               query_params(4, [struct.pack(">i", 1)], 100, b"\x01\x00"))
    q3 = frame(3, QUERY, long_string("SELECT now() FROM system.local") +
               query_params(3, [None], 5000))
    prepare5 = frame(5, PREPARE, long_string("INSERT INTO t (a) VALUES (?)") +
                     int32(1) + string("ks"))
    execute5 = frame(5, EXECUTE, short_bytes(b"\x12" * 16) +
                     short_bytes(b"\x34" * 16) +
                     query_params(5, [b"\x00\x00\x00\x07", None]))
    batch = frame(4, BATCH, b"\x00" + short(2) +
                  b"\x00" + long_string("INSERT INTO t (a) VALUES (1)") +
                  short(0) + b"\x01" + short_bytes(b"\x99" * 16) + short(1) +
                  bytes_(b"x") + short(0x0001) + b"\x00")
    register = frame(4, REGISTER, short(2) + string("TOPOLOGY_CHANGE") +
                     string("SCHEMA_CHANGE"))
    custom = frame(4, QUERY, bytes_map({"k": b"v"}) +
                   long_string("SELECT 1 FROM t") + query_params(4),
                   flags=0x04)
    # v3/v4 streams (mode 0: cut in 7-byte pieces; 0: all at once)
    write(t, "v4_session", bytes([0, 7]) + startup + q4 + batch + register)
    write(t, "v3_query", bytes([0, 0]) + q3 + custom)
    q_body = long_string("SELECT * FROM ks.t") + query_params(4, [], 10)
    lz4_body = struct.pack(">I", len(q_body)) + lz4.block.compress(
        q_body, store_size=False)
    write(t, "v4_lz4", bytes([1, 0]) + frame(4, QUERY, lz4_body, flags=0x01))
    write(t, "v4_snappy", bytes([2, 0]) +
          frame(4, QUERY, snappy.compress(q_body), flags=0x01))
    # raw v5 segments (mode 3) and segments built by the target (mode 5)
    write(t, "v5_segments", bytes([3, 0]) + segment(prepare5 + execute5))
    write(t, "v5_wrapped", bytes([5, 0xFF]) + prepare5 + execute5)
    big = frame(5, QUERY, long_string("SELECT " + "a, " * 100 + "b FROM t") +
                query_params(5))
    write(t, "v5_large_envelope", bytes([5, 0x40]) + big)
    # responses (mode 7)
    rows = (int32(2) +  # kind ROWS
            int32(0x0001) + int32(2) +  # global tables spec, 2 columns
            string("ks") + string("t") +
            string("k") + short(0x0009) +  # int
            string("v") + short(0x0020) + short(0x000D) +  # list<text>
            int32(1) + bytes_(struct.pack(">i", 3)) +
            bytes_(int32(1) + bytes_(b"hi")))
    write(t, "response_rows", bytes([7, 0]) + frame(4, RESULT, rows,
                                                    response=True))
    error = int32(0x2200) + string("Unknown keyspace")
    write(t, "response_error", bytes([7, 0]) + frame(4, ERROR, error,
                                                     response=True))
    supported = short(1) + string("COMPRESSION") + short(2) + string("lz4") + \
        string("snappy")
    write(t, "response_supported", bytes([7, 0]) +
          frame(4, SUPPORTED, supported, response=True))
    event = string("SCHEMA_CHANGE") + string("CREATED") + string("TABLE") + \
        string("ks") + string("t")
    write(t, "response_event", bytes([7, 0]) + frame(4, EVENT, event,
                                                     response=True))


def cql_parser():
    t = "cql_parser"
    statements = {
        "select": "SELECT a, b AS x, ttl(c), writetime(c) FROM ks.t WHERE "
                  "pk = ? AND ck > 3 AND ck <= :hi ORDER BY ck DESC "
                  "PER PARTITION LIMIT 2 LIMIT 10 ALLOW FILTERING;",
        "select_json": "SELECT JSON DISTINCT pk, token(pk) FROM t WHERE "
                       "token(pk) > -5 AND (a, b) IN ((1, 'x'), (2, 'y'))",
        "insert": "INSERT INTO t (k, l, m, s, u) VALUES (0x01, [1, 2], "
                  "{'a': 1.5e3}, {uuid()}, {f: (1, 'a')}) IF NOT EXISTS "
                  "USING TTL 86400 AND TIMESTAMP 123",
        "insert_json": "INSERT INTO t JSON '{\"k\": 1}' DEFAULT UNSET",
        "update": "UPDATE t USING TTL 5 SET c = c + 1, l = l + [3], m['k'] = "
                  "2, l[0] = null WHERE k = 1 IF v = 'x' AND m['k'] IN (1, 2)",
        "delete": "DELETE l[1], m['a'] FROM t WHERE k = 1 AND ck >= 2 IF EXISTS",
        "batch": "BEGIN UNLOGGED BATCH USING TIMESTAMP 1 INSERT INTO t (k) "
                 "VALUES (1); DELETE FROM t WHERE k = 2; APPLY BATCH",
        "create_table": "CREATE TABLE IF NOT EXISTS ks.\"T\" (a int, b text, "
                        "c frozen<map<text, list<int>>>, d duration, s int "
                        "static, PRIMARY KEY ((a, b), c)) WITH CLUSTERING "
                        "ORDER BY (c DESC) AND compaction = {'class': "
                        "'LeveledCompactionStrategy'} AND comment = 'x'",
        "create_view": "CREATE MATERIALIZED VIEW v AS SELECT * FROM t WHERE "
                       "b IS NOT NULL AND a IS NOT NULL PRIMARY KEY (b, a)",
        "create_index": "CREATE INDEX IF NOT EXISTS i ON t (keys(m))",
        "keyspace": "CREATE KEYSPACE k WITH replication = {'class': "
                    "'NetworkTopologyStrategy', 'dc1': 3} AND "
                    "durable_writes = false",
        "alter": "ALTER TABLE t ADD (x int, y set<blob>); ALTER TYPE a "
                 "RENAME f TO g; DROP TABLE IF EXISTS t; TRUNCATE t; USE \"K\"",
        "type": "CREATE TYPE ks.addr (street text, zip int, at tuple<int, "
                "frozen<addr2>>)",
        "explain": "EXPLAIN ANALYZE SELECT * FROM t WHERE v CONTAINS KEY 'a' "
                   "AND w LIKE 'x%' -- comment\n/* block */",
        "literals": "SELECT * FROM t WHERE a = $$dollar ' quoted$$ AND b = "
                    "-0.5e-7 AND c = NaN AND d = -Infinity AND e = 1h30m AND "
                    "f = P1DT2H AND g = 01234567-89ab-cdef-0123-456789abcdef",
    }
    for name, text in statements.items():
        write(t, name, text.encode())


def value_codec():
    t = "value_codec"
    # mode 0: byte 1 indexes value_codec.cc's kTypes
    samples = {
        0: b"abc", 1: struct.pack(">q", -2), 2: b"\x00\xff", 3: b"\x01",
        4: struct.pack(">q", 9), 5: int32(2) + b"\x30\x39",  # 123.45
        6: struct.pack(">d", 1.5), 7: struct.pack(">f", -0.25),
        8: int32(7), 9: struct.pack(">q", 1700000000000),
        10: bytes(range(16)), 11: "h\u00e9".encode(), 12: b"\xff\x00\x01",
        13: bytes.fromhex("6ba7b8109dad11d180b400c04fd430c8"),
        14: bytes([127, 0, 0, 1]), 15: struct.pack(">I", 2**31 + 5),
        16: struct.pack(">q", 3600 * 10**9), 17: struct.pack(">h", -3),
        18: b"\x80", 19: b"\x02\x04\x86\x03",  # 1mo 2d 3µs... (vints)
    }
    for i, v in samples.items():
        write(t, "scalar_%02d" % i, bytes([0, i]) + v)
    lst = int32(2) + bytes_(int32(1)) + bytes_(int32(2))
    write(t, "list_int", bytes([0, 20]) + lst)
    write(t, "set_text", bytes([0, 21]) + int32(2) + bytes_(b"a") +
          bytes_(b"b"))
    write(t, "tuple", bytes([0, 23]) + bytes_(int32(1)) + bytes_(None) +
          bytes_(b"\x01"))
    write(t, "udt", bytes([0, 24]) + bytes_(b"st") + bytes_(int32(9)))
    # mode 1: [option] map<text, list<int>>, then the value
    option = short(0x21) + short(0x0D) + short(0x20) + short(0x09)
    write(t, "option_map", bytes([1]) + option + int32(1) + bytes_(b"k") +
          bytes_(lst))
    udt_option = (short(0x30) + string("ks") + string("u") + short(2) +
                  string("a") + short(0x09) + string("b") + short(0x31) +
                  short(2) + short(0x0D) + short(0x15))
    write(t, "option_udt", bytes([1]) + udt_option + bytes_(int32(5)))
    # mode 2: type text, then the value
    text = b"frozen<map<text, frozen<list<tuple<int, varint>>>>>"
    write(t, "text_type", bytes([2, len(text)]) + text + int32(0))
    text = b"tuple<date, time, inet, decimal>"
    write(t, "text_tuple", bytes([2, len(text)]) + text +
          bytes_(struct.pack(">I", 2**31)) + bytes_(None))
    # mode 3: the catalog's serialized type (varint kind, u8 frozen, ...)
    write(t, "serialized_list", bytes([3, 0x20, 1, 1, 0x09, 0]) + lst)


def paging_state():
    t = "paging_state"

    def state(done, pk, clustering):
        out = bytes([1, 1 if done else 0]) + struct.pack(">II", 3, 1)
        out += struct.pack(">I", len(pk)) + pk + struct.pack(">H",
                                                            len(clustering))
        for c in clustering:
            out += struct.pack(">I", len(c)) + c
        return out

    write(t, "table1_row", bytes([0]) + state(False, int32(1), [int32(2)]))
    write(t, "table1_static", bytes([0]) + state(True, int32(1), []))
    composite = short(1) + b"a" + b"\x00" + short(8) + struct.pack(">q", 5) + \
        b"\x00"
    write(t, "table2_row", bytes([1]) + state(
        False, composite, [struct.pack(">q", 1), bytes(range(16))]))
    write(t, "table3_blob", bytes([2]) + state(True, b"\xca\xfe", []))


def tablet_route():
    t = "tablet_route"

    def route(first, last, hosts):
        replicas = int32(len(hosts))
        for h in hosts:
            replicas += bytes_(bytes_(h) + bytes_(int32(0)))
        return (bytes_(struct.pack(">q", first)) +
                bytes_(struct.pack(">q", last)) + bytes_(replicas))

    host = [bytes(15) + bytes([i]) for i in (1, 2, 3, 9)]
    r = route(-100, 100, host[:2])
    write(t, "payload", bytes([0]) + bytes_map({"tablets-routing-v1": r,
                                                "other": None}))
    seq = b""
    for first, last, hosts in ((-100, 100, host[:2]), (0, 50, [host[3]]),
                               (-2**63, -5, host[1:3]), (50, 2**63 - 1,
                                                        host)):
        r = route(first, last, hosts)
        seq += short(len(r)) + r
    write(t, "routes", bytes([1]) + seq)


# --- node-to-node messages ----------------------------------------------

def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def svarint(n):
    return varint((n << 1) ^ (n >> 63) if n < 0 else n << 1)


def lp(b):
    return varint(len(b)) + b


def values(vs):
    return varint(len(vs)) + b"".join(lp(v) for v in vs)


TABLE1 = bytes(6) + b"\x40\x00\x80" + bytes(6) + b"\x01"
# storage/raw_codec_test.cc's bytes, with fuzz_tables.h's table id
FRAGMENT = bytes.fromhex("0a01010a000104000a0161")
UPDATE = b"\x20" + TABLE1 + bytes.fromhex("0400000001" "00" "00" "01"
                                          "010400000002") + FRAGMENT
RAW = b"\x10" + TABLE1 + bytes.fromhex(
    "00" "0400000001" "00" "01" "050380000001" "050380000004" "0880e2cfaa06"
    "01" "010400000002") + FRAGMENT


def messaging():
    t = "messaging"
    bound_all = b"\x00" + values([])
    slice_ = bound_all + b"\x01" + values([int32(9)])
    read_raw = TABLE1 + lp(int32(1)) + slice_ + b"\x00" + varint(10) + \
        svarint(1700000000)
    scan_raw = TABLE1 + struct.pack(">qq", -2**63, 2**63 - 1) + slice_ + \
        b"\x00" + varint(0) + svarint(-1)
    ballot = bytes.fromhex("6ba7b8109dad11d180b400c04fd430c8")
    paxos_key = TABLE1 + lp(int32(1))
    proposal = ballot + varint(1) + lp(UPDATE)
    payloads = {
        1: UPDATE, 2: read_raw, 3: scan_raw, 4: RAW, 5: TABLE1,
        6: ballot + values([UPDATE]), 8: struct.pack(">q", 42),
        9: TABLE1 + struct.pack(">qq", -5, 5), 10: b"\x00" + varint(1) +
        lp(RAW), 13: lp(b"ks") + lp(b"t"), 14: read_raw,
        17: paxos_key + ballot, 18: paxos_key + proposal,
        20: TABLE1 + struct.pack(">qq", 0, 9) + lp(b"") + varint(10),
        22: struct.pack(">H", 4) + UPDATE,
        23: ballot + lp(b"127.0.0.1") + struct.pack(">H", 2) + read_raw,
    }
    answers = {
        2: RAW, 3: b"\x01" + varint(1) + lp(RAW),
        17: b"\x01" + ballot + b"\x01" + proposal + b"\x00",
        22: svarint(0x1100) + lp(b"timeout") + b"\x01" + svarint(2) +
        svarint(1),
    }
    for verb, p in payloads.items():
        write(t, "request_%02d" % verb, bytes([1, verb, 0]) + p)
    for verb, p in answers.items():
        write(t, "answer_%02d" % verb, bytes([1, verb, 1]) + p)

    def msg_frame(version, verb, kind, request_id, payload, epoch=None):
        if epoch is not None:
            payload = struct.pack(">q", epoch) + payload
        return struct.pack(">IBHBQ", 12 + len(payload), version, verb, kind,
                           request_id) + payload

    hello = b"KWMS" + bytes([1, 2]) + bytes(range(16))
    stream = (msg_frame(2, 1, 0, 1, UPDATE, epoch=7) +
              msg_frame(2, 2, 0, 2, read_raw, epoch=7) +
              msg_frame(2, 11, 2, 0, b"", epoch=-1) +
              msg_frame(2, 2, 1, 2, RAW) +
              msg_frame(2, 4, 1 | 4, 3, b"\x01" + int32(0x1001) + b"failed"))
    write(t, "connection_v2", bytes([0, 0]) + hello + stream)
    write(t, "connection_v2_cut", bytes([0, 5]) + hello + stream)
    hello1 = b"KWMS" + bytes([1, 1]) + bytes(range(16))
    write(t, "connection_v1", bytes([0, 0]) + hello1 +
          msg_frame(1, 3, 0, 9, scan_raw) + msg_frame(1, 99, 0, 10, b"?"))


def regressions():
    """Inputs that found bugs (docs/reliability.md), replayed by every run."""
    # FloorMod overflow formatting a timestamp near INT64_MIN
    write("value_codec", "regress_timestamp_min",
          bytes.fromhex("34bf8000000000000080"))
    # a v4 LZ4 body claiming 200 MB in 9 bytes (the server allocated it)
    lz4_bomb = struct.pack(">I", 200 << 20) + bytes.fromhex(
        "1f000100ffffffff00")
    write("native_frame", "regress_lz4_length", bytes([1, 0]) +
          frame(4, QUERY, lz4_bomb, flags=0x01))
    # a Rows result of no columns and 2^31-1 rows (client reserved 48 GB)
    write("native_frame", "regress_rows_no_columns", bytes([7, 0]) +
          frame(4, RESULT, int32(2) + int32(0x0004) + int32(0) +
                int32(0x7FFFFFFF), response=True))


def main():
    if os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    native_frame()
    cql_parser()
    value_codec()
    paging_state()
    tablet_route()
    messaging()
    regressions()


if __name__ == "__main__":
    main()
