// An in-process test cluster: nodes with their own engines, messaging on
// 127.0.0.x (free ports), sharing one fake etcd, each with a QueryProcessor
// wired to its coordinator. Test-only.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_node.h"
#include "cluster/etcd/etcd_client.h"
#include "query/query_processor.h"
#include "testing/temp_dir.h"

namespace keywise::cluster {

// Consistency levels as the protocol numbers them (TestNode::Run, Rows).
inline constexpr Consistency kOne = Consistency::kOne,
                            kQuorum = Consistency::kQuorum,
                            kAll = Consistency::kAll;

class TestNode {
 public:
  // The node keeps its data in `dir` (so a restarted node reuses it).
  TestNode(EtcdClient* etcd, std::string address, std::string dir);
  ~TestNode();

  // Start, system keyspaces, Join; wires the processor.
  Status Boot();
  // Stops the node as a crash would look to the others (its lease is
  // revoked, connections close); the data stays in `dir`.
  void Shutdown();

  Result<query::QueryResult> Run(const std::string& cql,
                                 Consistency consistency = Consistency::kOne);
  // The rows of a SELECT, formatted "a | b" per row, all pages of
  // `page_size` rows read.
  Result<std::vector<std::string>> Rows(const std::string& cql,
                                        Consistency consistency = Consistency::kOne,
                                        int32_t page_size = 5);

  // Set before Boot: where the node's driver events go.
  PeerTables::EventSink events;
  std::function<void(const query::SchemaChangeResult&)> schema_events;
  // Set before Boot: whether the node runs the tablet balancer (off: the
  // test moves tablets itself, or wants them to stay put).
  bool run_balancer = false;
  // Set before Boot: changes the node's options last (thresholds, ...).
  // Load reports are off unless it turns them on.
  std::function<void(ClusterNodeOptions*)> configure;

  Engine& engine() { return *engine_; }
  ClusterNode& node() { return *node_; }
  bool running() const { return node_ != nullptr; }
  const std::string& address() const { return address_; }

 private:
  EtcdClient* const etcd_;
  const std::string address_;
  const std::string dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<ClusterNode> node_;
  std::unique_ptr<query::QueryProcessor> processor_;
};

// `n` nodes on 127.0.0.1 .. 127.0.0.n with their data in dir/node1 ..
// dir/noden, not booted yet.
std::vector<std::unique_ptr<TestNode>> MakeTestNodes(EtcdClient* etcd,
                                                     const std::string& dir,
                                                     int n);

// Whether every node knows table `keyspace`.`table` and its tablet map.
bool TableEverywhere(const std::vector<std::unique_ptr<TestNode>>& nodes,
                     const std::string& keyspace, const std::string& table);

// Whether every node of `nodes` sees all of them up.
bool AllSeeAllUp(const std::vector<std::unique_ptr<TestNode>>& nodes);

// Checks with gtest that `SELECT k, v FROM ks.t` through `node` at ALL
// returns exactly `keys`, each with v = 7 k (the rows the writers below
// and the tests' own writes insert).
void ExpectAllKeys(TestNode& node, const std::set<int>& keys);

// One thread per node writing fresh keys into ks.t (k, v = 7 k) until
// Stop: node i at levels[i % levels.size()], keys first_key + i,
// first_key + i + n, ... Records the keys acknowledged and the failures.
class BackgroundWriters {
 public:
  BackgroundWriters(std::vector<TestNode*> nodes, std::vector<Consistency> levels,
                    int first_key);
  ~BackgroundWriters() { Stop(); }
  // Stops and joins the threads (idempotent).
  void Stop();
  // REQUIRES: stopped.
  const std::set<int>& acknowledged() const { return acknowledged_; }
  int failures() const { return failures_.load(); }

 private:
  std::mutex mu_;
  std::set<int> acknowledged_;  // guarded by mu_ while running
  std::atomic<bool> stop_{false};
  std::atomic<int> failures_{0};
  std::vector<std::thread> threads_;
};

// Polls `done` every 10 ms for up to `limit`.
bool Eventually(const std::function<bool()>& done,
                std::chrono::milliseconds limit = std::chrono::seconds(5));

}  // namespace keywise::cluster
