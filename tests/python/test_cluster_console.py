"""The web console of a 3-node cluster (docs/console.md; `keywise cluster`
with its own etcd, nodes on 127.0.0.1-3): any node's overview lists every
member, up, with its tablet replicas, and the tables' tablets; its key
heatmap sums the counts of every coordinator (the token-aware driver
spreads the writes over the nodes), so one node's page shows every write;
the overview page renders in headless Chromium without a JavaScript
error."""

import json
import os
import time
import urllib.request

import pytest
from cassandra.concurrent import execute_concurrent_with_args

import cdp
import local_cluster

pytestmark = [local_cluster.SKIP_WITHOUT_ETCD,
              pytest.mark.skipif(cdp.chromium_binary() is None,
                                 reason="chromium not installed")]

ROWS = 600


def get_json(url):
    with urllib.request.urlopen(url, timeout=15) as r:
        return json.loads(r.read().decode())


def test_console_shows_the_whole_cluster():
    addresses = ["127.0.0.%d" % i for i in (1, 2, 3)]
    metrics_port = local_cluster.free_port_on(addresses)
    cluster = local_cluster.LocalCluster(
        3, conf=("metrics_port=%d" % metrics_port,))
    driver = cluster.driver()
    try:
        session = driver.connect()
        session.execute("CREATE KEYSPACE shop WITH replication = {'class': "
                        "'SimpleStrategy', 'replication_factor': 2}")
        session.execute("CREATE TABLE shop.events (id bigint PRIMARY KEY, "
                        "payload text) WITH placement = 'range'")
        insert = session.prepare(
            "INSERT INTO shop.events (id, payload) VALUES (?, ?)")
        execute_concurrent_with_args(
            session, insert, [(i, "e") for i in range(ROWS)], concurrency=16)
        base = "http://127.0.0.1:%d" % metrics_port
        deadline = time.time() + 20
        while True:
            heatmap = get_json(base + "/api/heatmap?keyspace=shop&table=events")
            if heatmap["total_writes"] >= ROWS:
                break
            assert time.time() < deadline, heatmap["total_writes"]
            time.sleep(0.5)
        assert heatmap["total_writes"] == ROWS  # every coordinator's, once
        assert "every up node" in heatmap["scope"]
        overview = get_json(base + "/api/overview")
        assert overview["mode"] == "cluster"
        nodes = overview["nodes"]
        assert sorted(n["address"] for n in nodes) == addresses
        assert all(n["up"] and n["state"] == "normal" for n in nodes), nodes
        assert sum(n["local"] for n in nodes) == 1
        assert sum(n["tablet_replicas"] for n in nodes) > 0
        table = overview["keyspaces"][0]["tables"][0]
        assert table["name"] == "events" and table["tablets"] >= 1
        browser = cdp.Browser()
        try:
            browser.open(base + "/")
            text = browser.evaluate("document.getElementById('nodes').innerText")
            for address in addresses:
                assert address in text
            artifacts = os.environ.get("KEYWISE_TEST_ARTIFACTS")
            if artifacts:
                os.makedirs(artifacts, exist_ok=True)
                browser.screenshot(os.path.join(artifacts, "cluster_overview.png"))
            assert browser.errors == [], browser.errors
        finally:
            browser.close()
    finally:
        driver.shutdown()
        cluster.close()
