// What the DataStax Node.js driver's routing gets from a cluster whose
// table has split and whose tablets moved (nodes on 127.0.0.1-3, RF=1): its
// default policy, token-aware by the tokens nodes advertise, sends a large
// share of requests to a node holding no replica (which forwards them);
// clients/nodejs/keywise-tablets.js's TabletAwarePolicy, reading
// system.tablets, sends them to the replica.
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

const KEYS = 3000;
const LISTING = "SELECT last_token, replicas FROM system.tablets WHERE keyspace_name = 'routed' AND table_name = 't'";
const value = (k) => 'v' + k + '-' + 'x'.repeat(200);  // 3000 of them split the table
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

// The share of `reads` random point reads answered with a route.
async function forwardedShare(client, reads) {
  let routed = 0;
  for (let i = 0; i < reads; i++) {
    const k = Math.floor(Math.random() * KEYS);
    const rs = await client.execute('SELECT v FROM routed.t WHERE k = ?', [k], { prepare: true });
    assert.equal(rs.first().v, value(k));
    const payload = rs.info.customPayload;
    if (payload && payload['tablets-routing-v1']) routed++;
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

test('the tablet-aware policy reaches the replica after splits and moves',
  { skip: !haveEtcd() && 'etcd not installed', timeout: 240000 }, async () => {
    const cluster = await startCluster(3, [
      'tablet_load_report_interval_in_ms=300', 'tablet_balancer_interval_in_ms=100',
      'initial_tablets=2', 'tablet_split_size_in_kb=64', 'tablet_split_requests_per_second=0']);
    const clients = [];
    try {
      const setup = connect(cluster, new DefaultLoadBalancingPolicy('datacenter1'));
      clients.push(setup);
      await setup.execute("CREATE KEYSPACE routed WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      await setup.execute('CREATE TABLE routed.t (k int PRIMARY KEY, v text)');
      await cassandra.concurrent.executeConcurrent(setup,
        'INSERT INTO routed.t (k, v) VALUES (?, ?)',
        Array.from({ length: KEYS }, (_, k) => [k, value(k)]), { concurrencyLevel: 64 });
      await waitFor(() => {
        const held = Object.values(tabletsHeld(cluster.admin('status')));
        return held.length === 3 && Math.min(...held) >= 3;
      }, 90, 'the split tablets on every node');
      // The balancer has finished spreading them: no change for 2 s.
      let last = null;
      let since = Date.now();
      await waitFor(async () => {
        const now = await listing(setup);
        if (now !== last) [last, since] = [now, Date.now()];
        return Date.now() - since >= 2000;
      }, 60, 'the tablets to stay where they are');

      const plain = connect(cluster, new DefaultLoadBalancingPolicy('datacenter1'));
      clients.push(plain);
      const policy = new TabletAwarePolicy(new DefaultLoadBalancingPolicy('datacenter1'),
        { refreshIntervalMs: 500 });
      const aware = connect(cluster, policy);
      clients.push(aware);
      await plain.connect();
      await aware.connect();
      assert.equal(aware.getState().getConnectedHosts().length, 3);
      assert.ok(policy.learnsTables, 'the driver no longer has _setRoutingInfo');
      // The first request of the table makes the policy read its tablets.
      await forwardedShare(aware, 10);
      await waitFor(() => policy.tabletsKnown() > 2, 10, 'the policy to read system.tablets');

      // A run during which the balancer moved a tablet is repeated.
      let byToken;
      let byTablet;
      for (let round = 0; round < 5; round++) {
        const before = await listing(aware);
        byToken = await forwardedShare(plain, 600);
        byTablet = await forwardedShare(aware, 600);
        if (await listing(aware) === before) break;
        await sleep(1000);
      }
      console.log('reached a non-replica: DefaultLoadBalancingPolicy %s%%, TabletAwarePolicy %s%%',
        (100 * byToken).toFixed(1), (100 * byTablet).toFixed(1));
      assert.ok(byToken > 0.15, String(byToken));
      assert.ok(byTablet < 0.01, String(byTablet));
    } finally {
      for (const c of clients) await c.shutdown();
      cluster.stop();
    }
  });
