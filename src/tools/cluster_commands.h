// `keywise cluster` (a local cluster on 127.0.0.x, ccm's habits) and
// `keywise admin` (nodetool's habits), as CLI11 subcommands:
//
//   keywise cluster start [--nodes N] [--dir D] [--port P] [--etcd-port E]
//                         [--storage-port S] [--conf key=value ...] [--ssl]
//   keywise cluster start N | stop [N] | kill N | status   [--dir D]
//   keywise cluster add | decommission N | remove N        [--dir D]
//   keywise admin status | tablets [KEYSPACE] | flush [NODE] |
//                 compact [NODE] | repair [KEYSPACE [TABLE]] |
//                 decommission NODE | removenode NODE
//                 [--etcd H:P | https://H:P] [--etcd-cacert F]
//                 [--etcd-cert F] [--etcd-key F] [--cluster NAME]
//                 [--timeout S]
//   keywise admin info | describecluster | tablestats [KS[.T]] |
//                 tablehistograms KS T | proxyhistograms |
//                 toppartitions KS T [MS] | settraceprobability P |
//                 gettraceprobability   [--host H] [--port P]
//                 (one node, over CQL: tools/node_commands.h)
//
// Contract: Register once before parsing; Run after parsing returns the
// exit status of the command that was parsed, or -1 if neither was.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "cluster_tool/local_cluster.h"
#include "cluster_tool/node_admin.h"
#include "tools/credential_flags.h"
#include "tools/etcd_tls_flags.h"
#include "tools/snapshot_commands.h"

namespace keywise {

class ClusterCommands {
 public:
  void Register(CLI::App* app);
  int Run();

 private:
  int RunCluster();
  int RunAdmin();
  // admin flush | compact [NODE], admin repair [KEYSPACE [TABLE]]
  int RunNodeMaintenance(const cluster::ClusterView& view);
  int RunRepair(const cluster::ClusterView& view);
  // A snapshot command on every node the cluster's metadata lists, over
  // CQL to each; 1 when a node is down or failed.
  int RunSnapshotOnEveryNode(const std::vector<std::string>& arguments);
  // The messaging client of flush, compact, repair and reloadssl, with
  // the TLS flags' certificate when --ssl is given.
  Result<std::unique_ptr<cluster_tool::NodeAdmin>> MakeNodeAdmin() const;
  // decommission N / remove N of a local cluster.
  int RunLeave(cluster_tool::LocalCluster& c);

  CLI::App* cluster_ = nullptr;
  CLI::App* admin_ = nullptr;
  std::string action_;
  std::string argument_;
  std::string dir_ = "keywise-cluster";
  int nodes_ = 0;
  int port_ = 9042;
  int storage_port_ = 7000;
  int etcd_port_ = 2379;
  int timeout_s_ = 60;
  std::vector<std::string> settings_;  // --conf key=value
  bool ssl_ = false;                   // cluster start --ssl
  std::string table_;                  // admin repair KEYSPACE TABLE
  std::string extra_;                  // admin toppartitions KS T MS
  std::string host_ = "127.0.0.1";     // admin's node commands
  CredentialFlags credentials_;        // admin's node commands
  TlsFlags tls_;                       // admin's CQL and messaging ones
  SnapshotFlags snapshot_;             // admin's snapshot commands
  bool all_nodes_ = false;             // ... on every node
  int admin_port_ = 9042;
  std::string etcd_ = "127.0.0.1:2379";
  EtcdTlsFlags etcd_tls_;  // admin's etcd commands
  std::string cluster_name_ = "keywise";
};

}  // namespace keywise
