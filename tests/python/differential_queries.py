"""Random SELECTs over the tables of differential_data.py: full scans,
token ranges, partition and clustering ranges, IN lists, ORDER BY (both
directions), LIMIT, PER PARTITION LIMIT, DISTINCT, ALLOW FILTERING on
clustering, regular and static columns, aggregates and GROUP BY, and
WITH VERSIONS n on multi-version tables. Mostly
valid CQL; the few invalid ones must fail alike on both targets.

query(rng, table) returns the CQL with {ks} for the keyspace.
"""

from differential_data import literal, where_key

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def token_bound(rng):
    return rng.choice([INT64_MIN, INT64_MAX, 0,
                       rng.randint(INT64_MIN, INT64_MAX)])


def pick_key(rng, table):
    return rng.choice(sorted(table.partitions))


def clustering_restriction(rng, table, key):
    """A restriction on the clustering columns within partition `key`, or
    ""."""
    cks = table.partitions.get(key) or [(0,) * len(table.ck)]
    if not table.ck:
        return ""
    ck = rng.choice(cks)
    first = table.ck[0]
    kind = rng.randrange(7)
    if kind == 0:
        return "%s = %d" % (first, ck[0])
    if kind == 1:
        return "%s %s %d" % (first, rng.choice([">", ">=", "<", "<="]), ck[0])
    if kind == 2:
        other = rng.choice(cks)[0]
        lo, hi = min(ck[0], other), max(ck[0], other)
        return "%s %s %d AND %s %s %d" % (first, rng.choice([">", ">="]), lo,
                                          first, rng.choice(["<", "<="]), hi)
    if kind == 3:
        values = sorted({rng.choice(cks)[0] for _ in range(rng.randint(1, 4))})
        return "%s IN (%s)" % (first, ", ".join(map(str, values)))
    if kind == 4 and len(table.ck) == 2:
        return "(%s) %s (%s)" % (", ".join(table.ck),
                                 rng.choice([">", ">=", "<", "<="]),
                                 ", ".join(map(str, ck)))
    if kind == 5 and len(table.ck) == 2:
        return "%s = %d AND %s %s %d" % (first, ck[0], table.ck[1],
                                         rng.choice([">", "<=", ">="]), ck[1])
    if kind == 6 and len(table.ck) == 2:
        return "%s = %d AND %s = %d" % (first, ck[0], table.ck[1], ck[1])
    return ""


def filter_restriction(rng, table):
    """A restriction needing ALLOW FILTERING."""
    choices = ["v %s %d" % (rng.choice([">", "<", ">=", "<=", "="]),
                            rng.randint(-50, 50))]
    text = "w" if "w" in table.regular else "t"
    choices.append("%s = %s" % (text, literal(rng.choice(["a", "cc", "x"]))))
    if table.ck:
        choices.append("%s > %d" % (table.ck[0], rng.randint(0, 50)))
    if table.static:
        choices.append("s %s %d" % (rng.choice([">", "<", "="]),
                                    rng.randint(0, 99)))
    return rng.choice(choices)


def selection(rng, table, distinct_ok):
    kind = rng.random()
    if kind < 0.3:
        return "*", False
    if kind < 0.55:
        cols = rng.sample(table.columns(), rng.randint(1, len(table.columns())))
        return ", ".join(cols), False
    if kind < 0.65 and distinct_ok:
        cols = list(table.pk) + (table.static if rng.random() < 0.5 else [])
        return "DISTINCT " + ", ".join(cols), False
    if kind < 0.75:
        return "token(%s), %s" % (", ".join(table.pk),
                                  rng.choice(table.columns())), False
    if kind < 0.82:
        col = rng.choice(table.regular)
        return "%s, writetime(%s)" % (", ".join(table.pk), col), False
    aggregates = ["count(*)", "count(v)", "max(v)", "min(v)", "sum(v)",
                  "max(%s)" % table.columns()[-1]]
    if table.ck:
        aggregates.append("min(%s)" % table.ck[0])
    return ", ".join(rng.sample(aggregates, rng.randint(1, 3))), True


def order_by(rng, table):
    if not table.ck:
        return ""
    reverse = rng.random() < 0.6
    parts = []
    for col in table.ck[:rng.randint(1, len(table.ck))]:
        direction = table.order[col]
        if reverse:
            direction = "DESC" if direction == "ASC" else "ASC"
        parts.append("%s %s" % (col, direction))
    return " ORDER BY " + ", ".join(parts)


def query(rng, table):
    shape = rng.random()
    pk = ", ".join(table.pk)
    where, filtering, single = [], False, False
    if table.key_order and shape < 0.3:
        # A range of a range-placed table's key (no ALLOW FILTERING).
        bounds = sorted(rng.randint(-6000, 60000) for _ in range(2))
        if rng.random() < 0.8:
            where.append("%s %s %d" % (pk, rng.choice([">", ">="]), bounds[0]))
        if rng.random() < 0.8:
            where.append("%s %s %d" % (pk, rng.choice(["<", "<="]), bounds[1]))
    elif shape < 0.3:
        pass  # full scan
    elif shape < 0.45:
        lo, hi = sorted([token_bound(rng), token_bound(rng)])
        where.append("token(%s) %s %d" % (pk, rng.choice([">", ">="]), lo))
        if rng.random() < 0.8:
            where.append("token(%s) %s %d" % (pk, rng.choice(["<", "<="]), hi))
    elif shape < 0.7:
        key = pick_key(rng, table)
        where.append(where_key(table.pk, key))
        single = True
        ck = clustering_restriction(rng, table, key)
        if ck:
            where.append(ck)
    elif shape < 0.82:
        keys = {pick_key(rng, table) for _ in range(rng.randint(1, 5))}
        for i, name in enumerate(table.pk):
            values = sorted({k[i] for k in keys})
            where.append("%s IN (%s)" % (name, ", ".join(
                literal(v) for v in values)))
        single = True
        if rng.random() < 0.4:
            ck = clustering_restriction(rng, table, sorted(keys)[0])
            if ck:
                where.append(ck)
    else:
        where.append(filter_restriction(rng, table))
        filtering = True
        if rng.random() < 0.3:
            lo = token_bound(rng)
            where.append("token(%s) > %d" % (pk, lo))
    if rng.random() < 0.15:
        where.append(filter_restriction(rng, table))
        filtering = True
    select, aggregate = selection(rng, table, distinct_ok=not single)
    cql = "SELECT %s FROM {ks}.%s" % (select, table.name)
    if where:
        cql += " WHERE " + " AND ".join(where)
    if aggregate and rng.random() < 0.3:
        group = list(table.pk)
        if table.ck and rng.random() < 0.4:
            group.append(table.ck[0])
        cql += " GROUP BY " + ", ".join(group)
    if single and rng.random() < 0.35:
        cql += order_by(rng, table)
    if table.ck and not select.startswith("DISTINCT") and rng.random() < 0.15:
        cql += " PER PARTITION LIMIT %d" % rng.choice([1, 2, 3, 10, 500])
    if rng.random() < 0.25:
        cql += " LIMIT %d" % rng.choice([1, 2, 5, 10, 99, 1000, 5000])
    if filtering or rng.random() < 0.05:
        cql += " ALLOW FILTERING"
    if table.versions and rng.random() < 0.6:
        cql += " WITH VERSIONS %d" % rng.randint(1, table.versions + 1)
    return cql


def page_size(rng, rows):
    """A page size from 1 to 10,000, at most about 300 pages for `rows`."""
    floor = max(1, -(-rows // 300))
    size = rng.choice([1, 2, 3, 7, 10, 50, 99, 100, 999, 1000, 5000, 10000,
                       rng.randint(1, 10000)])
    return max(size, floor)


