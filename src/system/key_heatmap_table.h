// system_views.key_heatmap: when and where in the token ring this node's
// requests read and wrote each table (advisor/key_heatmap.h), one
// partition per keyspace: clustering (table_name, time: the start of a
// 10-second bucket, range_start: the first token of one of 64 equal token
// ranges), then range_end (the range's last token) and the reads, writes
// and bytes written counted there. Only non-zero cells of the last 5
// minutes.
//
// Contract: a pure function of the schema and a copy of the statistics;
// system/stats_table.h writes what it returns.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "advisor/key_heatmap.h"
#include "schema/schema_snapshot.h"
#include "storage/table_lookup.h"
#include "system/schema_rows.h"

namespace keywise::system {

// Keyspace -> rows, for the tables of `cells` that `tables` finds.
std::map<std::string, std::vector<SchemaRow>> KeyHeatmapRows(
    const TableLookup& tables,
    const std::vector<advisor::KeyHeatmap::Cell>& cells);

}  // namespace keywise::system
