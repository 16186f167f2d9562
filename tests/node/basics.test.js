// The basics through the DataStax Node.js driver (npm cassandra-driver):
// connect and metadata, simple, prepared and batch statements, paging,
// concurrency, errors mapped to the driver's classes. Everything here would
// pass against Apache Cassandra 4 as well.
'use strict';

const assert = require('node:assert/strict');
const { after, before, test } = require('node:test');
const cassandra = require('cassandra-driver');
const { startNode } = require('./node_harness');

let node;
let client;

before(async () => {
  node = await startNode();
  client = new cassandra.Client({
    contactPoints: ['127.0.0.1:' + node.port],
    localDataCenter: 'datacenter1',
  });
  await client.connect();
  await client.execute("CREATE KEYSPACE nodejs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute('CREATE TABLE nodejs.events (device text, ts timestamp, value double, tags set<text>, PRIMARY KEY (device, ts)) WITH CLUSTERING ORDER BY (ts DESC)');
});

after(async () => {
  if (client) await client.shutdown();
  if (node) await node.stop();
});

test('system.local describes a Cassandra 4 node', async () => {
  const rs = await client.execute('SELECT release_version, partitioner, cql_version FROM system.local');
  const row = rs.first();
  assert.match(row.release_version, /^4\./);
  assert.equal(row.partitioner, 'org.apache.cassandra.dht.Murmur3Partitioner');
  assert.equal(client.getState().getConnectedHosts().length, 1);
});

test('schema metadata shows the key and the clustering order', async () => {
  const table = await client.metadata.getTable('nodejs', 'events');
  assert.deepEqual(table.partitionKeys.map((c) => c.name), ['device']);
  assert.deepEqual(table.clusteringKeys.map((c) => c.name), ['ts']);
  assert.deepEqual(table.clusteringOrder, ['DESC']);
  assert.deepEqual(table.columns.map((c) => c.name).sort(), ['device', 'tags', 'ts', 'value']);
});

test('simple and prepared statements round-trip values', async () => {
  await client.execute("INSERT INTO nodejs.events (device, ts, value, tags) VALUES ('a', '2026-01-01 00:00:00', 1.5, {'x', 'y'})");
  await client.execute('INSERT INTO nodejs.events (device, ts, value) VALUES (?, ?, ?)',
    ['a', new Date(Date.UTC(2026, 0, 1, 0, 0, 1)), 2.5], { prepare: true });
  const rs = await client.execute('SELECT ts, value, tags FROM nodejs.events WHERE device = ?', ['a'], { prepare: true });
  assert.equal(rs.rowLength, 2);
  assert.equal(rs.rows[0].value, 2.5);  // DESC: newest first
  assert.equal(rs.rows[0].ts.toISOString(), '2026-01-01T00:00:01.000Z');
  assert.equal(rs.rows[1].tags.length, 2);
  assert.equal(rs.rows[0].tags, null);
});

test('batches apply atomically', async () => {
  const q = 'INSERT INTO nodejs.events (device, ts, value) VALUES (?, ?, ?)';
  await client.batch([
    { query: q, params: ['b', new Date(1000), 1] },
    { query: q, params: ['b', new Date(2000), 2] },
    { query: q, params: ['c', new Date(3000), 3] },
  ], { prepare: true });
  const rs = await client.execute("SELECT count(*) FROM nodejs.events WHERE device IN ('b', 'c')");
  assert.equal(rs.first().count.toNumber(), 3);
});

test('paging with fetchSize returns every row exactly once', async () => {
  const q = 'INSERT INTO nodejs.events (device, ts, value) VALUES (?, ?, ?)';
  const writes = [];
  for (let i = 0; i < 250; i++) {
    writes.push(client.execute(q, ['paged', new Date(i * 1000), i], { prepare: true }));
  }
  await Promise.all(writes);
  const seen = [];
  for await (const row of client.stream('SELECT value FROM nodejs.events WHERE device = ?', ['paged'],
    { prepare: true, fetchSize: 17 })) {
    seen.push(row.value);
  }
  assert.equal(seen.length, 250);
  assert.deepEqual(seen, Array.from({ length: 250 }, (_, i) => 249 - i));
  const page = await client.execute('SELECT value FROM nodejs.events WHERE device = ?', ['paged'],
    { prepare: true, fetchSize: 100 });
  assert.equal(page.rowLength, 100);
  assert.ok(page.pageState);
});

test('errors map to the driver error classes', async () => {
  await assert.rejects(client.execute('SELECT * FROM nodejs.nope'), (err) => {
    assert.ok(err instanceof cassandra.errors.ResponseError);
    assert.equal(err.code, cassandra.types.responseErrorCodes.invalid);
    assert.equal(err.message, 'unconfigured table nope');
    return true;
  });
  await assert.rejects(client.execute('SELEC * FROM x'), (err) => {
    assert.equal(err.code, cassandra.types.responseErrorCodes.syntaxError);
    return true;
  });
  await assert.rejects(client.execute("CREATE KEYSPACE nodejs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"),
    (err) => {
      assert.equal(err.code, cassandra.types.responseErrorCodes.alreadyExists);
      return true;
    });
  await assert.rejects(client.execute('SELECT * FROM nodejs.events WHERE value = 1'), (err) => {
    assert.equal(err.code, cassandra.types.responseErrorCodes.invalid);
    assert.match(err.message, /ALLOW FILTERING/);
    return true;
  });
});
