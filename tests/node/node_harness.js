// Starts a Keywise node on a free port with a fresh data directory.
// The binary is $KEYWISE_BIN, else build/keywise under the repository root.
// With $KEYWISE_KEEP_LOGS set, a cluster's directory (its nodes' logs) is
// kept when it stops, and named on stderr.
'use strict';

const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => { socket.destroy(); resolve(true); });
    socket.on('error', () => resolve(false));
  });
}

// A node on a free port; `config`: its keywise.yaml text (none by default).
async function startNode(config = '') {
  const binary = process.env.KEYWISE_BIN || path.join(ROOT, 'build', 'keywise');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keywise-node-'));
  const port = await freePort();
  const logPath = path.join(dir, 'node.log');
  const log = fs.openSync(logPath, 'w');
  const args = ['server', '--data-dir', path.join(dir, 'data'),
    '--port', String(port), '--listen-address', '127.0.0.1'];
  if (config) {
    const configPath = path.join(dir, 'keywise.yaml');
    fs.writeFileSync(configPath, config);
    args.push('--config', configPath);
  }
  const proc = spawn(binary, args, { stdio: ['ignore', log, log] });
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) {
      throw new Error('keywise exited early:\n' + fs.readFileSync(logPath, 'utf8'));
    }
    if (await canConnect(port)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.on('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      fs.closeSync(log);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// A port free on every address of `addresses` (and the next port too).
async function freePortOn(addresses) {
  const freeOn = (port, address) => new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, address, () => server.close(() => resolve(true)));
  });
  for (let i = 0; i < 200; i++) {
    const port = await freePort();
    if (port >= 65000) continue;
    let ok = true;
    for (const address of addresses) {
      ok = ok && await freeOn(port, address) && await freeOn(port + 1, address);
    }
    if (ok) return port;
  }
  throw new Error('no free port');
}

const ETCD = process.env.KEYWISE_ETCD_BIN || '/usr/bin/etcd';

// Whether etcd is installed (cluster tests skip without it).
function haveEtcd() {
  try {
    fs.accessSync(ETCD, fs.constants.X_OK);
    return true;
  } catch (e) {
    return false;
  }
}

// Starts a local cluster (`keywise cluster start`: etcd and `nodes` nodes on
// 127.0.0.1-N), each node's keywise.yaml with the "key=value" `conf`.
async function startCluster(nodes, conf = []) {
  const binary = process.env.KEYWISE_BIN || path.join(ROOT, 'build', 'keywise');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keywise-node-cluster-'));
  const addresses = Array.from({ length: nodes }, (_, i) => '127.0.0.' + (i + 1));
  const port = await freePortOn(addresses);
  const storagePort = await freePortOn(addresses);
  const etcdPort = await freePortOn(['127.0.0.1']);
  const run = (args) => execFileSync(binary, args, { encoding: 'utf8', timeout: 120000 });
  run(['cluster', 'start', '--nodes', String(nodes), '--dir', dir,
    '--port', String(port), '--storage-port', String(storagePort),
    '--etcd-port', String(etcdPort), ...conf.flatMap((c) => ['--conf', c])]);
  return {
    port,
    addresses,
    // `keywise admin ARGS...` against the cluster's etcd; its output.
    admin: (...args) => run(['admin', ...args, '--etcd', '127.0.0.1:' + etcdPort,
      '--cluster', 'keywise']),
    stop() {
      try {
        run(['cluster', 'stop', '--dir', dir]);
      } finally {
        if (process.env.KEYWISE_KEEP_LOGS) {
          console.error('cluster logs kept in ' + dir);
        } else {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }
    },
  };
}

module.exports = { haveEtcd, startCluster, startNode };
