// What the DataStax Node.js driver's routing gets from a cluster whose
// table has split and whose tablets moved (nodes on 127.0.0.1-3, RF=1).
// The tokens nodes advertise follow the tablets of the table with the most
// of them, so the driver's default (token-aware) policy reaches its
// replicas, but only as they were when it connected: driver 4.10 builds
// its token ring once. clients/nodejs/keywise-tablets.js's
// TabletAwarePolicy reads system.tablets again every few seconds, so it
// keeps reaching them after the table grew, split and moved.
//
// Whether a request reached a non-replica is the server's word: every
// connection here asks for tablets-routing-v1 routes in STARTUP (as
// ScyllaDB's tablet-aware drivers do; the DataStax driver does not), and
// only a node holding no replica of the partition sends one back.
'use strict';

const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const cassandra = require('cassandra-driver');
const { FrameWriter } = require('cassandra-driver/lib/writers');
const { haveEtcd, startCluster } = require('./node_harness');

const { TabletAwarePolicy } = require(
  path.join(__dirname, '..', '..', 'clients', 'nodejs', 'keywise-tablets.js'))(cassandra);
const { DefaultLoadBalancingPolicy } = cassandra.policies.loadBalancing;

const KEYS = 6000;
const LISTING = "SELECT last_token, replicas FROM system.tablets WHERE keyspace_name = 'routed' AND table_name = 't'";
const value = (k) => 'v' + k + '-' + 'x'.repeat(200);  // 3000 of them split the table in 8-16
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// STARTUP carries TABLETS_ROUTING_V1 (the only string map with DRIVER_NAME).
const writeStringMap = FrameWriter.prototype.writeStringMap;
FrameWriter.prototype.writeStringMap = function (map) {
  if (map && map.DRIVER_NAME !== undefined) map = { ...map, TABLETS_ROUTING_V1: '' };
  return writeStringMap.call(this, map);
};

async function waitFor(predicate, seconds, what) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await sleep(200);
  }
  throw new Error('timed out waiting for ' + what);
}

// {address: tablet replicas held} from `keywise admin status`.
function tabletsHeld(status) {
  const held = {};
  for (const m of status.matchAll(/^[UD][NLJX]\s+(127\.0\.0\.\d+)\s+(?:\?|[\d.]+ [KMGT]?i?B)\s+(?:\?|\d+)\s+(\d+)\s/gm)) {
    held[m[1]] = Number(m[2]);
  }
  return held;
}

async function listing(client) {
  const rs = await client.execute(LISTING);
  return JSON.stringify(rs.rows.map((r) => [r.last_token.toString(), r.replicas.map(String)]));
}

// The share of `reads` point reads of random keys below `keys` that were
// answered with a route.
async function forwardedShare(client, reads, keys) {
  let routed = 0;
  for (let i = 0; i < reads; i++) {
    const k = Math.floor(Math.random() * keys);
    const rs = await client.execute('SELECT v FROM routed.t WHERE k = ?', [k], { prepare: true });
    assert.equal(rs.first().v, value(k));
    const payload = rs.info.customPayload;
    if (payload && payload['tablets-routing-v1']) routed++;
    // Below 250 requests/s, the balancer's bar for moving tablets by load
    // (docs/cluster.md, "The balancer"): the reads measure, not move.
    await sleep(3);
  }
  return routed / reads;
}

function connect(cluster, policy) {
  return new cassandra.Client({
    contactPoints: ['127.0.0.1'],
    protocolOptions: { port: cluster.port },  // every node's, as peers say
    localDataCenter: 'datacenter1',
    policies: { loadBalancing: policy },
  });
}

function load(client, from, to) {
  return cassandra.concurrent.executeConcurrent(client,
    'INSERT INTO routed.t (k, v) VALUES (?, ?)',
    Array.from({ length: to - from }, (_, i) => [from + i, value(from + i)]),
    { concurrencyLevel: 64 });
}

// Waits until every node holds `least` tablets and they stay where they
// are for 2 s (the balancer has finished spreading them).
async function waitForSpreadTablets(cluster, client, least) {
  let status = '';
  try {
    await waitFor(() => {
      status = cluster.admin('status');
      const held = Object.values(tabletsHeld(status));
      return held.length === 3 && Math.min(...held) >= least;
    }, 150, 'the split tablets on every node');  // slow under a loaded CI
  } catch (e) {
    // What the cluster looked like last: for the next time it happens.
    e.message += '; keywise admin status said:\n' + status +
      '\nsystem.tablets: ' + await listing(client);
    throw e;
  }
  let last = null;
  let since = Date.now();
  await waitFor(async () => {
    const now = await listing(client);
    if (now !== last) [last, since] = [now, Date.now()];
    return Date.now() - since >= 2000;
  }, 60, 'the tablets to stay where they are');
}

// Runs `measure` until no tablet moved while it ran (the balancer may
// still move one for the reads' load), at most 5 times.
async function whileNoneMoved(client, measure) {
  for (let round = 0; round < 5; round++) {
    const before = await listing(client);
    await measure();
    if (await listing(client) === before) return;
    await sleep(1000);
  }
}

test('the tablet-aware policy reaches the replica after splits and moves',
  { skip: !haveEtcd() && 'etcd not installed', timeout: 300000 }, async () => {
    const cluster = await startCluster(3, [
      'tablet_load_report_interval_in_ms=300', 'tablet_balancer_interval_in_ms=100',
      'initial_tablets=2', 'tablet_split_size_in_kb=64', 'tablet_split_requests_per_second=0']);
    const clients = [];
    const newClient = (policy) => {
      const client = connect(cluster, policy);
      clients.push(client);
      return client;
    };
    try {
      const setup = newClient(new DefaultLoadBalancingPolicy('datacenter1'));
      await setup.execute("CREATE KEYSPACE routed WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      await setup.execute('CREATE TABLE routed.t (k int PRIMARY KEY, v text)');
      await load(setup, 0, KEYS / 2);
      await waitForSpreadTablets(cluster, setup, 2);

      const policy = new TabletAwarePolicy(new DefaultLoadBalancingPolicy('datacenter1'),
        { refreshIntervalMs: 500 });
      const aware = newClient(policy);
      await aware.connect();
      assert.equal(aware.getState().getConnectedHosts().length, 3);
      assert.ok(policy.learnsTables, 'the driver no longer has _setRoutingInfo');
      // The first request of the table makes the policy read its tablets.
      await forwardedShare(aware, 10, KEYS / 2);
      await waitFor(() => policy.tabletsKnown() > 2, 10, 'the policy to read system.tablets');

      // A client that has just read the tokens reaches the replicas.
      let plain;
      let byToken;
      let byTablet;
      await whileNoneMoved(aware, async () => {
        plain = newClient(new DefaultLoadBalancingPolicy('datacenter1'));
        await plain.connect();
        byToken = await forwardedShare(plain, 600, KEYS / 2);
        byTablet = await forwardedShare(aware, 600, KEYS / 2);
      });
      console.log('reached a non-replica after connecting: DefaultLoadBalancingPolicy %s%%, TabletAwarePolicy %s%%',
        (100 * byToken).toFixed(1), (100 * byTablet).toFixed(1));
      assert.ok(byToken < 0.05, String(byToken));
      assert.ok(byTablet < 0.01, String(byTablet));

      // The table doubles: more splits, and moves.
      await load(aware, KEYS / 2, KEYS);
      await waitForSpreadTablets(cluster, aware, 4);
      await whileNoneMoved(aware, async () => {
        byToken = await forwardedShare(plain, 600, KEYS);
        byTablet = await forwardedShare(aware, 600, KEYS);
      });
      console.log('reached a non-replica after the table grew and moved: DefaultLoadBalancingPolicy %s%%, TabletAwarePolicy %s%%',
        (100 * byToken).toFixed(1), (100 * byTablet).toFixed(1));
      assert.ok(byTablet < 0.01, String(byTablet));
    } finally {
      for (const c of clients) await c.shutdown();
      cluster.stop();
    }
  });
