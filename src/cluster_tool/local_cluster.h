// LocalCluster: a cluster of Keywise processes on one machine, on the
// loopback addresses 127.0.0.1 .. 127.0.0.N (the same CQL port on each),
// coordinated by one etcd on 127.0.0.1, all kept in one directory:
//
//   D/cluster.conf        the layout (key=value lines)
//   D/etcd/               etcd's data, etcd.log, pid
//   D/nodeI/keywise.yaml  node I's configuration
//   D/nodeI/data/         its data; keywise.log and pid beside it
//   D/tls/                with --ssl: the cluster's CA and every
//                         certificate (local_cluster_tls.h)
//
// Contract: not thread-safe; one command at a time on a directory.
// Processes run detached (their own session), so they outlive the command
// that started them; a pid file names each, and a process counts as
// running only if that pid is alive and runs the expected binary.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cluster_tool/cluster_admin.h"
#include "cluster_tool/local_cluster_tls.h"
#include "common/status.h"

namespace keywise::cluster_tool {

struct LocalClusterLayout {
  std::string cluster_name = "keywise";
  int nodes = 3;
  int cql_port = 9042;
  int storage_port = 7000;
  int etcd_client_port = 2379;
  int etcd_peer_port = 2380;
  // Settings added to every node's keywise.yaml, each "key: value" (from
  // `keywise cluster start --conf key=value`, as ccm's updateconf).
  std::vector<std::string> node_settings;
  // `keywise cluster start --ssl`: TLS on every port (CQL, messaging,
  // etcd's clients) with certificates of the cluster's own CA; kept in
  // cluster.conf as ssl=1.
  bool ssl = false;
};

class LocalCluster {
 public:
  // The cluster in `dir`: NotFound when it has no cluster.conf.
  static Result<LocalCluster> Open(const std::string& dir);
  // Writes the layout and every node's configuration into `dir` (which
  // must not hold a cluster yet); with layout.ssl the CA and every
  // certificate too.
  static Result<LocalCluster> Create(const std::string& dir,
                                     LocalClusterLayout layout);

  const LocalClusterLayout& layout() const { return layout_; }
  const std::string& dir() const { return dir_; }
  // "127.0.0.I"; REQUIRES 1 <= i <= nodes.
  static std::string NodeAddress(int i);
  // etcd's client URL: "127.0.0.1:P", or "https://127.0.0.1:P" with ssl.
  std::string EtcdEndpoint() const;
  // Where the TLS files are (they exist only with layout().ssl).
  LocalClusterTls tls() const { return LocalClusterTls(dir_); }
  // What the CLI's etcd clients present with ssl (the CA and the client
  // certificate); nullopt without.
  EtcdTls EtcdClientTls() const;
  std::string NodeDir(int i) const;

  // Adds node `nodes + 1` to the layout (its directory and configuration,
  // with `extra` "key: value" lines for it alone, and with ssl its
  // certificate from the saved CA); returns its number. It is not started.
  Result<int> AddNode(const std::vector<std::string>& extra = {});

  // Starts etcd (if not running) and waits until it answers.
  Status StartEtcd(std::chrono::seconds timeout);
  // Starts node `i` (if not running) and waits until it answers CQL.
  Status StartNode(int i, std::chrono::seconds timeout);
  // SIGTERM (a clean stop, waiting up to `timeout`) or SIGKILL.
  Status StopNode(int i, bool kill, std::chrono::seconds timeout);
  Status StopEtcd(std::chrono::seconds timeout);

  // The pid of a running node / etcd, or 0.
  int NodePid(int i) const;
  int EtcdPid() const;

 private:
  LocalCluster(std::string dir, LocalClusterLayout layout)
      : dir_(std::move(dir)), layout_(layout) {}
  Status CheckNode(int i) const;
  Status MakeNodeDir(int i, const std::vector<std::string>& extra = {}) const;
  Status WriteConf() const;

  std::string dir_;
  LocalClusterLayout layout_;
};

}  // namespace keywise::cluster_tool
