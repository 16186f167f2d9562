#!/usr/bin/env python3
"""Checks the token vectors embedded in src/common/token_test.cc against the
DataStax Python driver (Debian's python3-cassandra), so the C++ test's
expected values are the driver's, not our own.

Usage: /usr/bin/python3 scripts/check_token_vectors.py src/common/token_test.cc
Prints "N passed, M failed" and exits non-zero on any mismatch.
"""
import re
import sys

from cassandra.murmur3 import murmur3


def main():
    text = open(sys.argv[1]).read()
    vectors = re.findall(r'\{"([^"]*)",\s*"([0-9a-f]*)",\s*(-?\d+)LL\}', text)
    if len(vectors) < 20:
        print("found only %d vectors" % len(vectors))
        return 1
    failed = 0
    for name, key_hex, token in vectors:
        key = bytes.fromhex(key_hex)
        if not key:
            continue  # the empty key maps to the minimum token, not hashed
        expected = murmur3(key)
        if expected != int(token):
            failed += 1
            print("MISMATCH %s: file %s, driver %d" % (name, token, expected))
    passed = len(vectors) - failed
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
