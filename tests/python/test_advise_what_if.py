"""`keywise advise --key`: the what-if report (docs/advisor.md). It samples
a table's rows and compares how today's primary key and a proposed one
spread rows and recent writes over nodes and tablets (3 simulated nodes
against one node). A time-bucketed key sends every recent write to one
partition, so to one node; a bucket column next to the day spreads
them."""

import re
import subprocess

from conftest import create_keyspace


def what_if(node, *args):
    return subprocess.run([node.binary, "advise", "127.0.0.1", str(node.port),
                           *args], capture_output=True, text=True, timeout=60)


def load_days(session, keyspace):
    create_keyspace(session, keyspace)
    session.execute(f"CREATE TABLE {keyspace}.events (day int, ts int, v int, "
                    "PRIMARY KEY (day, ts))")
    insert = session.prepare(
        f"INSERT INTO {keyspace}.events (day, ts, v) VALUES (?, ?, ?)")
    # Three days written one after the other: the last day is being
    # written now.
    for day in range(3):
        for ts in range(400):
            session.execute(insert, (day, day * 100000 + ts, ts))


def rows_of(report):
    """The report's table: label -> (today, proposed)."""
    lines = {}
    for line in report.splitlines():
        parts = [p for p in line.split("  ") if p.strip()]
        if len(parts) == 3:
            lines[parts[0].strip()] = (parts[1].strip(), parts[2].strip())
    return lines


def test_a_bucket_spreads_the_writes_of_a_time_bucket(node, session):
    load_days(session, "wi")
    run = what_if(node, "--keyspace", "wi", "--table", "events",
                  "--key", "((day, bucket%8), ts)")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.startswith("What-if for wi.events: today's key ((day), ts), "
                          "proposed ((day, bucket%8), ts)\n"), out
    assert "Sample: every row of the table (1,200)" in out, out
    assert "Recent writes: the newest 120 rows by write time" in out, out
    assert "12 equal tablets on 3 simulated nodes" in out, out
    table = rows_of(out)
    assert table["partitions in the sample"] == ("3", "24"), out
    assert table["largest partition, rows"][0] == "400", out
    # Today every recent write lands in day 2's partition: one node.
    today_writes = [int(n) for n in
                    table["recent writes per node"][0].split()]
    assert sorted(today_writes) == [0, 0, 120], out
    proposed_writes = [int(n) for n in
                       table["recent writes per node"][1].split()]
    assert sum(proposed_writes) == 120 and max(proposed_writes) < 80, out
    assert "more evenly" in out, out


def test_a_small_sample_reads_part_of_the_ring(node, session):
    load_days(session, "wi2")
    # 200 rows at most: whole partitions of 400 rows cannot fit.
    run = what_if(node, "--keyspace", "wi2", "--table", "events",
                  "--key", "((day, bucket%8), ts)", "--sample", "200")
    assert run.returncode == 2, run.stdout
    assert "Could not sample wi2.events within 200 rows" in run.stderr, \
        run.stderr
    # With many small partitions a part of the ring is enough.
    session.execute("CREATE TABLE wi2.users (id int PRIMARY KEY, v int)")
    insert = session.prepare("INSERT INTO wi2.users (id, v) VALUES (?, ?)")
    for i in range(3000):
        session.execute(insert, (i, i % 7))
    run = what_if(node, "--keyspace", "wi2", "--table", "users",
                  "--key", "(v, id)", "--sample", "1000")
    assert run.returncode == 0, run.stderr
    assert "% of the token ring" in run.stdout, run.stdout
    about = re.search(r"of about ([0-9,]+)", run.stdout)
    assert about and 2000 < int(about.group(1).replace(",", "")) < 4000, \
        run.stdout
    table = rows_of(run.stdout)
    # Seven values of v: seven partitions, each a seventh of the table,
    # estimated from the part of the ring read.
    assert table["partitions in the sample"][1] == "7", run.stdout
    assert table["largest partition, rows"][1].startswith("about "), \
        run.stdout


def test_bad_proposals_get_clear_errors(node, session):
    create_keyspace(session, "wi3")
    session.execute("CREATE TABLE wi3.t (k int PRIMARY KEY, s set<int>, "
                    "v int)")
    cases = [
        (["--key", "((k, v)"], "Bad key \"((k, v)\" at the end: expected ',' or ')'"),
        (["--key", "(k, b%4)"], "a bucket column must be in the partition key"),
        (["--key", "(nope, k)"], "Table wi3.t has no column nope"),
        (["--key", "(s, k)"], "Column s of type set<int> cannot be a key "
                              "column"),
    ]
    for args, message in cases:
        run = what_if(node, "--keyspace", "wi3", "--table", "t", *args)
        assert run.returncode == 2, (args, run.stdout)
        assert message in run.stderr, (args, run.stderr)
    run = what_if(node, "--keyspace", "wi3", "--table", "missing", "--key", "k")
    assert run.returncode == 2 and "Unknown table wi3.missing" in run.stderr
    run = what_if(node, "--keyspace", "wi3", "--key", "k")
    assert run.returncode == 2 and "--key needs --keyspace and --table" in \
        run.stderr
    # An empty table: a report with nothing in it, not an error.
    run = what_if(node, "--keyspace", "wi3", "--table", "t", "--key", "(v, k)")
    assert run.returncode == 0, run.stderr
    assert "Sample: every row of the table (0)" in run.stdout, run.stdout
