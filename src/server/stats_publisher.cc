#include "server/stats_publisher.h"

#include "common/log.h"
#include "schema/cql_name.h"
#include "system/key_heatmap_table.h"
#include "system/partition_text.h"
#include "system/query_shapes_table.h"
#include "system/top_partitions_table.h"

namespace keywise::server {

StatsPublisher::StatsPublisher(Engine* engine,
                               const advisor::WorkloadStats* stats,
                               system::LargePartitionLimits limits,
                               std::chrono::milliseconds period)
    : engine_(engine),
      stats_(stats),
      limits_(limits),
      top_(engine, "top_partitions"),
      shapes_(engine, "query_shapes"),
      heatmap_(engine, "key_heatmap"),
      large_(engine, "large_partitions") {
  task_.Start("advisor", "Cannot write the node's statistics", period, period,
              [this](bool*) { return Publish(); });
}

Status StatsPublisher::Publish() {
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  const TableLookup tables = TablesById(schema);
  KW_RETURN_IF_ERROR(
      top_.Publish(system::TopPartitionsRows(tables, stats_->Top())));
  KW_RETURN_IF_ERROR(shapes_.Publish(
      system::QueryShapesRows(tables, stats_->shapes().All())));
  KW_RETURN_IF_ERROR(heatmap_.Publish(
      system::KeyHeatmapRows(tables, stats_->Heatmap())));
  const std::vector<LargePartition> large = engine_->LargePartitions();
  LogNew(large);
  return large_.Publish(system::LargePartitionsRows(*schema, large, limits_));
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
