// LocalCluster: a cluster of Keywise processes on one machine, on the
// loopback addresses 127.0.0.1 .. 127.0.0.N (the same CQL port on each),
// coordinated by one etcd on 127.0.0.1, all kept in one directory:
//
//   D/cluster.conf        the layout (key=value lines)
//   D/etcd/               etcd's data, etcd.log, pid
//   D/nodeI/keywise.yaml  node I's configuration
//   D/nodeI/data/         its data; keywise.log and pid beside it
//
// Contract: not thread-safe; one command at a time on a directory.
// Processes run detached (their own session), so they outlive the command
// that started them; a pid file names each, and a process counts as
// running only if that pid is alive and runs the expected binary.
#pragma once

#include <chrono>
#include <string>
#include <vector>

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
};

class LocalCluster {
 public:
  // The cluster in `dir`: NotFound when it has no cluster.conf.
  static Result<LocalCluster> Open(const std::string& dir);
  // Writes the layout and every node's configuration into `dir` (which
  // must not hold a cluster yet).
  static Result<LocalCluster> Create(const std::string& dir,
                                     LocalClusterLayout layout);

  const LocalClusterLayout& layout() const { return layout_; }
  const std::string& dir() const { return dir_; }
  // "127.0.0.I"; REQUIRES 1 <= i <= nodes.
  static std::string NodeAddress(int i);
  std::string EtcdEndpoint() const;
  std::string NodeDir(int i) const;

  // Adds node `nodes + 1` to the layout (its directory and configuration,
  // with `extra` "key: value" lines for it alone); returns its number. It
  // is not started.
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
