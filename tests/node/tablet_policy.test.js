// clients/nodejs/keywise-tablets.js's TabletAwarePolicy without a server:
// the query plans it makes from tablets it was given, against a child
// policy that lists every host (with a cluster: tablets.test.js).
'use strict';

const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const cassandra = require('cassandra-driver');
const { Murmur3Tokenizer } = require('cassandra-driver/lib/tokenizer');

const { TabletAwarePolicy } = require(
  path.join(__dirname, '..', '..', 'clients', 'nodejs', 'keywise-tablets.js'))(cassandra);
const { LoadBalancingPolicy } = cassandra.policies.loadBalancing;
const { distance } = cassandra.types;
const MAX = 2n ** 63n - 1n;

class Child extends LoadBalancingPolicy {
  constructor(hosts) {
    super();
    this.all = hosts;
  }

  init(client, hosts, callback) { callback(); }

  getDistance() { return distance.local; }

  newQueryPlan(keyspace, options, callback) { callback(null, this.all[Symbol.iterator]()); }
}

function host(name) {
  return { name, hostId: cassandra.types.Uuid.random(), up: true, isUp() { return this.up; } };
}

// A policy over `hosts` that knows ks.t's `tablets`: [[last token, [host...]]].
function policyWith(hosts, tablets, shuffleReplicas = false) {
  const policy = new TabletAwarePolicy(new Child(hosts), { shuffleReplicas });
  const hostMap = new Map(hosts.map((h) => [h.name, h]));
  const client = {
    metadata: { tokenizer: new Murmur3Tokenizer() },
    isShuttingDown: false,
    _setRoutingInfo() {},
  };
  policy.init(client, hostMap, () => {});
  policy.shutdown();  // no timer: nothing to refresh from
  policy.tables.set('ks.t', {
    lastTokens: tablets.map(([last]) => last),
    replicas: tablets.map(([, replicas]) => replicas.map((h) => h.hostId.toString())),
    replicasOf(token) {
      const i = this.lastTokens.findIndex((last) => last >= token);
      return i < 0 ? [] : this.replicas[i];
    },
  });
  return { policy, client };
}

// The execution options of a prepared statement of `table` bound to `key`,
// as the driver's _setRoutingInfo leaves them.
function bound(client, table, key) {
  const options = {
    getRoutingKey: () => key,
    getKeyspace: () => 'ks',
  };
  client._setRoutingInfo(options, [], { table });
  return options;
}

function plan(policy, options) {
  return new Promise((resolve, reject) => policy.newQueryPlan('ks', options, (err, it) => {
    if (err) reject(err); else resolve([...it].map((h) => h.name));
  }));
}

function keyWithToken(predicate) {
  const tokenizer = new Murmur3Tokenizer();
  for (let i = 0; i < 100000; i++) {
    const key = Buffer.alloc(4);
    key.writeUInt32BE(i);
    if (predicate(BigInt(tokenizer.hash(key).toString()))) return key;
  }
  throw new Error('no such key');
}

test('a tablet\'s replicas come first, then the child\'s other hosts', async () => {
  const [a, b, c] = ['a', 'b', 'c'].map(host);
  const { policy, client } = policyWith([a, b, c], [[0n, [c, b]], [MAX, [a]]]);
  assert.ok(policy.learnsTables);
  assert.deepEqual(await plan(policy, bound(client, 't', keyWithToken((t) => t <= 0n))), ['c', 'b', 'a']);
  assert.deepEqual(await plan(policy, bound(client, 't', keyWithToken((t) => t > 0n))), ['a', 'b', 'c']);
});

test('a replica that is down is skipped', async () => {
  const [a, b, c] = ['a', 'b', 'c'].map(host);
  const { policy, client } = policyWith([a, b, c], [[MAX, [c, b]]]);
  c.up = false;
  assert.deepEqual(await plan(policy, bound(client, 't', Buffer.from('k'))), ['b', 'a']);
});

test('shuffled replicas all come first', async () => {
  const hosts = ['a', 'b', 'c', 'd', 'e'].map(host);
  const { policy, client } = policyWith(hosts, [[MAX, hosts.slice(2)]], true);
  const firsts = new Set();
  for (let i = 0; i < 100; i++) {
    const p = await plan(policy, bound(client, 't', Buffer.from('k')));
    assert.deepEqual([...p.slice(0, 3)].sort(), ['c', 'd', 'e']);
    assert.deepEqual(p.slice(3), ['a', 'b']);
    firsts.add(p[0]);
  }
  assert.ok(firsts.size > 1);
});

test('without a known table the child decides', async () => {
  const [a, b] = ['a', 'b'].map(host);
  const { policy, client } = policyWith([a, b], [[MAX, [b]]]);
  const unrouted = bound(client, 't', null);
  const other = bound(client, 'other', Buffer.from('k'));
  const notPrepared = { getRoutingKey: () => Buffer.from('k'), getKeyspace: () => 'ks' };
  for (const options of [unrouted, other, notPrepared]) {
    assert.deepEqual(await plan(policy, options), ['a', 'b']);
  }
  assert.ok(policy.tables.has('ks.other'));  // due to be read
});
