// system_views.key_advice: the schema lint's findings (advisor/
// schema_lint.h) for every table of every user keyspace, one partition per
// keyspace, one row per (table, rule). The same schema gives the same rows
// on every node, so any node answers for the whole cluster.
//
// Contract: pure function of the schema.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schema/schema_snapshot.h"
#include "system/schema_rows.h"

namespace keywise::system {

// Keyspace name -> its rows (clustering: table name, rule; cells: advice),
// for every keyspace that is not a system keyspace, with or without
// findings. Materialized views, index tables and tables with
// WITH lint = false have none.
std::map<std::string, std::vector<SchemaRow>> KeyAdviceRows(
    const SchemaSnapshot& snapshot);

}  // namespace keywise::system
