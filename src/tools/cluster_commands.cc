#include "tools/cluster_commands.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cluster_tool/cluster_admin.h"
#include "cluster_tool/local_cluster.h"

namespace keywise {
namespace {

using cluster_tool::LocalCluster;
using Seconds = std::chrono::seconds;

int Fail(const Status& st) {
  std::fprintf(stderr, "keywise: %s\n", st.message().c_str());
  return 1;
}

// Runs `step`, printing "<what> ... ok (1.2 s)" or the error.
Status Step(const std::string& what, const std::function<Status()>& step) {
  std::printf("%s ... ", what.c_str());
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  Status st = step();
  const double s = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  std::printf(st.ok() ? "ok (%.1f s)\n" : "failed (%.1f s)\n", s);
  std::fflush(stdout);
  return st;
}

Result<int> NodeNumber(const std::string& text, const LocalCluster& c) {
  char* end = nullptr;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n < 1 || n > c.layout().nodes) {
    return Status::Invalid("'" + text + "' is not a node of the cluster (1.." +
                           std::to_string(c.layout().nodes) + ")");
  }
  return static_cast<int>(n);
}

Status StartNodeStep(LocalCluster& c, int i, Seconds timeout) {
  return Step("Starting node " + std::to_string(i) + " on " +
                  LocalCluster::NodeAddress(i) + ":" +
                  std::to_string(c.layout().cql_port),
              [&] { return c.StartNode(i, timeout); });
}

void PrintProcesses(const LocalCluster& c) {
  std::printf("Cluster '%s' in %s\n", c.layout().cluster_name.c_str(),
              c.dir().c_str());
  const int etcd = c.EtcdPid();
  std::printf("  etcd    %-15s %s\n", c.EtcdEndpoint().c_str(),
              etcd ? ("running, pid " + std::to_string(etcd)).c_str()
                   : "stopped");
  for (int i = 1; i <= c.layout().nodes; ++i) {
    const int pid = c.NodePid(i);
    std::printf("  node%-3d %-15s %s\n", i, LocalCluster::NodeAddress(i).c_str(),
                pid ? ("running, pid " + std::to_string(pid)).c_str()
                    : "stopped");
  }
}

}  // namespace

void ClusterCommands::Register(CLI::App* app) {
  cluster_ = app->add_subcommand(
      "cluster",
      "A local cluster on 127.0.0.1, 127.0.0.2, ... with its own etcd "
      "(as ccm does): start, stop, kill, status");
  cluster_->add_option("action", action_,
                       "start | stop | kill | status (add, decommission and "
                       "remove are not supported yet)")
      ->required();
  cluster_->add_option("node", argument_, "Node number for start/stop/kill");
  cluster_->add_option("--dir", dir_, "Cluster directory (default ./keywise-cluster)");
  cluster_->add_option("--nodes", nodes_, "Nodes of a new cluster (default 3)")
      ->check(CLI::Range(1, 254));
  cluster_->add_option("--port", port_, "CQL port on every address (9042)")
      ->check(CLI::Range(1, 65535));
  cluster_->add_option("--storage-port", storage_port_,
                       "Node-to-node messaging port on every address (7000)")
      ->check(CLI::Range(1, 65535));
  cluster_->add_option("--etcd-port", etcd_port_,
                       "etcd client port on 127.0.0.1 (2379; the peer port "
                       "is the next one)")
      ->check(CLI::Range(1, 65534));
  cluster_->add_option("--timeout", timeout_s_,
                       "Seconds to wait for each process to answer (60)");

  admin_ = app->add_subcommand(
      "admin", "Cluster administration from etcd's metadata: status, tablets");
  admin_->add_option("action", action_, "status | tablets")->required();
  admin_->add_option("keyspace", argument_, "tablets: only this keyspace");
  admin_->add_option("--etcd", etcd_, "etcd client endpoint (127.0.0.1:2379)");
  admin_->add_option("--cluster", cluster_name_,
                     "cluster_name of the nodes (default 'Test Cluster')");
  cluster_name_ = "Test Cluster";
}

int ClusterCommands::Run() {
  if (cluster_ != nullptr && cluster_->parsed()) return RunCluster();
  if (admin_ != nullptr && admin_->parsed()) return RunAdmin();
  return -1;
}

int ClusterCommands::RunCluster() {
  const Seconds timeout(timeout_s_);
  Result<LocalCluster> opened = LocalCluster::Open(dir_);
  if (action_ == "start" && !opened.ok() && argument_.empty()) {
    cluster_tool::LocalClusterLayout layout;
    layout.nodes = nodes_ > 0 ? nodes_ : 3;
    layout.cql_port = port_;
    layout.storage_port = storage_port_;
    layout.etcd_client_port = etcd_port_;
    layout.etcd_peer_port = etcd_port_ + 1;
    opened = LocalCluster::Create(dir_, layout);
    if (opened.ok()) {
      std::printf("Created a %d-node cluster in %s\n", layout.nodes,
                  opened->dir().c_str());
    }
  }
  if (!opened.ok()) return Fail(opened.status());
  LocalCluster& c = *opened;
  if (nodes_ > 0 && nodes_ != c.layout().nodes) {
    return Fail(Status::Invalid(
        "The cluster in " + c.dir() + " has " +
        std::to_string(c.layout().nodes) +
        " nodes; adding nodes is not supported yet"));
  }

  if (action_ == "start") {
    Status st = Step("Starting etcd on " + c.EtcdEndpoint(),
                     [&] { return c.StartEtcd(timeout); });
    if (!st.ok()) return Fail(st);
    if (!argument_.empty()) {
      Result<int> n = NodeNumber(argument_, c);
      if (!n.ok()) return Fail(n.status());
      st = StartNodeStep(c, *n, timeout);
      return st.ok() ? 0 : Fail(st);
    }
    for (int i = 1; i <= c.layout().nodes; ++i) {
      st = StartNodeStep(c, i, timeout);
      if (!st.ok()) return Fail(st);
    }
    std::printf("Connect with: keywise shell %s %d\n",
                LocalCluster::NodeAddress(1).c_str(), c.layout().cql_port);
    return 0;
  }
  if (action_ == "stop") {
    if (!argument_.empty()) {
      Result<int> n = NodeNumber(argument_, c);
      if (!n.ok()) return Fail(n.status());
      Status st = Step("Stopping node " + argument_,
                       [&] { return c.StopNode(*n, false, timeout); });
      return st.ok() ? 0 : Fail(st);
    }
    for (int i = 1; i <= c.layout().nodes; ++i) {
      Status st = Step("Stopping node " + std::to_string(i),
                       [&] { return c.StopNode(i, false, timeout); });
      if (!st.ok()) return Fail(st);
    }
    Status st = Step("Stopping etcd", [&] { return c.StopEtcd(timeout); });
    return st.ok() ? 0 : Fail(st);
  }
  if (action_ == "kill") {
    Result<int> n = NodeNumber(argument_, c);
    if (!n.ok()) return Fail(n.status());
    Status st = c.StopNode(*n, true, timeout);
    if (!st.ok()) return Fail(st);
    std::printf("Killed node %d (SIGKILL)\n", *n);
    return 0;
  }
  if (action_ == "status") {
    PrintProcesses(c);
    if (c.EtcdPid() == 0) return 0;
    Result<cluster::ClusterViewPtr> view =
        cluster_tool::ReadClusterView({c.EtcdEndpoint()}, c.layout().cluster_name);
    if (!view.ok()) return Fail(view.status());
    std::printf("\n%s", cluster_tool::FormatStatus(**view).c_str());
    return 0;
  }
  if (action_ == "add" || action_ == "decommission" || action_ == "remove") {
    return Fail(Status::Invalid(
        "keywise cluster " + action_ +
        " is not supported yet: tablets do not move between nodes yet"));
  }
  return Fail(Status::Invalid("Unknown action '" + action_ +
                              "': start, stop, kill or status"));
}

int ClusterCommands::RunAdmin() {
  Result<cluster::ClusterViewPtr> view =
      cluster_tool::ReadClusterView({etcd_}, cluster_name_);
  if (!view.ok()) return Fail(view.status());
  if (action_ == "status") {
    std::printf("%s", cluster_tool::FormatStatus(**view).c_str());
    return 0;
  }
  if (action_ == "tablets" || action_ == "ring") {
    std::printf("%s", cluster_tool::FormatTablets(**view, argument_).c_str());
    return 0;
  }
  return Fail(Status::Invalid(
      "Unknown admin action '" + action_ +
      "': status or tablets (repair, flush and compact are not supported yet)"));
}

}  // namespace keywise
