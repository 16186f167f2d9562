// Secondary indexes and materialized views through the DataStax Node.js
// driver on one node: the driver's table metadata (indexes) and
// getMaterializedView after CREATE INDEX / CREATE MATERIALIZED VIEW, queries
// through an index and reads of a view paged with fetchSize, and writes to a
// view refused. Everything here would pass against Apache Cassandra 4 with
// materialized views enabled.
'use strict';

const assert = require('node:assert/strict');
const { after, before, test } = require('node:test');
const cassandra = require('cassandra-driver');
const { startNode } = require('./node_harness');

const FILTERING = /use ALLOW FILTERING$/;

let node;
let client;

before(async () => {
  node = await startNode();
  client = new cassandra.Client({
    contactPoints: ['127.0.0.1:' + node.port],
    localDataCenter: 'datacenter1',
  });
  await client.connect();
  await client.execute("CREATE KEYSPACE nodeiv WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute('CREATE TABLE nodeiv.t (k int, c int, v int, w text, f frozen<set<int>>, PRIMARY KEY (k, c))');
});

after(async () => {
  if (client) await client.shutdown();
  if (node) await node.stop();
});

// The driver refreshes its metadata on the SCHEMA_CHANGE event; on a single
// node that follows the DDL response closely, but not necessarily before it.
async function eventually(read, check) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('getTable lists the indexes after CREATE INDEX and not after DROP INDEX', async () => {
  let table = await client.metadata.getTable('nodeiv', 't');
  assert.deepEqual(table.indexes, []);
  await client.execute('CREATE INDEX v_idx ON nodeiv.t (v)');
  await client.execute('CREATE INDEX ON nodeiv.t (full(f))');
  await client.execute('CREATE INDEX w_idx ON nodeiv.t (w)');
  table = await eventually(() => client.metadata.getTable('nodeiv', 't'), (t) => t.indexes.length === 3);
  const indexes = Object.fromEntries(table.indexes.map((i) => [i.name, i]));
  assert.deepEqual(Object.keys(indexes).sort(), ['t_f_idx', 'v_idx', 'w_idx']);
  assert.equal(indexes.v_idx.target, 'v');
  assert.equal(indexes.t_f_idx.target, 'full(f)');
  for (const index of table.indexes) {
    assert.ok(index.isCompositesKind(), index.name);
    assert.equal(index.options.target, index.target);
  }

  await client.execute('DROP INDEX nodeiv.w_idx');
  table = await eventually(() => client.metadata.getTable('nodeiv', 't'), (t) => t.indexes.length === 2);
  assert.deepEqual(table.indexes.map((i) => i.name).sort(), ['t_f_idx', 'v_idx']);
});

test('getMaterializedView describes the view, and is null once dropped', async () => {
  await client.execute('CREATE MATERIALIZED VIEW nodeiv.by_v AS SELECT * FROM nodeiv.t '
    + 'WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL '
    + 'PRIMARY KEY (v, k, c) WITH CLUSTERING ORDER BY (k DESC, c ASC)');
  await client.execute('CREATE MATERIALIZED VIEW nodeiv.by_ck AS SELECT c, k, w FROM nodeiv.t '
    + 'WHERE c IS NOT NULL AND k IS NOT NULL PRIMARY KEY ((c, k))');
  const view = await eventually(() => client.metadata.getMaterializedView('nodeiv', 'by_v'), (v) => v !== null);
  assert.equal(view.name, 'by_v');
  assert.equal(view.tableName, 't');
  assert.equal(view.includeAllColumns, true);
  assert.equal(view.whereClause, 'v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL');
  assert.deepEqual(view.partitionKeys.map((c) => c.name), ['v']);
  assert.deepEqual(view.clusteringKeys.map((c) => c.name), ['k', 'c']);
  assert.deepEqual(view.clusteringOrder, ['DESC', 'ASC']);
  assert.deepEqual(view.columns.map((c) => c.name).sort(), ['c', 'f', 'k', 'v', 'w']);
  assert.equal(view.columnsByName.f.type.code, cassandra.types.dataTypes.set);

  const partial = await client.metadata.getMaterializedView('nodeiv', 'by_ck');
  assert.equal(partial.includeAllColumns, false);
  assert.deepEqual(partial.partitionKeys.map((c) => c.name), ['c', 'k']);
  assert.deepEqual(partial.clusteringKeys, []);
  assert.deepEqual(partial.columns.map((c) => c.name).sort(), ['c', 'k', 'w']);

  // A view is not a table to the driver; the base table keeps its indexes.
  assert.equal(await client.metadata.getTable('nodeiv', 'by_v'), null);
  assert.equal((await client.metadata.getTable('nodeiv', 't')).indexes.length, 2);

  await client.execute('DROP MATERIALIZED VIEW nodeiv.by_ck');
  assert.equal(await eventually(() => client.metadata.getMaterializedView('nodeiv', 'by_ck'),
    (v) => v === null), null);
});

test('a query through an index pages with fetchSize and returns every row once', async () => {
  const insert = 'INSERT INTO nodeiv.t (k, c, v, w) VALUES (?, ?, ?, ?)';
  const expected = new Set();
  const writes = [];
  for (let k = 0; k < 30; k++) {
    for (let c = 0; c < 20; c++) {
      const v = (k + c) % 3 === 0 ? 1 : 2;
      if (v === 1) expected.add(k + ':' + c);
      writes.push(client.execute(insert, [k, c, v, 'w' + c], { prepare: true }));
    }
  }
  await Promise.all(writes);
  assert.equal(expected.size, 200);

  const query = 'SELECT k, c, v FROM nodeiv.t WHERE v = ?';
  const seen = [];
  for await (const row of client.stream(query, [1], { prepare: true, fetchSize: 7 })) {
    assert.equal(row.v, 1);
    seen.push(row.k + ':' + row.c);
  }
  assert.equal(seen.length, 200);
  assert.deepEqual(new Set(seen), expected);

  // The same by hand with pageState, at each consistency level a single
  // node serves.
  for (const consistency of [cassandra.types.consistencies.one, cassandra.types.consistencies.quorum,
    cassandra.types.consistencies.all]) {
    const keys = [];
    let pageState;
    let pages = 0;
    do {
      const rs = await client.execute(query, [1], { prepare: true, fetchSize: 33, pageState, consistency });
      keys.push(...rs.rows.map((r) => r.k + ':' + r.c));
      pageState = rs.pageState;
      pages++;
    } while (pageState);
    assert.equal(keys.length, 200);
    assert.deepEqual(new Set(keys), expected);
    assert.ok(pages >= 7, 'pages: ' + pages);
  }

  // Without the index's column the same filter needs ALLOW FILTERING.
  await assert.rejects(client.execute("SELECT * FROM nodeiv.t WHERE v = 1 AND w = 'w1'"), (err) => {
    assert.equal(err.code, cassandra.types.responseErrorCodes.invalid);
    assert.match(err.message, FILTERING);
    return true;
  });
});

test('a view is read with paging and refuses writes', async () => {
  // The rows of the previous test are in the view (maintained on write).
  const rows = [];
  for await (const row of client.stream('SELECT k, c FROM nodeiv.by_v WHERE v = ?', [1],
    { prepare: true, fetchSize: 9 })) {
    rows.push([row.k, row.c]);
  }
  assert.equal(rows.length, 200);
  // The view's clustering order: k DESC, then c ASC.
  const sorted = [...rows].sort((a, b) => (b[0] - a[0]) || (a[1] - b[1]));
  assert.deepEqual(rows, sorted);

  let count = 0;
  for await (const row of client.stream('SELECT v FROM nodeiv.by_v', [], { fetchSize: 50 })) {
    assert.ok(row.v === 1 || row.v === 2);
    count++;
  }
  assert.equal(count, 600);

  for (const q of ["INSERT INTO nodeiv.by_v (v, k, c) VALUES (1, 1, 1)",
    "UPDATE nodeiv.by_v SET w = 'x' WHERE v = 1 AND k = 1 AND c = 1",
    'DELETE FROM nodeiv.by_v WHERE v = 1']) {
    await assert.rejects(client.execute(q), (err) => {
      assert.equal(err.code, cassandra.types.responseErrorCodes.invalid);
      assert.equal(err.message, 'Cannot directly modify a materialized view');
      return true;
    });
  }
});
