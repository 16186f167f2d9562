// PasswordAuthenticator through the DataStax Node.js driver
// (docs/security.md): PlainTextAuthProvider logs in as the default
// superuser; a wrong password is an AuthenticationError with Cassandra's
// message; a role created over CQL logs in. Would pass against Cassandra 4.
'use strict';

const assert = require('node:assert/strict');
const { after, before, test } = require('node:test');
const cassandra = require('cassandra-driver');
const { startNode } = require('./node_harness');

let node;

before(async () => {
  node = await startNode('authenticator: PasswordAuthenticator\n' +
    'auth_bcrypt_gensalt_log2_rounds: 4\n');
});

after(async () => {
  if (node) await node.stop();
});

function clientAs(user, password) {
  return new cassandra.Client({
    contactPoints: ['127.0.0.1:' + node.port],
    localDataCenter: 'datacenter1',
    authProvider: new cassandra.auth.PlainTextAuthProvider(user, password),
  });
}

test('the default superuser logs in and creates a role', async () => {
  const client = clientAs('cassandra', 'cassandra');
  try {
    await client.connect();
    const rs = await client.execute('SELECT role FROM system_auth.roles');
    assert.deepEqual(rs.rows.map((r) => r.role), ['cassandra']);
    await client.execute("CREATE ROLE js WITH PASSWORD = 'j' AND LOGIN = true");
  } finally {
    await client.shutdown();
  }
  const js = clientAs('js', 'j');
  try {
    await js.connect();
    const rs = await js.execute('SELECT release_version FROM system.local');
    assert.equal(rs.rows.length, 1);
  } finally {
    await js.shutdown();
  }
});

test('a wrong password is an AuthenticationError with the message', async () => {
  const client = clientAs('cassandra', 'wrong');
  try {
    await assert.rejects(client.connect(), (err) => {
      assert.ok(err instanceof cassandra.errors.NoHostAvailableError, err);
      const inner = Object.values(err.innerErrors)[0];
      assert.ok(inner instanceof cassandra.errors.AuthenticationError, inner);
      assert.match(inner.message,
        /Provided username cassandra and\/or password are incorrect/);
      return true;
    });
  } finally {
    await client.shutdown();
  }
});
