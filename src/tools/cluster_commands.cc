#include "tools/cluster_commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "cluster_tool/cluster_admin.h"
#include "cluster_tool/local_cluster.h"
#include "cluster_tool/node_admin.h"
#include "tools/node_commands.h"
#include "tools/snapshot_commands.h"
#include "cluster/coordinator/verbs.h"

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
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
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
  std::printf(
      "  etcd    %-15s %s\n", c.EtcdEndpoint().c_str(),
      etcd ? ("running, pid " + std::to_string(etcd)).c_str() : "stopped");
  for (int i = 1; i <= c.layout().nodes; ++i) {
    const int pid = c.NodePid(i);
    std::printf(
        "  node%-3d %-15s %s\n", i, LocalCluster::NodeAddress(i).c_str(),
        pid ? ("running, pid " + std::to_string(pid)).c_str() : "stopped");
  }
}

// How to reach the cluster: the shell's command line, and with ssl where
// the CA and the client certificate are.
void PrintConnect(const LocalCluster& c) {
  const std::string address = LocalCluster::NodeAddress(1);
  const int port = c.layout().cql_port;
  if (!c.layout().ssl) {
    std::printf("Connect with: keywise shell %s %d\n", address.c_str(), port);
    return;
  }
  const cluster_tool::LocalClusterTls tls = c.tls();
  std::printf(
      "TLS on every port. The cluster's CA: %s; a client certificate: %s "
      "(key %s)\n"
      "Connect with: keywise shell --ssl --ssl-ca %s %s %d\n"
      "Drivers: trust %s (each node's certificate names its address "
      "127.0.0.N and localhost), e.g. Python: "
      "Cluster(['%s'], port=%d, ssl_context=ssl.create_default_context("
      "cafile='%s'))\n"
      "etcd (%s) wants a client certificate: etcdctl --cacert %s --cert %s "
      "--key %s\n",
      tls.ca().c_str(), tls.client_cert().c_str(), tls.client_key().c_str(),
      tls.ca().c_str(), address.c_str(), port, tls.ca().c_str(),
      address.c_str(), port, tls.ca().c_str(), c.EtcdEndpoint().c_str(),
      tls.ca().c_str(), tls.client_cert().c_str(), tls.client_key().c_str());
}

// Polls etcd until the node at `address` is marked left; fails when its
// tablet count has not gone down for `stall`.
Status WaitUntilLeft(const std::vector<std::string>& etcd,
                     const cluster_tool::EtcdTls& tls,
                     const std::string& cluster_name,
                     const std::string& address, Seconds stall) {
  int last_held = -1;
  auto progress = std::chrono::steady_clock::now();
  while (true) {
    Result<cluster::ClusterViewPtr> view =
        cluster_tool::ReadClusterView(etcd, cluster_name, tls);
    if (view.ok()) {
      Result<cluster::NodeStatus> node =
          cluster_tool::FindNode(**view, address);
      if (!node.ok()) return node.status();
      if (node->info.state == cluster::NodeState::kLeft) return Status::OK();
      const int held =
          static_cast<int>((*view)->ReplicasHeld()[node->info.host_id]);
      if (held != last_held) {
        last_held = held;
        progress = std::chrono::steady_clock::now();
      }
    }
    if (std::chrono::steady_clock::now() - progress > stall) {
      return Status::ServerError(
          "No progress for " + std::to_string(stall.count()) + " s (" +
          std::to_string(last_held) +
          " tablet replicas still there); the nodes' logs say why (is "
          "another node up to take them?)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace

void ClusterCommands::Register(CLI::App* app) {
  cluster_ = app->add_subcommand(
      "cluster",
      "A local cluster on 127.0.0.1, 127.0.0.2, ... with its own etcd "
      "(as ccm does): start, stop, kill, status, add, decommission, remove, "
      "replace");
  cluster_
      ->add_option("action", action_,
                   "start | stop | kill | status | add | decommission | "
                   "remove | replace")
      ->required();
  cluster_->add_option(
      "node", argument_,
      "Node number for start/stop/kill/decommission/remove/replace");
  cluster_->add_option("--dir", dir_,
                       "Cluster directory (default ./keywise-cluster)");
  cluster_->add_option("--nodes", nodes_, "Nodes of a new cluster (default 3)")
      ->check(CLI::Range(1, 254));
  cluster_->add_option("--port", port_, "CQL port on every address (9042)")
      ->check(CLI::Range(1, 65535));
  cluster_
      ->add_option("--storage-port", storage_port_,
                   "Node-to-node messaging port on every address (7000)")
      ->check(CLI::Range(1, 65535));
  cluster_
      ->add_option("--etcd-port", etcd_port_,
                   "etcd client port on 127.0.0.1 (2379; the peer port "
                   "is the next one)")
      ->check(CLI::Range(1, 65534));
  cluster_->add_option(
      "--conf", settings_,
      "A setting for every node's keywise.yaml of a new cluster, as "
      "key=value (repeatable), e.g. --conf tablet_split_size_in_kb=64");
  cluster_->add_option("--timeout", timeout_s_,
                       "Seconds to wait for each process to answer (60)");
  cluster_->add_flag(
      "--ssl", ssl_,
      "A new cluster speaks TLS on every port (CQL, node to node, etcd) "
      "with certificates of its own CA, made in <dir>/tls/");

  admin_ = app->add_subcommand(
      "admin",
      "Administration: of the cluster from etcd's metadata (status, tablets, "
      "flush, compact, repair, reloadssl, decommission, removenode), of one node over "
      "CQL (info, describecluster, tablestats, tablehistograms, "
      "proxyhistograms, toppartitions, settraceprobability, "
      "gettraceprobability, snapshot, listsnapshots, clearsnapshot, "
      "restore)");
  admin_
      ->add_option("action", action_,
                   "status | tablets | flush | compact | repair | reloadssl | "
                   "decommission | removenode | info | describecluster | "
                   "tablestats | tablehistograms | proxyhistograms | "
                   "toppartitions | settraceprobability | gettraceprobability "
                   "| snapshot | listsnapshots | clearsnapshot | restore")
      ->required();
  admin_->add_option("argument", argument_,
                     "tablets: only this keyspace; repair: the keyspace; "
                     "flush/compact/reloadssl: one node (default: every up "
                     "node); "
                     "decommission/removenode: the node (host id or "
                     "address); tablestats: KEYSPACE[.TABLE]; "
                     "tablehistograms, toppartitions: the keyspace; "
                     "settraceprobability: 0 to 1; snapshot, "
                     "clearsnapshot: a keyspace; restore: the snapshot's "
                     "directory");
  admin_->add_option("table", table_,
                     "repair, tablehistograms, toppartitions, snapshot: the "
                     "table; clearsnapshot: a keyspace");
  admin_->add_option("extra", extra_,
                     "toppartitions: milliseconds to sample (1000); "
                     "clearsnapshot: a keyspace");
  admin_->add_option("-t,--tag", snapshot_.tag,
                     "snapshot, clearsnapshot: the snapshot's name (snapshot: "
                     "the time in milliseconds by default)");
  admin_->add_flag("--skip-flush", snapshot_.skip_flush,
                   "snapshot: do not flush memtables (their write-ahead log "
                   "is copied instead)");
  admin_->add_flag("--all", snapshot_.all, "clearsnapshot: every snapshot");
  admin_->add_flag("--all-nodes", all_nodes_,
                   "snapshot, listsnapshots, clearsnapshot: on every node of "
                   "the cluster (from etcd: --etcd, --cluster), with one tag");
  admin_->add_option("--keyspace", snapshot_.keyspace,
                     "restore: this keyspace only");
  admin_->add_option("--table", snapshot_.table,
                     "restore: this table only (with --keyspace)");
  admin_->add_option("--host", host_,
                     "node commands: the node's CQL address (127.0.0.1)");
  admin_->add_option("--port", admin_port_,
                     "node commands: the node's CQL port (9042)")
      ->check(CLI::Range(1, 65535));
  credentials_.Add(admin_);
  tls_.Add(admin_);
  admin_->add_option("--timeout", timeout_s_,
                     "flush/compact/repair: seconds to wait for each node "
                     "(default 60)");
  admin_->add_option("--etcd", etcd_,
                     "etcd client endpoint (127.0.0.1:2379; https://H:P for "
                     "TLS)");
  etcd_tls_.Add(admin_);
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
  bool created = false;
  if (action_ == "start" && !opened.ok() && argument_.empty()) {
    cluster_tool::LocalClusterLayout layout;
    layout.nodes = nodes_ > 0 ? nodes_ : 3;
    layout.cql_port = port_;
    layout.storage_port = storage_port_;
    layout.etcd_client_port = etcd_port_;
    layout.etcd_peer_port = etcd_port_ + 1;
    layout.ssl = ssl_;
    for (const std::string& setting : settings_) {
      const size_t eq = setting.find('=');
      if (eq == std::string::npos || eq == 0 ||
          setting.find('\n') != std::string::npos) {
        return Fail(Status::Invalid("--conf takes key=value, got '" +
                                    setting + "'"));
      }
      layout.node_settings.push_back(setting.substr(0, eq) + ": " +
                                     setting.substr(eq + 1));
    }
    opened = LocalCluster::Create(dir_, layout);
    created = opened.ok();
    if (opened.ok()) {
      std::printf(
          "Created a %d-node cluster in %s%s\n", layout.nodes,
          opened->dir().c_str(),
          layout.ssl
              ? (", its CA and certificates in " + opened->tls().dir()).c_str()
              : "");
    }
  }
  if (!opened.ok()) return Fail(opened.status());
  LocalCluster& c = *opened;
  if (!settings_.empty() && !created) {
    return Fail(Status::Invalid(
        "--conf applies only when 'keywise cluster start' creates a cluster; "
        "the one in " + c.dir() + " exists (edit its nodeN/keywise.yaml)"));
  }
  if (ssl_ && !c.layout().ssl) {
    return Fail(Status::Invalid(
        "The cluster in " + c.dir() +
        " was made without --ssl; a cluster gets TLS when it is created"));
  }
  if (nodes_ > 0 && nodes_ != c.layout().nodes) {
    return Fail(Status::Invalid("The cluster in " + c.dir() + " has " +
                                std::to_string(c.layout().nodes) +
                                " nodes; add one with 'keywise cluster add'"));
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
    PrintConnect(c);
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
    Result<cluster::ClusterViewPtr> view = cluster_tool::ReadClusterView(
        {c.EtcdEndpoint()}, c.layout().cluster_name, c.EtcdClientTls());
    if (!view.ok()) return Fail(view.status());
    Result<std::vector<cluster::LoadReport>> load = cluster_tool::ReadLoad(
        {c.EtcdEndpoint()}, c.layout().cluster_name, c.EtcdClientTls());
    if (!load.ok()) return Fail(load.status());
    std::printf("\n%s", cluster_tool::FormatStatus(**view, *load).c_str());
    return 0;
  }
  if (action_ == "add") {
    Status st = Step("Starting etcd on " + c.EtcdEndpoint(),
                     [&] { return c.StartEtcd(timeout); });
    if (!st.ok()) return Fail(st);
    Result<int> added = c.AddNode();
    if (!added.ok()) return Fail(added.status());
    st = StartNodeStep(c, *added, timeout);
    if (!st.ok()) return Fail(st);
    std::printf(
        "Node %d joined; the balancer moves tablets to it one replica at a "
        "time (keywise cluster status shows how many it holds)\n",
        *added);
    return 0;
  }
  if (action_ == "decommission" || action_ == "remove" ||
      action_ == "replace") {
    return RunLeave(c);
  }
  return Fail(Status::Invalid(
      "Unknown action '" + action_ +
      "': start, stop, kill, status, add, decommission, remove or replace"));
}

int ClusterCommands::RunLeave(LocalCluster& c) {
  const bool decommission = action_ == "decommission";
  Result<int> n = NodeNumber(argument_, c);
  if (!n.ok()) return Fail(n.status());
  if (!decommission && c.NodePid(*n) != 0) {
    return Fail(Status::Invalid("Node " + argument_ + " is running: " +
                                action_ +
                                " is for a dead node (stop or kill it first, "
                                "or decommission it)"));
  }
  const std::vector<std::string> etcd = {c.EtcdEndpoint()};
  const std::string address = LocalCluster::NodeAddress(*n);
  Result<int> replacement = 0;
  if (action_ == "replace") {
    // A new node, started with replace_address_first_boot: once joined it
    // marks the dead one leaving, and the balancer moves each of its
    // replicas to the node holding the fewest that is not already a
    // replica: the new node, which holds nothing.
    const auto timeout = Seconds(timeout_s_);
    Status st = Step("Starting etcd on " + c.EtcdEndpoint(),
                     [&] { return c.StartEtcd(timeout); });
    if (!st.ok()) return Fail(st);
    // A node killed a moment ago is up in etcd until its lease runs out.
    st = Step("Waiting for etcd to see node " + argument_ + " down", [&] {
      const auto end = std::chrono::steady_clock::now() + timeout;
      while (true) {
        KW_ASSIGN_OR_RETURN(
            cluster::ClusterViewPtr view,
            cluster_tool::ReadClusterView(etcd, c.layout().cluster_name,
                                          c.EtcdClientTls()));
        KW_ASSIGN_OR_RETURN(cluster::NodeStatus dead,
                            cluster_tool::FindNode(*view, address));
        if (dead.info.state != cluster::NodeState::kNormal) {
          return Status::Invalid(
              "it is " + std::string(cluster::NodeStateName(dead.info.state)) +
              ", not normal: `keywise cluster remove " + argument_ +
              "` waits for a node already leaving");
        }
        if (!dead.up) return Status::OK();
        if (std::chrono::steady_clock::now() > end) {
          return Status::ServerError("its lease did not run out in " +
                                     std::to_string(timeout_s_) + " s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    });
    if (!st.ok()) return Fail(st);
    replacement = c.AddNode({"replace_address_first_boot: " + address});
    if (!replacement.ok()) return Fail(replacement.status());
    st = StartNodeStep(c, *replacement, timeout);
    if (!st.ok()) return Fail(st);
  } else {
    Status st = cluster_tool::MarkLeaving(
        etcd, c.layout().cluster_name, address,
        decommission ? cluster_tool::Leave::kDecommission
                     : cluster_tool::Leave::kRemove,
        c.EtcdClientTls());
    if (!st.ok()) return Fail(st);
  }
  // Moves take as long as the data takes to stream: no fixed limit beyond
  // --timeout per move without progress.
  Status st = Step(std::string(decommission ? "Decommissioning" : "Removing") +
                " node " + argument_ + " (its tablets move to other nodes)",
            [&] {
              return WaitUntilLeft(etcd, c.EtcdClientTls(),
                                   c.layout().cluster_name, address,
                                   Seconds(timeout_s_));
            });
  if (!st.ok()) return Fail(st);
  if (decommission) {
    st = Step("Stopping node " + argument_,
              [&] { return c.StopNode(*n, false, Seconds(timeout_s_)); });
    if (!st.ok()) return Fail(st);
  }
  if (action_ == "replace") {
    std::printf("Node %d replaced node %d\n", *replacement, *n);
  }
  return 0;
}

int ClusterCommands::RunAdmin() {
  if (IsSnapshotCommand(action_)) {
    std::vector<std::string> arguments;
    for (const std::string* a : {&argument_, &table_, &extra_}) {
      if (!a->empty()) arguments.push_back(*a);
    }
    if (all_nodes_) return RunSnapshotOnEveryNode(arguments);
    return RunSnapshotCommand(action_, arguments, snapshot_, host_,
                              admin_port_, credentials_, tls_);
  }
  if (IsNodeCommand(action_)) {
    std::vector<std::string> arguments;
    for (const std::string* a : {&argument_, &table_, &extra_}) {
      if (!a->empty()) arguments.push_back(*a);
    }
    return RunNodeCommand(action_, arguments, host_, admin_port_, credentials_,
                          tls_);
  }
  Result<cluster_tool::EtcdTls> tls = etcd_tls_.Options(etcd_);
  if (!tls.ok()) return Fail(tls.status());
  Result<cluster::ClusterViewPtr> view =
      cluster_tool::ReadClusterView({etcd_}, cluster_name_, *tls);
  if (!view.ok()) return Fail(view.status());
  if (action_ == "status" || action_ == "tablets" || action_ == "ring") {
    Result<std::vector<cluster::LoadReport>> load =
        cluster_tool::ReadLoad({etcd_}, cluster_name_, *tls);
    if (!load.ok()) return Fail(load.status());
    std::printf("%s", action_ == "status"
                          ? cluster_tool::FormatStatus(**view, *load).c_str()
                          : cluster_tool::FormatTablets(**view, *load,
                                                        argument_)
                                .c_str());
    return 0;
  }
  if (action_ == "decommission" || action_ == "removenode") {
    if (argument_.empty()) {
      return Fail(Status::Invalid("keywise admin " + action_ +
                                  " needs a node (host id or address)"));
    }
    Status st = cluster_tool::MarkLeaving(
        {etcd_}, cluster_name_, argument_,
        action_ == "decommission" ? cluster_tool::Leave::kDecommission
                                  : cluster_tool::Leave::kRemove,
        *tls);
    if (!st.ok()) return Fail(st);
    std::printf(
        "Node %s is leaving: the balancer moves its tablets to other nodes, "
        "then marks it left (keywise admin status: L, then X)\n",
        argument_.c_str());
    return 0;
  }
  if (action_ == "flush" || action_ == "compact" || action_ == "reloadssl") {
    return RunNodeMaintenance(**view);
  }
  if (action_ == "repair") return RunRepair(**view);
  return Fail(Status::Invalid(
      "Unknown admin action '" + action_ +
      "': status, tablets, flush, compact, repair, reloadssl, decommission or "
      "removenode"));
}

int ClusterCommands::RunNodeMaintenance(const cluster::ClusterView& view) {
  // One node (by host id or address), or every up node.
  std::vector<cluster::NodeStatus> nodes;
  if (!argument_.empty()) {
    Result<cluster::NodeStatus> node = cluster_tool::FindNode(view, argument_);
    if (!node.ok()) return Fail(node.status());
    if (!node->up) {
      return Fail(Status::Invalid("Node " + node->info.listen_address +
                                  " is down"));
    }
    nodes.push_back(*node);
  } else {
    for (const cluster::NodeStatus& n : view.topology->nodes()) {
      if (n.up) nodes.push_back(n);
    }
  }
  Result<std::unique_ptr<cluster_tool::NodeAdmin>> admin = MakeNodeAdmin();
  if (!admin.ok()) return Fail(admin.status());
  const cluster::Verb verb = action_ == "flush"     ? cluster::kFlushVerb
                             : action_ == "compact" ? cluster::kCompactVerb
                                                    : cluster::kReloadSslVerb;
  const std::string what = action_ == "flush"     ? "Flushing"
                           : action_ == "compact" ? "Compacting"
                                                  : "Checking the certificates of";
  for (const cluster::NodeStatus& n : nodes) {
    std::string answer;
    Status st = Step(what + " node " + n.info.listen_address, [&] {
      Result<std::string> r =
          (*admin)->Ask(n.info, verb, "", std::chrono::seconds(timeout_s_));
      if (r.ok()) answer = std::move(*r);
      return r.status();
    });
    std::printf("%s", answer.c_str());  // reloadssl: a line per context
    if (!st.ok()) return Fail(st);
  }
  return 0;
}

int ClusterCommands::RunSnapshotOnEveryNode(
    const std::vector<std::string>& arguments) {
  if (action_ == "restore") {
    return Fail(Status::Invalid(
        "restore loads one snapshot directory through one node: "
        "--all-nodes does not apply"));
  }
  Result<cluster_tool::EtcdTls> etcd_tls = etcd_tls_.Options(etcd_);
  if (!etcd_tls.ok()) return Fail(etcd_tls.status());
  Result<cluster::ClusterViewPtr> view =
      cluster_tool::ReadClusterView({etcd_}, cluster_name_, *etcd_tls);
  if (!view.ok()) return Fail(view.status());
  // One tag for every node, so the snapshots belong together.
  SnapshotFlags flags = snapshot_;
  if (action_ == "snapshot" && flags.tag.empty()) {
    flags.tag = std::to_string(
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count());
  }
  int status = 0;
  for (const cluster::NodeStatus& n : (*view)->topology->nodes()) {
    const std::string& address = n.info.rpc_address.empty()
                                     ? n.info.listen_address
                                     : n.info.rpc_address;
    std::printf("Node %s:\n", address.c_str());
    std::fflush(stdout);
    if (!n.up) {
      std::fprintf(stderr, "error: node %s is down: not asked\n",
                   address.c_str());
      status = 1;
      continue;
    }
    const int node_status =
        RunSnapshotCommand(action_, arguments, flags, address,
                           n.info.native_port, credentials_, tls_);
    status = std::max(status, node_status);
  }
  return status;
}

Result<std::unique_ptr<cluster_tool::NodeAdmin>>
ClusterCommands::MakeNodeAdmin() const {
  cluster::MessagingTls tls;
  if (tls_.ssl) {
    KW_ASSIGN_OR_RETURN(std::shared_ptr<boost::asio::ssl::context> context,
                        tls_.Context());
    KW_ASSIGN_OR_RETURN(
        tls.outgoing,
        net::TlsContextHolder::Create("--ssl", {}, [context] {
          return Result<net::TlsContextHolder::Context>(context);
        }));
    tls.verify_peer_address = tls_.Verify();
  }
  return cluster_tool::NodeAdmin::Create(std::move(tls));
}

int ClusterCommands::RunRepair(const cluster::ClusterView& view) {
  Result<std::unique_ptr<cluster_tool::NodeAdmin>> admin = MakeNodeAdmin();
  if (!admin.ok()) return Fail(admin.status());
  const std::string what =
      argument_.empty() ? "every replicated table"
                        : argument_ + (table_.empty() ? "" : "." + table_);
  // Any up node coordinates the repair of every tablet asked for; one that
  // cannot be reached (down, and etcd does not know yet) hands over to the
  // next.
  Result<std::string> summary =
      Status::Invalid("No node is up to run the repair");
  for (const cluster::NodeStatus& n : view.topology->nodes()) {
    if (!n.up || n.info.state != cluster::NodeState::kNormal) continue;
    std::printf("Repairing %s through node %s ...\n", what.c_str(),
                n.info.listen_address.c_str());
    std::fflush(stdout);
    bool reached = false;
    summary = (*admin)->Ask(n.info, cluster::kRepairTablesVerb,
                            cluster::EncodeRepairRequest({argument_, table_}),
                            std::chrono::seconds(timeout_s_), &reached);
    if (reached) break;
  }
  if (!summary.ok()) return Fail(summary.status());
  std::printf("%s", summary->c_str());
  // A tablet left out (a replica down) fails the command, as Cassandra's
  // repair fails.
  return summary->find("Not repaired") == std::string::npos ? 0 : 1;
}

}  // namespace keywise
