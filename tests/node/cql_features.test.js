// Lightweight transactions, counters, user-defined types and JSON through
// the DataStax Node.js driver (npm cassandra-driver): the [applied] rows,
// concurrent increments, UDT values and schema metadata, INSERT JSON /
// SELECT JSON. Everything here would pass against Apache Cassandra 4.
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
  await client.execute("CREATE KEYSPACE features WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
});

after(async () => {
  if (client) await client.shutdown();
  if (node) await node.stop();
});

test('conditional writes return the [applied] row and the current values', async () => {
  await client.execute('CREATE TABLE features.accounts (id int PRIMARY KEY, owner text, balance int)');
  const insert = 'INSERT INTO features.accounts (id, owner, balance) VALUES (?, ?, ?) IF NOT EXISTS';
  let rs = await client.execute(insert, [1, 'ann', 10], { prepare: true });
  assert.equal(rs.wasApplied(), true);
  assert.deepEqual(rs.columns.map((c) => c.name), ['[applied]']);
  rs = await client.execute(insert, [1, 'bob', 99], { prepare: true });
  assert.equal(rs.wasApplied(), false);
  assert.equal(rs.first().owner, 'ann');
  assert.equal(rs.first().balance, 10);

  const cas = 'UPDATE features.accounts SET balance = ? WHERE id = ? IF balance = ?';
  rs = await client.execute(cas, [20, 1, 10], { prepare: true });
  assert.equal(rs.wasApplied(), true);
  rs = await client.execute(cas, [30, 1, 10], { prepare: true });
  assert.equal(rs.wasApplied(), false);
  assert.deepEqual(rs.columns.map((c) => c.name), ['[applied]', 'balance']);
  assert.equal(rs.first().balance, 20);

  // A read at SERIAL sees the last applied round.
  rs = await client.execute('SELECT balance FROM features.accounts WHERE id = 1', [],
    { consistency: cassandra.types.consistencies.serial });
  assert.equal(rs.first().balance, 20);
});

test('concurrent counter increments are all counted', async () => {
  await client.execute('CREATE TABLE features.hits (page text PRIMARY KEY, n counter)');
  const q = 'UPDATE features.hits SET n = n + ? WHERE page = ?';
  const writes = [];
  for (let i = 0; i < 200; i++) {
    writes.push(client.execute(q, [cassandra.types.Long.fromNumber(i % 2 === 0 ? 2 : -1), 'home'], { prepare: true }));
  }
  await Promise.all(writes);
  const rs = await client.execute("SELECT n FROM features.hits WHERE page = 'home'");
  assert.equal(rs.first().n.toNumber(), 100 * 2 - 100);
  await assert.rejects(
    client.execute("INSERT INTO features.hits (page, n) VALUES ('x', 1)"),
    /INSERT statements are not allowed on counter tables, use UPDATE instead/);
});

test('user-defined types: values, field updates and metadata', async () => {
  await client.execute('CREATE TYPE features.address (street text, zip int)');
  await client.execute('CREATE TABLE features.people (id int PRIMARY KEY, home address, past list<frozen<address>>)');
  await client.execute('INSERT INTO features.people (id, home, past) VALUES (?, ?, ?)',
    [1, { street: 'Main', zip: 75001 }, [{ street: 'Old', zip: 1 }]], { prepare: true });
  await client.execute("UPDATE features.people SET home.zip = 75002 WHERE id = 1");
  const row = (await client.execute('SELECT home, past FROM features.people WHERE id = 1')).first();
  assert.deepEqual({ ...row.home }, { street: 'Main', zip: 75002 });
  assert.equal(row.past[0].street, 'Old');

  await client.execute('ALTER TYPE features.address ADD country text');
  const udt = await client.metadata.getUdt('features', 'address');
  assert.deepEqual(udt.fields.map((f) => f.name), ['street', 'zip', 'country']);
  assert.equal(udt.fields[2].type.code, cassandra.types.dataTypes.text);
  const again = (await client.execute('SELECT home FROM features.people WHERE id = 1')).first();
  assert.equal(again.home.street, 'Main');
  assert.equal(again.home.country, null);
});

test('INSERT JSON and SELECT JSON round-trip a document', async () => {
  await client.execute('CREATE TABLE features.docs (id int PRIMARY KEY, tags set<text>, attrs map<text, int>, at timestamp)');
  const doc = { id: 7, tags: ['b', 'a'], attrs: { x: 1 }, at: '2026-01-02 03:04:05' };
  await client.execute('INSERT INTO features.docs JSON ?', [JSON.stringify(doc)], { prepare: true });
  const rs = await client.execute('SELECT JSON * FROM features.docs WHERE id = 7');
  assert.deepEqual(rs.columns.map((c) => c.name), ['[json]']);
  assert.deepEqual(JSON.parse(rs.first()['[json]']),
    { id: 7, tags: ['a', 'b'], attrs: { x: 1 }, at: '2026-01-02 03:04:05.000Z' });
});
