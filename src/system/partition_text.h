// A partition as a WHERE clause, `k = 5 AND b = 'x'`: how the system_views
// statistics tables (top_partitions, large_partitions) name partitions.
//
// Contract: pure; "?" when `serialized` does not split into the table's
// partition key columns.
#pragma once

#include <string>

#include "schema/table_def.h"

namespace keywise::system {

std::string PartitionText(const TableDef& table, const std::string& serialized);

}  // namespace keywise::system
