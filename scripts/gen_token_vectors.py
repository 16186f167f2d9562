#!/usr/bin/python3
"""Prints the token test vectors embedded in src/common/token_test.cc.

Each partition-key value is serialized with the DataStax Python driver's own
type serializers (cassandra.cqltypes), composite keys the way Cassandra's
CompositeType does (u16 BE length | bytes | 0x00 per component), and hashed
with the driver's murmur3(), which returns the Murmur3Partitioner token of
the serialized key. Run with Debian's driver (python3-cassandra):

    /usr/bin/python3 scripts/gen_token_vectors.py

and paste the output over the kVectors table in token_test.cc.
"""

import datetime
import struct
import sys
import uuid
from decimal import Decimal

import cassandra.cqltypes as t
from cassandra.murmur3 import murmur3
from cassandra.util import Date, Time

PROTOCOL = 4


def ser(cls, value):
    return cls.serialize(value, PROTOCOL)


def composite(*parts):
    out = b""
    for p in parts:
        out += struct.pack(">H", len(p)) + p + b"\x00"
    return out


HIGH_BYTES = bytes(range(0x80, 0x80 + 40))  # > 16 bytes, all >= 0x80

KEYS = [
    ("text 'a'", ser(t.UTF8Type, "a")),
    ("text 'hello'", ser(t.UTF8Type, "hello")),
    ("text 15 bytes", ser(t.UTF8Type, "fifteen-bytes!!")),
    ("text 16 bytes", ser(t.UTF8Type, "sixteen-bytes!!!")),
    ("text 17 bytes", ser(t.UTF8Type, "seventeen-bytes!!")),
    ("text unicode", ser(t.UTF8Type, "Grüße, ключ, 키, 🔑 keywise")),
    ("ascii 'abc'", ser(t.AsciiType, "abc")),
    ("ascii pangram", ser(t.AsciiType, "The quick brown fox jumps over")),
    ("blob 00", b"\x00"),
    ("blob ff", b"\xff"),
    ("blob 80", b"\x80"),
    ("blob 7f80", b"\x7f\x80"),
    ("blob 00x16", b"\x00" * 16),
    ("blob ff x 8", b"\xff" * 8),
    ("blob ff x 9", b"\xff" * 9),
    ("blob ff x 15", b"\xff" * 15),
    ("blob ff x 31", b"\xff" * 31),
    ("blob 80..a7", HIGH_BYTES),
    ("blob 00..ff", bytes(range(256))),
    ("int 0", ser(t.Int32Type, 0)),
    ("int 1", ser(t.Int32Type, 1)),
    ("int -1", ser(t.Int32Type, -1)),
    ("int 42", ser(t.Int32Type, 42)),
    ("int max", ser(t.Int32Type, 2**31 - 1)),
    ("int min", ser(t.Int32Type, -2**31)),
    ("bigint 0", ser(t.LongType, 0)),
    ("bigint -1", ser(t.LongType, -1)),
    ("bigint 1234567890123", ser(t.LongType, 1234567890123)),
    ("bigint max", ser(t.LongType, 2**63 - 1)),
    ("bigint min", ser(t.LongType, -2**63)),
    ("smallint 0", ser(t.ShortType, 0)),
    ("smallint -1", ser(t.ShortType, -1)),
    ("smallint 32767", ser(t.ShortType, 32767)),
    ("smallint -32768", ser(t.ShortType, -32768)),
    ("tinyint 0", ser(t.ByteType, 0)),
    ("tinyint -1", ser(t.ByteType, -1)),
    ("tinyint 127", ser(t.ByteType, 127)),
    ("tinyint -128", ser(t.ByteType, -128)),
    ("boolean true", ser(t.BooleanType, True)),
    ("boolean false", ser(t.BooleanType, False)),
    ("uuid v4", ser(t.UUIDType, uuid.UUID("3f2504e0-4f89-41d3-9a0c-0305e82c3301"))),
    ("uuid ff..", ser(t.UUIDType, uuid.UUID("ffffffff-ffff-4fff-bfff-ffffffffffff"))),
    ("timeuuid", ser(t.TimeUUIDType, uuid.UUID("d2177dd0-eaa2-11de-a572-001b779c76e3"))),
    ("timeuuid 2", ser(t.TimeUUIDType, uuid.UUID("e7a8b4d6-5b3c-11ee-8c99-0242ac120002"))),
    ("timestamp epoch", ser(t.DateType, 0)),
    ("timestamp 2024-02-29", ser(t.DateType, datetime.datetime(2024, 2, 29, 12, 30, 15))),
    ("timestamp -1ms", ser(t.DateType, -1)),
    ("date 1970-01-01", ser(t.SimpleDateType, Date(0))),
    ("date 2024-02-29", ser(t.SimpleDateType, Date(datetime.date(2024, 2, 29)))),
    ("date 1900-01-01", ser(t.SimpleDateType, Date(datetime.date(1900, 1, 1)))),
    ("time 00:00", ser(t.TimeType, Time(0))),
    ("time 23:59:59.999999999", ser(t.TimeType, Time(86399999999999))),
    ("inet 127.0.0.1", ser(t.InetAddressType, "127.0.0.1")),
    ("inet 255.255.255.255", ser(t.InetAddressType, "255.255.255.255")),
    ("inet ::1", ser(t.InetAddressType, "::1")),
    ("inet 2001:db8::ff00:42:8329", ser(t.InetAddressType, "2001:db8::ff00:42:8329")),
    ("varint 0", ser(t.IntegerType, 0)),
    ("varint 128", ser(t.IntegerType, 128)),
    ("varint -129", ser(t.IntegerType, -129)),
    ("varint 2^100", ser(t.IntegerType, 2**100)),
    ("varint -2^130", ser(t.IntegerType, -2**130)),
    ("decimal 0", ser(t.DecimalType, Decimal("0"))),
    ("decimal 1.0", ser(t.DecimalType, Decimal("1.0"))),
    ("decimal 1.00", ser(t.DecimalType, Decimal("1.00"))),
    ("decimal -3.14159", ser(t.DecimalType, Decimal("-3.14159"))),
    ("decimal 1E+10", ser(t.DecimalType, Decimal("1E+10"))),
    ("decimal long", ser(t.DecimalType, Decimal("-123456789012345678901234567890.125"))),
    ("double 0.0", ser(t.DoubleType, 0.0)),
    ("double -0.0", ser(t.DoubleType, -0.0)),
    ("double 1.5", ser(t.DoubleType, 1.5)),
    ("double -2.25", ser(t.DoubleType, -2.25)),
    ("double 1e308", ser(t.DoubleType, 1e308)),
    ("double inf", ser(t.DoubleType, float("inf"))),
    ("float 0.0", ser(t.FloatType, 0.0)),
    ("float 1.5", ser(t.FloatType, 1.5)),
    ("float -1.5", ser(t.FloatType, -1.5)),
    ("float 3.4e38", ser(t.FloatType, 3.4e38)),
    ("(int, text) (1, 'ab')",
     composite(ser(t.Int32Type, 1), ser(t.UTF8Type, "ab"))),
    ("(text, text) ('user', 'keywise')",
     composite(ser(t.UTF8Type, "user"), ser(t.UTF8Type, "keywise"))),
    ("(uuid, bigint)",
     composite(ser(t.UUIDType, uuid.UUID("3f2504e0-4f89-41d3-9a0c-0305e82c3301")),
               ser(t.LongType, -5))),
    ("(blob, blob) high bytes", composite(HIGH_BYTES, b"\xff\xfe")),
    ("(text, int, timestamp)",
     composite(ser(t.UTF8Type, "sensor-7"), ser(t.Int32Type, 2024),
               ser(t.DateType, 1700000000000))),
    ("(blob, boolean, varint)",
     composite(b"\x80\x81", ser(t.BooleanType, True), ser(t.IntegerType, -1))),
    ("(text, text, text) empty middle",
     composite(ser(t.UTF8Type, "a"), b"", ser(t.UTF8Type, "c"))),
]


def cxx_string(data):
    return '"' + data.hex() + '"'


def main():
    out = sys.stdout
    out.write("// Generated by scripts/gen_token_vectors.py (DataStax Python driver "
              "murmur3).\n")
    for name, key in KEYS:
        token = murmur3(key)
        out.write("    {%s, %s, %dLL},\n" % ('"' + name + '"', cxx_string(key), token)
                  if token != -2**63 else
                  "    {%s, %s, INT64_MIN},\n" % ('"' + name + '"', cxx_string(key)))


if __name__ == "__main__":
    main()
