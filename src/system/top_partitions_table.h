// system_views.top_partitions: the partitions this node's requests read
// and wrote most, per table (advisor/workload_stats.h), one partition of
// the table per keyspace: clustering (table_name, op, rank), then the
// partition as a WHERE clause (`k = 5 AND b = 'x'`), its count, the
// count's possible overestimate and the table's operations of that kind.
//
// Contract: a pure function of the schema and a copy of the statistics;
// system/stats_table.h writes what it returns.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "advisor/workload_stats.h"
#include "storage/table_lookup.h"
#include "system/schema_rows.h"

namespace keywise::system {

// Keyspace -> rows, for the tables of `top` that `tables` finds.
std::map<std::string, std::vector<SchemaRow>> TopPartitionsRows(
    const TableLookup& tables,
    const std::vector<advisor::TopPartition>& top);

}  // namespace keywise::system
