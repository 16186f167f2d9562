// The console's JSON endpoints, each a function of the context and the
// request's checked parameters (docs/console.md lists their fields):
//   /api/overview  OverviewJson: this node or the cluster's members, the
//                  keyspaces and tables with size, rows, rates and latency,
//                  tablet moves under way;
//   /api/heatmap   HeatmapJson: one table's key heatmap in a window;
//   /api/table     TableJson: one table's top and large partitions, query
//                  shapes and the advisor's findings.
//
// Contract: each reads through internal CQL (query/internal_cql.h) and the
// cluster source, from the console's worker thread; errors are the
// statements' (500), or Invalid (400) for an unknown table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"
#include "console/console_context.h"
#include "console/heatmap_grid.h"
#include "schema/table_def.h"

namespace keywise::console {

Result<nlohmann::json> OverviewJson(const ConsoleContext& context);

// The nodes (cluster: from the view and load reports; alone: this node)
// and the tablet moves under way; adds "nodes", "moves" and per-table
// "tablets" / cluster sizes to `overview`.
Status AddClusterJson(const ConsoleContext& context, nlohmann::json* overview);

Result<nlohmann::json> HeatmapJson(const ConsoleContext& context,
                                   const TableDef& table,
                                   const HeatmapWindow& window);

Result<nlohmann::json> TableJson(const ConsoleContext& context,
                                 const TableDef& table);

// The user table `keyspace`.`table` (not a view or index table); Invalid
// "unknown table ..." when there is none.
Result<TableDefPtr> FindUserTable(const ConsoleContext& context,
                                  const std::string& keyspace,
                                  const std::string& table);

}  // namespace keywise::console
