#include "cluster/metadata/schema_sync.h"

#include <algorithm>
#include <set>
#include <utility>

#include "cluster/metadata/metadata_json.h"
#include "cluster/metadata/replication.h"
#include "cluster/metadata/schema_diff.h"
#include "common/log.h"
#include "query/exec/schema_service.h"
#include "schema/schema_snapshot.h"
#include "schema/system_keyspace_names.h"

namespace keywise::cluster {
namespace {

// Tables of `a` whose id `b` lacks.
std::vector<TableDefPtr> Missing(const SchemaSnapshot& a,
                                 const SchemaSnapshot& b) {
  std::set<Uuid> ids;
  for (const auto& [name, table] : b.tables) ids.insert(table->id);
  std::vector<TableDefPtr> out;
  for (const auto& [name, table] : a.tables) {
    if (ids.count(table->id) == 0) out.push_back(table);
  }
  return out;
}

Result<ReplicationSpec> SpecOf(const SchemaSnapshot& schema,
                               const std::string& keyspace) {
  KeyspaceDefPtr ks = schema.FindKeyspace(keyspace);
  if (ks == nullptr) return Status::Invalid("Unknown keyspace " + keyspace);
  return ParseReplication(*ks);
}

}  // namespace

SchemaSync::SchemaSync(EtcdClient* etcd, ClusterKeys keys, Engine* engine,
                       SchemaSyncOptions options, ViewFn view,
                       CreatedFn created)
    : etcd_(etcd),
      keys_(std::move(keys)),
      engine_(engine),
      options_(options),
      view_(std::move(view)),
      created_(std::move(created)) {}

Status SchemaSync::Start() {
  // A data directory that was used by another cluster, or alone, stores
  // its tables under storage ids the cluster may use for other tables.
  KW_ASSIGN_OR_RETURN(RangeResult got, etcd_->Get(keys_.Schema()));
  if (!got.kvs.empty()) {
    KW_ASSIGN_OR_RETURN(SchemaSnapshot cluster,
                        DecodeSchemaSnapshot(got.kvs[0].value));
    const SchemaSnapshotPtr schema = engine_->catalog().snapshot();
    for (const auto& [name, mine] : schema->tables) {
      TableDefPtr theirs = cluster.FindTable(name.first, name.second);
      if (theirs != nullptr &&
          (theirs->id != mine->id || theirs->storage_id != mine->storage_id)) {
        return Status::ConfigError(
            "This data directory holds table " + name.first + "." +
            name.second +
            " of another cluster (or of a node that ran alone); start the "
            "node with an empty data directory to join this cluster");
      }
    }
  }
  KW_RETURN_IF_ERROR(CatchUp());
  engine_->catalog().SetCommitGate([this](const SchemaSnapshot& current,
                                          const SchemaSnapshot& next,
                                          const std::string& encoded) {
    return Gate(current, next, encoded);
  });
  return Status::OK();
}

Status SchemaSync::Gate(const SchemaSnapshot& current,
                        const SchemaSnapshot& next,
                        const std::string& encoded) {
  ClusterViewPtr view = view_();
  const int64_t expected = applied_.load();
  std::vector<Compare> compares = {
      Compare::ModRevision(keys_.Schema(), CompareOp::kEqual, expected)};
  std::vector<TxnOp> ops = {TxnOp::Put(keys_.Schema(), encoded)};

  // A keyspace whose replication changed keeps its tablet maps: the
  // balancer adds or drops replicas until they match (balancer.h).
  std::vector<TabletMapPtr> created;
  for (const TableDefPtr& table : Missing(next, current)) {
    KW_ASSIGN_OR_RETURN(ReplicationSpec spec, SpecOf(next, table->keyspace));
    // system_auth, system_distributed and system_traces stay node-local
    // until tablets can move: their tables are created by the first node
    // before any node has joined, so they would have no replicas.
    if (!spec.Replicated() || IsReplicatedSystemKeyspace(table->keyspace)) {
      continue;
    }
    auto map = std::make_shared<TabletMap>();
    map->table_id = table->id;
    map->keyspace = table->keyspace;
    map->table = table->name;
    // A salted table starts with a tablet per salt bucket at least, so
    // that each bucket's writes land on a tablet of their own.
    const uint32_t log2 = std::max(
        InitialTabletLog2(options_.initial_tablets,
                          view->topology->DataNodes().size()),
        Log2Ceil(static_cast<uint32_t>(
            std::max<int32_t>(1, table->options.salt_buckets))));
    map->tablets = PlaceTablets(spec, *view->topology, uint32_t{1} << log2);
    map->SetEvenBoundaries();
    ops.push_back(TxnOp::Put(keys_.Tablets(table->id), EncodeTabletMap(*map)));
    created.push_back(std::move(map));
  }
  std::vector<Uuid> dropped;
  for (const TableDefPtr& table : Missing(current, next)) {
    if (view->TabletsOf(table->id) == nullptr) continue;
    ops.push_back(TxnOp::Delete(KeyRange::Single(keys_.Tablets(table->id))));
    dropped.push_back(table->id);
  }
  Result<TxnResult> txn = etcd_->Txn(compares, ops, {});
  if (!txn.ok()) {
    return Status::ServerError(
        "Schema changes need etcd, which did not answer: " +
        txn.status().message());
  }
  if (!txn->succeeded) return query::SchemaConflict();
  applied_.store(txn->revision);
  created_(txn->revision, std::move(created), std::move(dropped));
  return Status::OK();
}

Status SchemaSync::Apply(const ClusterView& view) {
  if (!view.schema || view.schema_revision <= applied_.load()) {
    return Status::OK();
  }
  std::lock_guard<std::mutex> lock(apply_mu_);
  if (view.schema_revision <= applied_.load()) return Status::OK();
  return ApplyEncoded(*view.schema, view.schema_revision);
}

Status SchemaSync::CatchUp() {
  KW_ASSIGN_OR_RETURN(RangeResult got, etcd_->Get(keys_.Schema()));
  if (got.kvs.empty()) return Status::OK();  // the first node seeds it
  std::lock_guard<std::mutex> lock(apply_mu_);
  if (got.kvs[0].mod_revision <= applied_.load()) return Status::OK();
  return ApplyEncoded(got.kvs[0].value, got.kvs[0].mod_revision);
}

Status SchemaSync::ApplyEncoded(const std::string& encoded, int64_t revision) {
  KW_ASSIGN_OR_RETURN(SchemaSnapshot next, DecodeSchemaSnapshot(encoded));
  SchemaSnapshotPtr before = engine_->catalog().snapshot();
  std::vector<TableDefPtr> gone = Missing(*before, next);
  // Under the catalog's DDL mutex: a DDL of this node may have committed a
  // newer schema since the check in Apply.
  bool replaced = false;
  KW_RETURN_IF_ERROR(engine_->catalog().Replace(std::move(next), [&] {
    if (revision <= applied_.load()) return false;
    applied_.store(revision);
    replaced = true;
    return true;
  }));
  if (!replaced) return Status::OK();
  if (options_.on_remote_changes) {
    options_.on_remote_changes(
        SchemaChanges(*before, *engine_->catalog().snapshot()));
  }
  for (const TableDefPtr& table : gone) {
    Status st = engine_->DeleteTableData(table->storage_id);
    if (!st.ok()) {
      LogWarn("cluster", "Cannot delete the data of dropped table " +
                             table->keyspace + "." + table->name + ": " +
                             st.ToString());
    }
  }
  LogInfo("cluster", "Applied the cluster's schema at etcd revision " +
                         std::to_string(revision));
  return Status::OK();
}

}  // namespace keywise::cluster
