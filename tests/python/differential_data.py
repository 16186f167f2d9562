"""Random tables and data for differential tests of the read path: the same
CQL statements (every one with an explicit timestamp, so the order they are
applied in does not matter) are applied to two targets, which must then
answer every SELECT alike.

Three tables, each in a keyspace given by the caller:
  wide: PRIMARY KEY ((p, q), c, d), c ASC and d DESC, a static column s;
        partitions of 0 (statics only) to a few thousand rows.
  long: PRIMARY KEY (p, c), c DESC; a few partitions of up to 3,000 rows.
  kv:   one row per partition.
  ver:  PRIMARY KEY (p, c) WITH versions = 3 (multi-version cells), rows
        updated up to four times, some cells deleted.
  rkv:  kv's rows in a range-placed table (partitions in key order).
  slong: long's rows in a range-placed table salted into 8 buckets.
With row, range, partition and cell deletions, statics set and deleted,
rows that expire (TTL 1: gone once the caller waited 2 s) and rows with a
long TTL.
"""

import random


class Table:
    """One table's schema and the keys written, for the query generator."""

    def __init__(self, name, create, pk, ck, static, regular, order=None,
                 versions=0, key_order=False):
        self.name, self.create, self.versions = name, create, versions
        # Range placement: a range of the partition key is a RANGE SCAN.
        self.key_order = key_order
        self.pk, self.ck, self.static, self.regular = pk, ck, static, regular
        self.order = order or {c: "ASC" for c in ck}  # clustering order
        self.partitions = {}  # pk tuple -> sorted list of clustering tuples

    def columns(self):
        return self.pk + self.ck + self.static + self.regular

    def int_columns(self):
        return [c for c in self.columns() if c not in ("q", "w", "t")]


def tables():
    return [
        Table("wide",
              "CREATE TABLE {ks}.wide (p int, q text, c int, d int, "
              "s int STATIC, v int, w text, PRIMARY KEY ((p, q), c, d)) "
              "WITH CLUSTERING ORDER BY (c ASC, d DESC)",
              ["p", "q"], ["c", "d"], ["s"], ["v", "w"],
              {"c": "ASC", "d": "DESC"}),
        Table("long",
              "CREATE TABLE {ks}.long (p int, c int, v int, w text, "
              "PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC)",
              ["p"], ["c"], [], ["v", "w"], {"c": "DESC"}),
        Table("kv", "CREATE TABLE {ks}.kv (k int PRIMARY KEY, v int, t text)",
              ["k"], [], [], ["v", "t"]),
        Table("ver",
              "CREATE TABLE {ks}.ver (p int, c int, v int, w text, "
              "PRIMARY KEY (p, c)) WITH versions = 3",
              ["p"], ["c"], [], ["v", "w"], versions=3),
        Table("rkv", "CREATE TABLE {ks}.rkv (k int PRIMARY KEY, v int, "
              "t text) WITH placement = 'range'",
              ["k"], [], [], ["v", "t"], key_order=True),
        Table("slong",
              "CREATE TABLE {ks}.slong (p int, c int, v int, w text, "
              "PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC) AND "
              "placement = 'range' AND salt_buckets = 8",
              ["p"], ["c"], [], ["v", "w"], {"c": "DESC"}, key_order=True),
    ]


def literal(value):
    if isinstance(value, str):
        return "'" + value + "'"
    return str(value)


def where_key(names, values):
    return " AND ".join("%s = %s" % (n, literal(v))
                        for n, v in zip(names, values))


class DataGen:
    """Generates the statements; statements() is the list to apply, each
    a (table name, partition key, CQL with {ks}) triple."""

    def __init__(self, rng, scale=1.0):
        self.rng, self.scale = rng, scale
        self.ts = 1_000_000
        self.out = []

    def stamp(self):
        self.ts += 1
        return self.ts

    def emit(self, table, key, cql):
        self.out.append((table.name, key, cql))

    def rows_in_partition(self):
        r = self.rng.random()
        if r < 0.55:
            n = self.rng.randint(1, 5)
        elif r < 0.82:
            n = self.rng.randint(6, 60)
        elif r < 0.97:
            n = self.rng.randint(61, 400)
        else:
            n = self.rng.randint(401, 3000)
        return max(1, int(n * self.scale))

    def insert(self, table, key, ck, ttl=None):
        values = dict(zip(table.pk, key))
        values.update(zip(table.ck, ck))
        for col in table.regular:
            if self.rng.random() < 0.85:
                values[col] = (self.rng.randint(-50, 50) if col == "v" else
                               self.rng.choice(["a", "b", "cc", "ddd", "x"]))
        using = "USING TIMESTAMP %d" % self.stamp()
        if ttl:
            using += " AND TTL %d" % ttl
        self.emit(table, key, "INSERT INTO {ks}.%s (%s) VALUES (%s) %s" % (
            table.name, ", ".join(values),
            ", ".join(literal(v) for v in values.values()), using))

    def wide(self, table, partitions):
        for p in range(partitions):
            key = (self.rng.randint(-1000, 1000), self.rng.choice("abc"))
            if key in table.partitions:
                continue
            n = 0 if self.rng.random() < 0.05 else self.rows_in_partition()
            flat = sorted(self.rng.sample(range(n * 3 + 3), n))
            cks = [(f // 5, f % 5) for f in flat]
            table.partitions[key] = cks
            for ck in cks:
                self.insert(table, key, ck,
                            ttl=1 if self.rng.random() < 0.02 else
                            (100000 if self.rng.random() < 0.05 else None))
            if n == 0 or self.rng.random() < 0.6:
                self.emit(table, key,
                          "UPDATE {ks}.wide USING TIMESTAMP %d SET s = %d "
                          "WHERE %s" % (self.stamp(), self.rng.randint(0, 99),
                                        where_key(table.pk, key)))
            self.deletions(table, key, cks)

    def deletions(self, table, key, cks):
        rng, where = self.rng, where_key(table.pk, key)
        name = table.name
        if not cks:
            return
        for _ in range(rng.choice([0, 0, 1, 2, 5])):
            ck = rng.choice(cks)
            kind = rng.random()
            if kind < 0.4:
                self.emit(table, key, "DELETE FROM {ks}.%s USING TIMESTAMP %d "
                          "WHERE %s AND %s" % (name, self.stamp(), where,
                                               where_key(table.ck, ck)))
            elif kind < 0.6:
                self.emit(table, key, "DELETE v FROM {ks}.%s USING TIMESTAMP "
                          "%d WHERE %s AND %s" % (name, self.stamp(), where,
                                                  where_key(table.ck, ck)))
            elif kind < 0.8:
                first = table.ck[0]
                self.emit(table, key, "DELETE FROM {ks}.%s USING TIMESTAMP %d "
                          "WHERE %s AND %s = %d" % (name, self.stamp(), where,
                                                    first, ck[0]))
            else:
                first = table.ck[0]
                self.emit(table, key, "DELETE FROM {ks}.%s USING TIMESTAMP %d "
                          "WHERE %s AND %s > %d AND %s < %d" % (
                              name, self.stamp(), where, first, ck[0] - 3,
                              first, ck[0] + 2))
        if rng.random() < 0.04:
            self.emit(table, key, "DELETE FROM {ks}.%s USING TIMESTAMP %d "
                      "WHERE %s" % (name, self.stamp(), where))
            for ck in rng.sample(cks, min(len(cks), 3)):
                self.insert(table, key, ck)
        if table.static and rng.random() < 0.05:
            self.emit(table, key, "DELETE s FROM {ks}.%s USING TIMESTAMP %d "
                      "WHERE %s" % (name, self.stamp(), where))

    def long(self, table):
        sizes = [1, 7, 100, 999, 1000, 1001, 3000]
        for p, size in enumerate(sizes):
            n = max(1, int(size * self.scale))
            key = (p * 7919,)
            cks = [(c * 2,) for c in range(n)]
            table.partitions[key] = cks
            for ck in cks:
                self.insert(table, key, ck,
                            ttl=1 if self.rng.random() < 0.01 else None)
            self.deletions(table, key, cks)

    def kv(self, table, rows):
        for k in self.rng.sample(range(-5000, 5000), rows):
            table.partitions[(k,)] = [()]
            self.insert(table, (k,), (),
                        ttl=1 if self.rng.random() < 0.03 else None)
            if self.rng.random() < 0.05:
                self.emit(table, (k,), "DELETE FROM {ks}.%s USING TIMESTAMP "
                          "%d WHERE k = %d" % (table.name, self.stamp(), k))


    def versioned(self, table, partitions):
        for p in range(partitions):
            key = (p * 31 - 400,)
            n = min(self.rows_in_partition(), 400)
            cks = [(c,) for c in range(n)]
            table.partitions[key] = cks
            for ck in cks:
                for _ in range(self.rng.choice([1, 1, 2, 3, 4])):
                    self.insert(table, key, ck)
                if self.rng.random() < 0.05:
                    self.emit(table, key, "DELETE v FROM {ks}.ver USING "
                              "TIMESTAMP %d WHERE p = %d AND c = %d" % (
                                  self.stamp(), key[0], ck[0]))
                    self.insert(table, key, ck)


def generate(seed, scale=1.0):
    """(tables, statements) for `seed`; `scale` multiplies the data."""
    rng = random.Random(seed)
    gen = DataGen(rng, scale)
    wide, long_, kv, ver, rkv, slong = tables()
    gen.wide(wide, max(4, int(90 * scale)))
    gen.long(long_)
    gen.kv(kv, max(10, int(1500 * scale)))
    gen.versioned(ver, max(2, int(20 * scale)))
    gen.kv(rkv, max(10, int(800 * scale)))
    gen.long(slong)
    return [wide, long_, kv, ver, rkv, slong], gen.out
