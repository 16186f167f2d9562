#include "views/build_status.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "schema/value_codec.h"

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
    if (!index) {
      row.fragment.cells = {LiveCell(
          t->FindColumn("status_replicated")->id, EncodeBoolean(false), ts)};
    }
    u.rows.push_back(std::move(row));
    updates.push_back(std::move(u));
  }
  if (!updates.empty()) (void)engine.Apply(updates);
}

}  // namespace keywise

namespace keywise {

void ForgetViewBuild(Engine& engine, const TableDef& view) {
  RecordBuildDone(engine, view, false);
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
