// The keys of one cluster in etcd (docs/cluster.md, "Keys in etcd"), all
// under /keywise/<cluster_name>/, except the nodes' load reports under
// /keywise-load/<cluster_name>/: every node watches the first prefix, and
// reports rewritten every few seconds should not wake it.
//
// Contract: pure functions. The layout is stored: never rename a key.
#pragma once

#include <string>
#include <string_view>

#include "common/uuid.h"

namespace keywise::cluster {

class ClusterKeys {
 public:
  explicit ClusterKeys(std::string_view cluster_name)
      : root_("/keywise/" + std::string(cluster_name) + "/"),
        load_root_("/keywise-load/" + std::string(cluster_name) + "/"),
        builds_root_("/keywise-builds/" + std::string(cluster_name) + "/") {}

  const std::string& root() const { return root_; }
  std::string NodesPrefix() const { return root_ + "nodes/"; }
  std::string Node(const Uuid& host_id) const {
    return NodesPrefix() + host_id.ToString();
  }
  std::string AlivePrefix() const { return root_ + "alive/"; }
  std::string Alive(const Uuid& host_id) const {
    return AlivePrefix() + host_id.ToString();
  }
  std::string Schema() const { return root_ + "schema"; }
  std::string TabletsPrefix() const { return root_ + "tablets/"; }
  std::string Tablets(const Uuid& table_id) const {
    return TabletsPrefix() + table_id.ToString();
  }
  std::string Balancer() const { return root_ + "balancer"; }
  // The fence (fence.h): decimal etcd revision.
  std::string Fence() const { return root_ + "fence"; }
  // Nodes that finished their part of a view's backfill (views/
  // view_builder.h): one key per node under the view's prefix.
  const std::string& ViewBuildsRoot() const { return builds_root_; }
  std::string ViewBuildPrefix(const Uuid& view_id) const {
    return builds_root_ + view_id.ToString() + "/";
  }
  std::string ViewBuild(const Uuid& view_id, const Uuid& host_id) const {
    return ViewBuildPrefix(view_id) + host_id.ToString();
  }
  const std::string& LoadPrefix() const { return load_root_; }
  std::string Load(const Uuid& host_id) const {
    return load_root_ + host_id.ToString();
  }

  // The host id at the end of a nodes/ or alive/ key; false otherwise.
  bool HostIdOf(std::string_view key, std::string_view prefix,
                Uuid* host_id) const;

 private:
  std::string root_;
  std::string load_root_;
  std::string builds_root_;
};

}  // namespace keywise::cluster
