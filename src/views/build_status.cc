#include "views/build_status.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"
#include "system/local_table.h"

namespace keywise {
namespace {

constexpr std::string_view kSystem = "system";

// The name Cassandra's build tables use for a view or an index.
std::string ShownName(const TableDef& view) {
  return view.IsIndexTable() ? view.view->index_name : view.name;
}

Cell TextCell(const TableDef& t, std::string_view column, std::string value,
              int64_t ts) {
  return LiveCell(t.FindColumn(column)->id, std::move(value), ts);
}

// system_distributed.view_build_status's partition of `view`, with this
// node's SUCCESS row (`success`) or deleted (else); nullopt when the table
// or this node's host id is unknown.
std::optional<PartitionUpdate> BuildStatusOf(Engine& engine,
                                             const TableDef& view,
                                             bool success, int64_t ts) {
  SchemaSnapshotPtr schema = engine.catalog().snapshot();
  TableDefPtr t =
      schema->FindTable(kDistributedKeyspaceName, "view_build_status");
  if (t == nullptr) return std::nullopt;
  PartitionUpdate u;
  u.table = t;
  u.partition_key = {EncodeText(view.keyspace), EncodeText(view.name)};
  if (!success) {
    u.partition_deletion = Deletion(ts, static_cast<int32_t>(ts / 1000000));
    return u;
  }
  TableDefPtr local = schema->FindTable(kSystem, "local");
  if (local == nullptr) return std::nullopt;
  Result<system::LocalIdentity> id = system::ReadLocalIdentity(engine, *local);
  if (!id.ok() || !id->host_id) return std::nullopt;
  RowWrite row;
  row.clustering = {EncodeUuid(*id->host_id)};
  row.fragment.liveness = RowMarker(ts);
  row.fragment.cells = {TextCell(*t, "status", EncodeText("SUCCESS"), ts)};
  u.rows.push_back(std::move(row));
  return u;
}

}  // namespace

void RecordBuildProgress(Engine& engine, const TableDef& view,
                         Token last_token, int64_t partitions) {
  TableDefPtr t =
      engine.catalog().snapshot()->FindTable(kSystem, "view_builds_in_progress");
  if (t == nullptr) return;
  const int64_t ts = engine.clock().NowMicros();
  PartitionUpdate u;
  u.table = t;
  u.partition_key = {EncodeText(view.keyspace)};
  RowWrite row;
  row.clustering = {EncodeText(ShownName(view)),
                    EncodeText(std::to_string(kMinimumToken.value)),
                    EncodeText(std::to_string(INT64_MAX))};
  row.fragment.liveness = RowMarker(ts);
  row.fragment.cells = {
      TextCell(*t, "last_token", EncodeText(std::to_string(last_token.value)),
               ts),
      TextCell(*t, "keys_built", EncodeBigint(partitions), ts)};
  std::sort(row.fragment.cells.begin(), row.fragment.cells.end(),
            CellOrderLess);
  u.rows.push_back(std::move(row));
  (void)engine.Apply({std::move(u)});
}

void RecordBuildDone(Engine& engine, const TableDef& view, bool built) {
  SchemaSnapshotPtr schema = engine.catalog().snapshot();
  const int64_t ts = engine.clock().NowMicros();
  const int32_t now = static_cast<int32_t>(ts / 1000000);
  std::vector<PartitionUpdate> updates;
  if (TableDefPtr t = schema->FindTable(kSystem, "view_builds_in_progress")) {
    PartitionUpdate u;
    u.table = t;
    u.partition_key = {EncodeText(view.keyspace)};
    RangeDeletion d;
    d.start = ClusteringBound{{EncodeText(ShownName(view))},
                              BoundKind::kInclusive};
    d.end = d.start;
    d.deletion = Deletion(ts, now);
    u.range_deletions.push_back(std::move(d));
    updates.push_back(std::move(u));
  }
  const bool index = view.IsIndexTable();
  if (TableDefPtr t = schema->FindTable(kSystem, index ? "IndexInfo"
                                                       : "built_views");
      built && t != nullptr) {
    PartitionUpdate u;
    u.table = t;
    u.partition_key = {EncodeText(view.keyspace)};
    RowWrite row;
    row.clustering = {EncodeText(ShownName(view))};
    row.fragment.liveness = RowMarker(ts);
    // A view's status is recorded in view_build_status too (this node's
    // own row: system_distributed is node-local in Keywise).
    std::optional<PartitionUpdate> status =
        index ? std::nullopt : BuildStatusOf(engine, view, true, ts);
    if (!index) {
      row.fragment.cells = {LiveCell(t->FindColumn("status_replicated")->id,
                                     EncodeBoolean(status.has_value()), ts)};
    }
    u.rows.push_back(std::move(row));
    updates.push_back(std::move(u));
    if (status) updates.push_back(std::move(*status));
  }
  if (!updates.empty()) (void)engine.Apply(updates);
}

}  // namespace keywise

namespace keywise {

void ForgetViewBuild(Engine& engine, const TableDef& view) {
  RecordBuildDone(engine, view, false);
  if (!view.IsIndexTable()) {
    const int64_t now = engine.clock().NowMicros();
    if (std::optional<PartitionUpdate> status =
            BuildStatusOf(engine, view, false, now)) {
      (void)engine.Apply({std::move(*status)});
    }
  }
  TableDefPtr t = engine.catalog().snapshot()->FindTable(
      kSystem, view.IsIndexTable() ? "IndexInfo" : "built_views");
  if (t == nullptr) return;
  const int64_t ts = engine.clock().NowMicros();
  PartitionUpdate u;
  u.table = t;
  u.partition_key = {EncodeText(view.keyspace)};
  RowWrite row;
  row.clustering = {EncodeText(ShownName(view))};
  row.fragment.deletion = Deletion(ts, static_cast<int32_t>(ts / 1000000));
  u.rows.push_back(std::move(row));
  (void)engine.Apply({std::move(u)});
}

}  // namespace keywise
