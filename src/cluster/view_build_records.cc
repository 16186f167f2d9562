#include "cluster/view_build_records.h"

#include <set>
#include <string>

namespace keywise::cluster {

Status RecordViewBackfilled(EtcdClient* etcd, const ClusterKeys& keys,
                            const TableDef& view, const Uuid& self,
                            const Topology& topology) {
  const std::string prefix = keys.ViewBuildPrefix(view.id);
  KW_RETURN_IF_ERROR(
      etcd->Put(keys.ViewBuild(view.id, self), "built", LeaseId::kNone)
          .status());
  KW_ASSIGN_OR_RETURN(RangeResult done,
                      etcd->Range(KeyRange::Prefix(prefix), RangeOptions{}));
  std::set<std::string> nodes;
  for (const KeyValue& kv : done.kvs) nodes.insert(kv.key.substr(prefix.size()));
  int waiting = 0;
  for (const NodeStatus* n : topology.DataNodes()) {
    if (!nodes.contains(n->info.host_id.ToString())) ++waiting;
  }
  if (waiting > 0) {
    return Status::ServerError("Building " + view.keyspace + "." + view.name +
                               " waits for " + std::to_string(waiting) +
                               " more node(s) to backfill their data");
  }
  return Status::OK();
}

Status SweepViewBuildRecords(EtcdClient* etcd, const ClusterKeys& keys,
                             const SchemaSnapshot& schema) {
  const std::string root = keys.ViewBuildsRoot();
  KW_ASSIGN_OR_RETURN(RangeResult all,
                      etcd->Range(KeyRange::Prefix(root), RangeOptions{}));
  std::set<std::string> unbuilt;  // view ids still building
  for (const auto& [name, table] : schema.tables) {
    if (table->view != nullptr && !table->view->built) {
      unbuilt.insert(table->id.ToString());
    }
  }
  std::set<std::string> done;
  for (const KeyValue& kv : all.kvs) {
    const std::string rest = kv.key.substr(root.size());
    const std::string id = rest.substr(0, rest.find('/'));
    if (!unbuilt.contains(id)) done.insert(id);
  }
  for (const std::string& id : done) {
    KW_RETURN_IF_ERROR(
        etcd->Delete(KeyRange::Prefix(root + id + "/")).status());
  }
  return Status::OK();
}

}  // namespace keywise::cluster
