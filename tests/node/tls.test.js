// TLS on the CQL port through the DataStax Node.js driver's sslOptions
// (docs/security.md, 5.6): the node's certificate is checked against the
// test CA; a client presents its certificate to a node with
// require_client_auth; a plain client is refused by a TLS-only port. The
// files come from tests/make_test_certs.sh (the openssl command).
'use strict';

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { after, before, test } = require('node:test');
const cassandra = require('cassandra-driver');
const { startNode } = require('./node_harness');

let certs;
let node;

before(async () => {
  certs = fs.mkdtempSync(path.join(os.tmpdir(), 'keywise-tls-'));
  execFileSync('bash', [path.join(__dirname, '..', 'make_test_certs.sh'), certs],
    { stdio: 'ignore' });
  node = await startNode('client_encryption_options:\n' +
    '  enabled: true\n' +
    `  keystore: ${path.join(certs, 'node.pem')}\n` +
    `  truststore: ${path.join(certs, 'ca.pem')}\n` +
    '  require_client_auth: true\n');
});

after(async () => {
  if (node) await node.stop();
  if (certs) fs.rmSync(certs, { recursive: true, force: true });
});

// The driver waits for the answer to its first request until readTimeout
// even when the server closed the connection (a plain client on a TLS
// port), and the heartbeat of such a connection outlives shutdown():
// both kept short or off so the file ends quickly.
function client(sslOptions) {
  return new cassandra.Client({
    contactPoints: ['127.0.0.1:' + node.port],
    localDataCenter: 'datacenter1',
    sslOptions,
    socketOptions: { connectTimeout: 5000, readTimeout: 2000 },
    pooling: { heartBeatInterval: 0 },
  });
}

function read(name) {
  return fs.readFileSync(path.join(certs, name));
}

test('a client with a certificate connects over TLS', async () => {
  const c = client({
    ca: [read('ca.pem')],
    cert: read('client-cert.pem'),
    key: read('client-key.pem'),
    rejectUnauthorized: true,
  });
  try {
    await c.connect();
    const rs = await c.execute('SELECT release_version FROM system.local');
    assert.ok(rs.first().release_version);
  } finally {
    await c.shutdown();
  }
});

test('a client without a certificate is refused', async () => {
  const c = client({ ca: [read('ca.pem')], rejectUnauthorized: true });
  try {
    await assert.rejects(c.connect(), cassandra.errors.NoHostAvailableError);
  } finally {
    await c.shutdown();
  }
});

test('a plain client is refused', async () => {
  const c = client(undefined);
  try {
    await assert.rejects(c.connect(), cassandra.errors.NoHostAvailableError);
  } finally {
    await c.shutdown();
  }
});
