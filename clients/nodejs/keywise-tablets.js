// Tablet-aware routing for the DataStax Node.js driver (cassandra-driver 4.x).
//
// Keywise places each table's partitions in tablets (token ranges) that
// split, merge and move between nodes on their own. The driver's own
// token-aware routing follows the tokens nodes advertise in
// system.local/system.peers, which describe only a new table's tablets: once
// a table has split or a tablet has moved, many requests reach a node that
// holds no replica and is forwarded.
//
// TabletAwarePolicy reads where every tablet is from system.tablets
// (keyspace_name, table_name, last_token, replicas: the host ids serving
// reads) and sends each request that has a routing key and a known table to
// one of that tablet's replicas, then to the rest of the child policy's
// plan. It re-reads the tablets of the tables it has seen every
// `refreshIntervalMs`.
//
// The driver does not tell a load-balancing policy which table a statement
// uses, so the policy learns it where the driver computes a prepared
// statement's routing key (Client#_setRoutingInfo, whose prepared metadata
// names the table): an internal of cassandra-driver 4.x, checked at init.
// Without it (another driver version), or for statements that are not
// prepared, requests go by the child policy alone.
//
//   const cassandra = require('cassandra-driver');
//   const { TabletAwarePolicy } = require('./keywise-tablets')(cassandra);
//   const { DefaultLoadBalancingPolicy } = cassandra.policies.loadBalancing;
//   const client = new cassandra.Client({
//     contactPoints: ['127.0.0.1'], localDataCenter: 'datacenter1',
//     policies: { loadBalancing: new TabletAwarePolicy(
//       new DefaultLoadBalancingPolicy({ localDc: 'datacenter1' })) },
//   });
//
// The module is a function of the driver's module (so that the policy
// extends that driver's LoadBalancingPolicy); it has no other dependency:
// copy it into a project.
'use strict';

const SELECT = 'SELECT last_token, replicas FROM system.tablets ' +
  'WHERE keyspace_name = ? AND table_name = ?';
const TABLE = Symbol('keywise table');

// One table's tablets: last tokens ascending (BigInt), replica host ids.
class Tablets {
  constructor(rows) {
    this.lastTokens = rows.map((r) => BigInt(r.last_token.toString()));
    this.replicas = rows.map((r) => (r.replicas || []).map(String));
  }

  replicasOf(token) {
    let lo = 0;
    let hi = this.lastTokens.length;
    while (lo < hi) {  // the first tablet whose last token >= token
      const mid = (lo + hi) >> 1;
      if (this.lastTokens[mid] < token) lo = mid + 1; else hi = mid;
    }
    return lo < this.replicas.length ? this.replicas[lo] : [];
  }
}

module.exports = function keywiseTablets(cassandra) {
  const { LoadBalancingPolicy } = cassandra.policies.loadBalancing;
  const { distance } = cassandra.types;

  class TabletAwarePolicy extends LoadBalancingPolicy {
    constructor(childPolicy, { refreshIntervalMs = 5000, shuffleReplicas = true } = {}) {
      super();
      this.childPolicy = childPolicy;
      this.refreshIntervalMs = refreshIntervalMs;
      this.shuffleReplicas = shuffleReplicas;
      this.tables = new Map();  // "keyspace.table" -> Tablets | null
      this.timer = null;
      this.refreshing = null;
      this.learnsTables = false;
      this.byId = new Map();  // host id -> Host, rebuilt on a miss
    }

    init(client, hosts, callback) {
      this.client = client;
      this.hosts = hosts;
      const setRoutingInfo = client._setRoutingInfo;
      this.learnsTables = typeof setRoutingInfo === 'function';
      if (this.learnsTables) {
        client._setRoutingInfo = function (execOptions, params, meta) {
          if (meta && meta.table) execOptions[TABLE] = meta.table;
          return setRoutingInfo.call(this, execOptions, params, meta);
        };
      }
      this.timer = setInterval(() => {
        if (client.isShuttingDown) this.shutdown(); else this.refresh();
      }, this.refreshIntervalMs);
      this.timer.unref();
      this.childPolicy.init(client, hosts, callback);
    }

    getDistance(host) {
      return this.childPolicy.getDistance(host);
    }

    newQueryPlan(keyspace, executionOptions, callback) {
      const replicas = this._replicas(keyspace, executionOptions);
      this.childPolicy.newQueryPlan(keyspace, executionOptions, (err, childPlan) => {
        if (err) return callback(err);
        if (!replicas || replicas.length === 0) return callback(null, childPlan);
        const child = this.childPolicy;
        function* plan() {
          for (const host of replicas) {
            if (host.isUp() && child.getDistance(host) === distance.local) yield host;
          }
          for (const host of childPlan) {
            if (!replicas.includes(host)) yield host;
          }
        }
        return callback(null, plan());
      });
    }

    getOptions() {
      return new Map([['childPolicy', this.childPolicy.constructor.name],
        ['refreshIntervalMs', this.refreshIntervalMs],
        ['shuffleReplicas', this.shuffleReplicas]]);
    }

    // Re-reads the tablets of every table seen so far; resolves when done.
    refresh() {
      if (this.refreshing) return this.refreshing;
      const keys = [...this.tables.keys()];
      this.refreshing = Promise.all(keys.map(async (key) => {
        const dot = key.indexOf('.');
        try {
          const rs = await this.client.execute(
            SELECT, [key.slice(0, dot), key.slice(dot + 1)], { prepare: true });
          this.tables.set(key, rs.rows.length ? new Tablets(rs.rows) : null);
        } catch (e) {
          // A node down or the client shutting down: keep what is known.
        }
      })).finally(() => { this.refreshing = null; });
      return this.refreshing;
    }

    // How many tablets the policy knows, over all tables.
    tabletsKnown() {
      let n = 0;
      for (const t of this.tables.values()) n += t ? t.lastTokens.length : 0;
      return n;
    }

    shutdown() {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
    }

    _replicas(keyspace, executionOptions) {
      if (!executionOptions) return null;
      const routingKey = executionOptions.getRoutingKey();
      const table = executionOptions[TABLE];
      const ks = executionOptions.getKeyspace() || keyspace;
      const tokenizer = this.client.metadata.tokenizer;
      if (!routingKey || !table || !ks || !tokenizer || ks.startsWith('system')) {
        return null;
      }
      const key = ks + '.' + table;
      const tablets = this.tables.get(key);
      if (!tablets) {
        if (!this.tables.has(key)) {
          this.tables.set(key, null);
          setImmediate(() => this.refresh());
        }
        return null;
      }
      const token = BigInt(tokenizer.hash(routingKey).toString());
      const hosts = [];
      for (const id of tablets.replicasOf(token)) {
        const host = this._hostById(id);
        if (host) hosts.push(host);
      }
      if (this.shuffleReplicas) {
        for (let i = hosts.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [hosts[i], hosts[j]] = [hosts[j], hosts[i]];
        }
      }
      return hosts;
    }

    _hostById(id) {
      let host = this.byId.get(id);
      if (!host) {
        this.byId = new Map();
        for (const h of this.hosts.values()) {
          if (h.hostId) this.byId.set(h.hostId.toString(), h);
        }
        host = this.byId.get(id);
      }
      return host || null;
    }
  }

  return { TabletAwarePolicy };
};
