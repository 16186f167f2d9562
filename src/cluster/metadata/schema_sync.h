// SchemaSync: the node's catalog kept equal to the cluster's schema in etcd
// (docs/cluster.md, "The schema").
//
//   - Every DDL of this node passes the catalog's commit gate (Gate):
//     one etcd transaction that compares the schema key's mod_revision with
//     the revision this node last applied and, if it still holds, writes
//     the new encoded schema and creates (or deletes) the tablet maps of
//     the tables the DDL creates (or drops). A lost race is
//     query::SchemaConflict(), which makes the DDL catch up and run again.
//   - Every schema written by another node reaches Apply (from the
//     metadata watch), which replaces the catalog (Catalog::Replace: storage
//     settings, system_schema.*, system.local.schema_version follow) and
//     deletes the local data of dropped tables.
//
// Contract: thread-safe. Gate runs under the catalog's DDL mutex and takes
// no lock of this class (an atomic revision only); Apply and CatchUp are
// serialized by an internal mutex and call Catalog::Replace. The view
// function returns the newest published ClusterView; `created` receives the
// tablet maps of a successful gate (the caller publishes them at once, so
// a write right after CREATE TABLE on this node finds its tablets).
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/metadata/cluster_view.h"
#include "query/expr/result.h"
#include "cluster/etcd/etcd_client.h"
#include "common/status.h"
#include "storage/engine.h"

namespace keywise::cluster {

struct SchemaSyncOptions {
  int initial_tablets = 0;  // 0: next power of two >= 2 x data nodes
  // Told what changed each time a schema another node committed is applied
  // here (may be empty); called on the applying thread, after the catalog
  // published the schema.
  std::function<void(const std::vector<query::SchemaChangeResult>&)>
      on_remote_changes;
};

class SchemaSync {
 public:
  using ViewFn = std::function<ClusterViewPtr()>;
  using CreatedFn =
      std::function<void(int64_t revision, std::vector<TabletMapPtr> created,
                         std::vector<Uuid> dropped)>;

  // `etcd` and `engine` must outlive the SchemaSync.
  SchemaSync(EtcdClient* etcd, ClusterKeys keys, Engine* engine,
             SchemaSyncOptions options, ViewFn view, CreatedFn created);

  // Makes the catalog the cluster's schema if etcd has one (a node that
  // missed DDL while down catches up here), then installs the gate.
  Status Start();

  // The catalog's commit gate (Catalog::SetCommitGate).
  Status Gate(const SchemaSnapshot& current, const SchemaSnapshot& next,
              const std::string& encoded);

  // A view arrived: applies its schema when it is newer than the catalog's.
  Status Apply(const ClusterView& view);

  // Reads the schema from etcd (linearizably) and applies it if newer.
  Status CatchUp();

  // The etcd revision of the schema the catalog holds (0: none yet).
  int64_t applied_revision() const { return applied_.load(); }

 private:
  // Replaces the catalog with `encoded` (etcd revision `revision`) and
  // drops the data of tables it no longer has. REQUIRES: apply_mu_ held.
  Status ApplyEncoded(const std::string& encoded, int64_t revision);

  EtcdClient* const etcd_;
  const ClusterKeys keys_;
  Engine* const engine_;
  const SchemaSyncOptions options_;
  const ViewFn view_;
  const CreatedFn created_;
  std::atomic<int64_t> applied_{0};
  std::mutex apply_mu_;  // serializes Apply and CatchUp
};

}  // namespace keywise::cluster
