#include "server/stats_publisher.h"

#include "common/log.h"
#include "schema/cql_name.h"
#include "system/key_heatmap_table.h"
#include "system/partition_text.h"
#include "system/query_shapes_table.h"
#include "system/top_partitions_table.h"

namespace keywise::server {

StatsPublisher::StatsPublisher(Engine* engine,
                               advisor::WorkloadStats* stats,
                               advisor::PeerStats* peers,
                               system::LargePartitionLimits limits,
                               std::chrono::milliseconds period)
    : engine_(engine),
      stats_(stats),
      peers_(peers),
      limits_(limits),
      top_(engine, "top_partitions"),
      shapes_(engine, "query_shapes"),
      heatmap_(engine, "key_heatmap"),
      large_(engine, "large_partitions") {
  task_.Start("advisor", "Cannot write the node's statistics", period, period,
              [this](bool*) {
                std::lock_guard<std::mutex> lock(mu_);
                return Publish();
              });
}

bool StatsPublisher::Handles(std::string_view table) {
  return table == "top_partitions" || table == "query_shapes" ||
         table == "key_heatmap" || table == "large_partitions";
}

Status StatsPublisher::Refresh(std::chrono::milliseconds fresh) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::chrono::steady_clock::now() - published_at_ < fresh) {
    return Status::OK();
  }
  // A write stall would hold the write (and the reader) until it ends.
  if (engine_->ReadFigures().writes_stopped) return Status::OK();
  return Publish();
}

Status StatsPublisher::Publish() {
  published_at_ = std::chrono::steady_clock::now();
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  const TableLookup tables = TablesById(schema);
  advisor::NodeStats own = advisor::LocalNodeStats(stats_, *engine_);
  std::vector<LargePartition> own_large = LocalLarge(tables, own.large);
  LogNew(own_large);
  advisor::NodeStats all;
  if (peers_ != nullptr) {
    std::vector<std::string> missing;
    std::vector<advisor::NodeStats> nodes = peers_->Gather(&missing);
    if (missing != missing_) {
      if (!missing.empty()) {
        std::string names;
        for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
        LogWarn("advisor", "The system_views statistics leave out " + names);
      }
      missing_ = std::move(missing);
    }
    nodes.push_back(std::move(own));
    all = advisor::MergeNodeStats(nodes);
  } else {
    all = std::move(own);
  }
  KW_RETURN_IF_ERROR(top_.Publish(system::TopPartitionsRows(tables, all.top)));
  KW_RETURN_IF_ERROR(
      shapes_.Publish(system::QueryShapesRows(tables, all.shapes)));
  KW_RETURN_IF_ERROR(
      heatmap_.Publish(system::KeyHeatmapRows(tables, all.heatmap)));
  const std::vector<LargePartition> large = LocalLarge(tables, all.large);
  if (stats_ != nullptr) stats_->SetLargePartitions(WriteWarnings(large));
  return large_.Publish(system::LargePartitionsRows(*schema, large, limits_));
}

advisor::WorkloadStats::LargeWarnings StatsPublisher::WriteWarnings(
    const std::vector<LargePartition>& large) const {
  advisor::WorkloadStats::LargeWarnings out;
  for (const LargePartition& p : large) {
    const TableDefPtr table = engine_->catalog().GetTableByStorageId(p.table);
    if (table == nullptr) continue;
    out[table->id][p.serialized_pk] =
        "Writing to large partition " + CqlName(table->keyspace) + "." +
        CqlName(table->name) + " (" +
        system::PartitionText(*table, p.serialized_pk) + "): it holds " +
        std::to_string(p.bytes) + " bytes and " + std::to_string(p.rows) +
        " rows, past " + system::LimitsPassed(p, limits_) +
        ". A partition is never split: spread it over buckets "
        "(system_views.large_partitions, docs/advisor.md)";
  }
  return out;
}

std::vector<LargePartition> StatsPublisher::LocalLarge(
    const TableLookup& tables, const std::vector<advisor::PartitionSize>& list) {
  std::vector<LargePartition> out;
  for (const advisor::PartitionSize& p : list) {
    const TableDefPtr table = tables(p.table);
    if (table == nullptr) continue;
    out.push_back(
        LargePartition{table->storage_id, p.partition_key, p.bytes, p.rows});
  }
  return out;
}

void StatsPublisher::LogNew(const std::vector<LargePartition>& large) {
  for (const LargePartition& p : large) {
    if (!logged_.insert({p.table, p.serialized_pk}).second) continue;
    const TableDefPtr table = engine_->catalog().GetTableByStorageId(p.table);
    if (table == nullptr) continue;
    LogWarn("advisor",
            "Large partition " + CqlName(table->keyspace) + "." +
                CqlName(table->name) + " (" +
                system::PartitionText(*table, p.serialized_pk) + "): " +
                std::to_string(p.bytes) + " bytes, " + std::to_string(p.rows) +
                " rows in the table files, past " +
                system::LimitsPassed(p, limits_) +
                " (system_views.large_partitions)");
  }
}

}  // namespace keywise::server
