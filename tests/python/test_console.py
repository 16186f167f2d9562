"""The web console (docs/console.md) in headless Chromium, driven over the
DevTools protocol (cdp.py): one node runs a monotonic-key insert stream
into a range-placed table and a uniform random workload into a
hash-placed one through the Python driver, then every page is loaded and
read back from the DOM: the node list and table names on the overview,
the heatmap's cells (one hot band for the monotonic table, an even field
for the uniform one), hover and zoom, and the per-table page's shapes,
partitions and findings. Any JavaScript console error, uncaught exception
or browser log error fails the test. Screenshots go to
$KEYWISE_TEST_ARTIFACTS (default: a temporary directory, printed).

One node, not the 3-node cluster: test_cluster_console.py checks what a
cluster adds (every member listed, the heatmap summed over the nodes)."""

import json
import os
import random
import tempfile
import time
import urllib.error
import urllib.request

import pytest
from cassandra.concurrent import execute_concurrent_with_args

import cdp
from conftest import Node, create_keyspace, driver_cluster, free_port

pytestmark = pytest.mark.skipif(cdp.chromium_binary() is None,
                                reason="chromium not installed (scripts/setup.sh)")

ROWS = 1500


def artifacts_dir():
    path = os.environ.get("KEYWISE_TEST_ARTIFACTS")
    if not path:
        path = tempfile.mkdtemp(prefix="keywise-console-artifacts-")
    os.makedirs(path, exist_ok=True)
    print("console screenshots in", path)
    return path


def get(url):
    """(status, content type, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def run_workload(node):
    cluster = driver_cluster(node)
    try:
        session = cluster.connect()
        create_keyspace(session, "shop")
        session.execute("CREATE TABLE shop.events (id bigint PRIMARY KEY, "
                        "payload text) WITH placement = 'range'")
        session.execute("CREATE TABLE shop.users (id bigint PRIMARY KEY, "
                        "name text)")
        # Monotonic keys: a range-placed table stores them in key order, so
        # every write lands at the end of the key space.
        insert = session.prepare(
            "INSERT INTO shop.events (id, payload) VALUES (?, ?)")
        execute_concurrent_with_args(
            session, insert, [(1_000_000 + i, "e%d" % i) for i in range(ROWS)],
            concurrency=32)
        # Uniform random keys, hashed over the ring; reads of them too.
        rng = random.Random(25)
        keys = [rng.getrandbits(62) for _ in range(ROWS)]
        upsert = session.prepare("INSERT INTO shop.users (id, name) VALUES (?, ?)")
        execute_concurrent_with_args(
            session, upsert, [(k, "u%d" % k) for k in keys], concurrency=32)
        select = session.prepare("SELECT name FROM shop.users WHERE id = ?")
        execute_concurrent_with_args(
            session, select, [(k,) for k in keys[:400]], concurrency=32)
    finally:
        cluster.shutdown()


@pytest.fixture(scope="module")
def console():
    port = free_port()
    node = Node("metrics_port: %d\n" % port)
    base = "http://127.0.0.1:%d" % port
    try:
        run_workload(node)
        # The statistics tables are rewritten every 2 s.
        deadline = time.time() + 20
        while True:
            status, _, body = get(base + "/api/heatmap?keyspace=shop&table=events")
            if status == 200 and json.loads(body)["total_writes"] >= ROWS:
                break
            assert time.time() < deadline, body
            time.sleep(0.5)
        browser = cdp.Browser()
        try:
            yield base, browser, artifacts_dir()
        finally:
            browser.close()
    finally:
        assert node.alive(), node.output()
        assert node.stop() == 0


def no_errors(browser):
    errors, browser.errors = browser.errors, []
    assert errors == [], "JavaScript errors: %s" % errors


def test_overview_lists_the_node_and_tables(console):
    base, browser, artifacts = console
    browser.open(base + "/")
    nodes = browser.evaluate("document.getElementById('nodes').innerText")
    assert "127.0.0.1" in nodes and "this node" in nodes and "up" in nodes
    tables = browser.evaluate(
        "[...document.querySelectorAll('table.tables tbody tr td:first-child')]"
        ".map(td => td.innerText)")
    assert sorted(tables) == ["events", "users"]
    text = browser.evaluate("document.body.innerText")
    assert "range" in text and "hash" in text  # placements
    # writes/s of the events table (the 6th column): the stream just ran.
    rate = browser.evaluate(
        "document.querySelector('table.tables tbody tr td:nth-child(6)').innerText")
    assert float(rate.replace(",", "")) > 0, rate
    browser.screenshot(os.path.join(artifacts, "overview.png"))
    no_errors(browser)


def heatmap_grid(browser, base, table, query=""):
    browser.open("%s/console/heatmap?keyspace=shop&table=%s%s" % (base, table, query))
    return json.loads(browser.evaluate(
        "document.getElementById('heatmap-canvas').dataset.grid"))


def writes_by_range(grid):
    per_range = [0] * (grid["range_to"] - grid["range_from"] + 1)
    for column in grid["writes"]:
        for r, v in enumerate(column):
            per_range[r] += v
    return per_range


def test_heatmap_shows_a_hot_band_and_an_even_field(console):
    base, browser, artifacts = console
    events = writes_by_range(heatmap_grid(browser, base, "events"))
    browser.screenshot(os.path.join(artifacts, "heatmap_monotonic.png"))
    assert sum(events) >= ROWS
    # Every monotonic write is in one or two neighbouring ranges.
    hot = sorted(events, reverse=True)
    assert hot[0] + hot[1] == sum(events), events
    assert sum(1 for v in events if v > 0) <= 2, events
    note = browser.evaluate("document.getElementById('order-note').innerText")
    assert "key order" in note
    no_errors(browser)

    users = writes_by_range(heatmap_grid(browser, base, "users"))
    browser.screenshot(os.path.join(artifacts, "heatmap_uniform.png"))
    assert sum(users) >= ROWS
    # Hashed random keys: every range has some, none more than 3x even.
    assert all(v > 0 for v in users), users
    assert max(users) < 3 * sum(users) / len(users), users
    assert "not key order" in browser.evaluate(
        "document.getElementById('order-note').innerText")
    no_errors(browser)


def test_heatmap_hover_and_zoom(console):
    base, browser, artifacts = console
    grid = heatmap_grid(browser, base, "events")
    hot_range = max(range(len(writes_by_range(grid))),
                    key=lambda r: writes_by_range(grid)[r])
    hot_time = max(range(len(grid["times"])),
                   key=lambda t: grid["writes"][t][hot_range])
    # The middle of the hot cell, in page coordinates.
    x, y = browser.evaluate("""(() => {
        const c = document.getElementById('heatmap-canvas');
        const r = c.getBoundingClientRect();
        const m = hm.margin, d = hm.data;
        const cw = (c.width - m.left - m.right) / d.times.length;
        const ch = (c.height - m.top - m.bottom) / (d.range_to - d.range_from + 1);
        return [r.left + m.left + (%d + 0.5) * cw, r.top + m.top + (%d + 0.5) * ch];
    })()""" % (hot_time, hot_range))
    browser.mouse("mouseMoved", x, y)
    tip = browser.wait_for(
        "(() => { const t = document.getElementById('tooltip');"
        " return t.classList.contains('hidden') ? '' : t.innerText; })()")
    # Keys 1,000,000 and up: the range of the ring's upper half that starts
    # at token (and bigint key) 0.
    assert hot_range == 32
    assert "range 32 of 64" in tip and "keys from 0" in tip, tip
    assert "writes %s" % format(grid["writes"][hot_time][32], ",") in tip, tip
    assert grid["bytes_written"][hot_time][32] > 0, grid
    assert "write id = 10" in tip, tip  # its top partitions
    browser.screenshot(os.path.join(artifacts, "heatmap_hover.png"))
    # Zoom by URL (what a drag sets): two ranges around the hot one.
    lo = max(0, hot_range - 1)
    zoomed = heatmap_grid(browser, base, "events",
                          "&range_from=%d&range_to=%d" % (lo, lo + 1))
    assert (zoomed["range_from"], zoomed["range_to"]) == (lo, lo + 1)
    assert all(len(column) == 2 for column in zoomed["writes"])
    # Zoom by dragging over the map: the page reloads a smaller window.
    browser.mouse("mousePressed", x, y)
    browser.mouse("mouseMoved", x + 1, y + 60)
    browser.mouse("mouseReleased", x + 1, y + 60)
    browser.wait_for("new URLSearchParams(location.search).get('range_to') !== null"
                     " && hm.data.range_to - hm.data.range_from < 15")
    no_errors(browser)


def test_table_page_shows_shapes_partitions_and_findings(console):
    base, browser, artifacts = console
    browser.open(base + "/console/table?keyspace=shop&table=users")
    text = browser.evaluate("document.body.innerText")
    assert "WHERE id = ?" in text and "GET" in text, text
    written = browser.evaluate(
        "document.querySelector('table.top-partitions[data-op=write]').innerText")
    assert "id = " in written
    browser.screenshot(os.path.join(artifacts, "table_users.png"))
    # The monotonic stream into a range-placed table: the advisor's
    # hot-range finding with the salted table that fixes it.
    browser.open(base + "/console/table?keyspace=shop&table=events")
    findings = browser.evaluate(
        "[...document.querySelectorAll('pre.finding')].map(p => p.innerText).join('\\n')")
    assert "hot-range" in findings and "salt_buckets" in findings, findings
    browser.screenshot(os.path.join(artifacts, "table_events.png"))
    no_errors(browser)


def test_a_page_error_is_caught(console):
    """The error capture itself: a page that throws must be seen."""
    base, browser, _ = console
    browser.open(base + "/")
    browser.evaluate("setTimeout(() => { throw new Error('boom'); }, 0); 1")
    browser.evaluate("console.error('bad'); 1")
    time.sleep(0.3)
    browser.evaluate("1")  # reads the events that came meanwhile
    assert any("boom" in e for e in browser.errors), browser.errors
    assert any("bad" in e for e in browser.errors), browser.errors
    browser.errors = []


def test_bad_requests_answer_400_and_404(console):
    base = console[0]
    status, kind, body = get(base + "/api/heatmap?keyspace=shop")
    assert (status, json.loads(body)) == (400, {"error": "missing parameter table"})
    assert kind.startswith("application/json")
    status, _, body = get(base + "/api/heatmap?keyspace=shop&table=events&range_to=99")
    assert status == 400 and "range_to" in json.loads(body)["error"]
    status, _, body = get(base + "/api/table?keyspace=shop&table=nope")
    assert status == 400 and "unknown table shop.nope" in body
    status, _, body = get(base + "/api/overview?x=1")
    assert status == 400 and "unknown parameter x" in body
    assert get(base + "/api/nope")[0] == 404
    assert get(base + "/console/nope")[0] == 404
    # Names with quotes and markup come back as JSON strings.
    status, _, body = get(base + "/api/table?keyspace=%22%3C%2Fscript%3E&table=t")
    assert status == 400 and json.loads(body)["error"].startswith("unknown table")
    assert "</script>" not in body
