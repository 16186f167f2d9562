#include "cluster/cluster_test_util.h"

#include <gtest/gtest.h>

#include <thread>
#include <utility>
#include <variant>

#include "schema/value_codec.h"
#include "system/local_table.h"
#include "system/system_keyspaces.h"

namespace keywise::cluster {

TestNode::TestNode(EtcdClient* etcd, std::string address, std::string dir)
    : etcd_(etcd), address_(std::move(address)), dir_(std::move(dir)) {}

TestNode::~TestNode() {
  Shutdown();
}

Status TestNode::Boot() {
  EngineOptions options;
  options.data_dir = dir_;
  KW_ASSIGN_OR_RETURN(engine_, Engine::Open(options, SystemClock::Default()));
  ClusterNodeOptions o;
  o.self.listen_address = address_;
  o.self.rpc_address = address_;
  o.self.storage_port = 0;
  o.lease_ttl = std::chrono::seconds(2);
  o.coordinator.write_timeout = std::chrono::milliseconds(1500);
  o.coordinator.read_timeout = std::chrono::milliseconds(1500);
  o.coordinator.batch_rows = 7;  // small batches: paging through replicas
  o.hints.replay_interval = std::chrono::milliseconds(50);
  o.batchlog.replay_interval = std::chrono::milliseconds(100);
  o.batchlog.replay_after = std::chrono::milliseconds(1000);
  o.node_events = events;
  o.schema_events = schema_events;
  o.run_balancer = run_balancer;
  o.balancer.interval = std::chrono::milliseconds(100);
  o.mover.stream_batch_rows = 50;  // several batches per tablet
  o.report_load = false;  // tests report with load_reporter()->ReportOnce
  o.run_cleanup = false;  // and clean with cleanup()->RunOnce
  if (configure) configure(&o);
  node_ = std::make_unique<ClusterNode>(o, etcd_, engine_.get());
  KW_RETURN_IF_ERROR(node_->Start());
  system::LocalNodeInfo info;
  info.listen_address = address_;
  info.rpc_address = address_;
  KW_RETURN_IF_ERROR(node_->RunDdl(
      [&] { return system::SystemKeyspaces::Install(*engine_, info); }));
  TableDefPtr local =
      engine_->catalog().snapshot()->FindTable("system", "local");
  KW_ASSIGN_OR_RETURN(system::LocalIdentity id,
                      system::ReadLocalIdentity(*engine_, *local));
  KW_RETURN_IF_ERROR(node_->Join(*id.host_id));
  ClusterNode* node = node_.get();
  processor_ = std::make_unique<query::QueryProcessor>(
      engine_.get(), node->views(),
      [node](const TableDef& view) { return node->ViewBuildBarrier(view); });
  processor_->SetDataPaths(node_->reads(), node_->writes(),
                           node_->coordinator(), node_->coordinator());
  processor_->SetSchemaService(node_.get());
  return Status::OK();
}

void TestNode::Shutdown() {
  if (node_) node_->Stop();
  processor_.reset();
  node_.reset();
  if (engine_) (void)engine_->Close();
  engine_.reset();
}

Result<query::QueryResult> TestNode::Run(const std::string& cql,
                                         Consistency consistency) {
  query::QueryOptions options;
  options.consistency = consistency;
  query::ClientState client;
  return processor_->Process(cql, options, &client);
}

Result<std::vector<std::string>> TestNode::Rows(const std::string& cql,
                                                Consistency consistency,
                                                int32_t page_size) {
  query::QueryOptions options;
  options.consistency = consistency;
  options.page_size = page_size;
  query::ClientState client;
  std::vector<std::string> out;
  while (true) {
    KW_ASSIGN_OR_RETURN(query::QueryResult result,
                        processor_->Process(cql, options, &client));
    auto* rows = std::get_if<query::RowsResult>(&result.result);
    if (rows == nullptr) return Status::ServerError("not rows");
    KW_ASSIGN_OR_RETURN(auto decoded, query::DecodeRows(*rows));
    for (const auto& row : decoded) {
      std::string line;
      for (size_t c = 0; c < row.size(); ++c) {
        if (c > 0) line += " | ";
        line += row[c] ? FormatValue(*rows->columns[c].type, *row[c]) : "null";
      }
      out.push_back(line);
    }
    if (!rows->paging_state) break;
    options.paging_state = *rows->paging_state;
  }
  return out;
}

bool AllSeeAllUp(const std::vector<std::unique_ptr<TestNode>>& nodes) {
  for (const auto& node : nodes) {
    size_t up = 0;
    ClusterViewPtr view = node->node().coordinator()->fence().Acquire().first;
    for (const NodeStatus& s : view->topology->nodes()) {
      up += s.up ? 1 : 0;
    }
    if (up != nodes.size()) return false;
  }
  return true;
}

void ExpectAllKeys(TestNode& node, const std::set<int>& keys) {
  auto rows = node.Rows("SELECT k, v FROM ks.t", kAll);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  std::set<std::string> got(rows->begin(), rows->end());
  size_t missing = 0;
  for (int k : keys) {
    if (!got.contains(std::to_string(k) + " | " + std::to_string(k * 7))) {
      ++missing;
    }
  }
  EXPECT_EQ(missing, 0u) << "of " << keys.size() << " acknowledged keys";
  EXPECT_EQ(got.size(), keys.size());
}

BackgroundWriters::BackgroundWriters(std::vector<TestNode*> nodes,
                                     std::vector<Consistency> levels,
                                     int first_key) {
  const int n = static_cast<int>(nodes.size());
  for (int i = 0; i < n; ++i) {
    threads_.emplace_back([this, node = nodes[static_cast<size_t>(i)],
                           level = levels[static_cast<size_t>(i) %
                                          levels.size()],
                           k = first_key + i, n]() mutable {
      for (; !stop_.load(); k += n) {
        Status st = node->Run("INSERT INTO ks.t (k, v) VALUES (" +
                                  std::to_string(k) + ", " +
                                  std::to_string(k * 7) + ")",
                              level)
                        .status();
        if (st.ok()) {
          std::lock_guard<std::mutex> lock(mu_);
          acknowledged_.insert(k);
        } else {
          ++failures_;
        }
      }
    });
  }
}

void BackgroundWriters::Stop() {
  stop_.store(true);
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

std::vector<std::unique_ptr<TestNode>> MakeTestNodes(EtcdClient* etcd,
                                                     const std::string& dir,
                                                     int n) {
  std::vector<std::unique_ptr<TestNode>> nodes;
  for (int i = 1; i <= n; ++i) {
    nodes.push_back(
        std::make_unique<TestNode>(etcd, "127.0.0." + std::to_string(i),
                                   dir + "/node" + std::to_string(i)));
  }
  return nodes;
}

bool TableEverywhere(const std::vector<std::unique_ptr<TestNode>>& nodes,
                     const std::string& keyspace, const std::string& table) {
  for (const auto& n : nodes) {
    auto t = n->engine().catalog().GetTable(keyspace, table);
    // The view requests take (the node publishes it to its coordinator a
    // moment after its own view() has it).
    if (!t.ok() || n->node()
                           .coordinator()
                           ->fence()
                           .Acquire()
                           .first->TabletsOf((*t)->id) == nullptr) {
      return false;
    }
  }
  return true;
}

bool Eventually(const std::function<bool()>& done,
                std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

}  // namespace keywise::cluster
