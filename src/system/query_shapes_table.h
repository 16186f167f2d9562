// system_views.query_shapes: the SELECT shapes this node's requests ran,
// per table (advisor/query_shapes.h), one partition per keyspace:
// clustering (table_name, shape), then the plan's access path, the
// executions (each page one), rows read and returned, and the mean, median
// and 99th percentile latency in milliseconds.
//
// Contract: a pure function of the schema and a copy of the statistics;
// system/stats_table.h writes what it returns.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "advisor/query_shapes.h"
#include "schema/schema_snapshot.h"
#include "storage/table_lookup.h"
#include "system/schema_rows.h"

namespace keywise::system {

// Keyspace -> rows, for the tables of `shapes` that `tables` finds.
std::map<std::string, std::vector<SchemaRow>> QueryShapesRows(
    const TableLookup& tables,
    const std::vector<advisor::ShapeStats>& shapes);

}  // namespace keywise::system
