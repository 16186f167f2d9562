// Starts a Keywise node on a free port with a fresh data directory.
// The binary is $KEYWISE_BIN, else build/keywise under the repository root.
'use strict';

const { spawn } = require('node:child_process');
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

async function startNode() {
  const binary = process.env.KEYWISE_BIN || path.join(ROOT, 'build', 'keywise');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keywise-node-'));
  const port = await freePort();
  const logPath = path.join(dir, 'node.log');
  const log = fs.openSync(logPath, 'w');
  const proc = spawn(binary, ['server', '--data-dir', path.join(dir, 'data'),
    '--port', String(port), '--listen-address', '127.0.0.1'],
  { stdio: ['ignore', log, log] });
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

module.exports = { startNode };
