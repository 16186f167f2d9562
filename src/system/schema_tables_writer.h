// SchemaTablesWriter: keeps system_schema.* and system_virtual_schema.* in
// step with the catalog.
//
// Contract: not thread-safe; the owner serializes calls (SystemKeyspaces
// calls it from the catalog listener, under the catalog's DDL mutex). For
// each keyspace whose rows changed since the last committed plan, the plan
// replaces that keyspace's partition in every schema table: a partition
// deletion at timestamp - 1 and the new rows at `timestamp`, so one
// Engine::Apply of the plan swaps the old rows for the new atomically.
// REQUIRES: timestamps strictly increase from one plan to the next, and the
// first plan is applied to empty schema tables (Install wipes them).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schema/schema_snapshot.h"
#include "storage/partition_update.h"
#include "system/schema_rows.h"

namespace keywise::system {

class SchemaTablesWriter {
 public:
  struct Plan {
    std::vector<PartitionUpdate> updates;
    std::map<std::string, KeyspaceRows> rendered;  // the state once applied
  };

  // The updates that bring the schema tables from the last committed state
  // to `snapshot`. Keyspaces whose target tables are missing from the
  // snapshot are skipped.
  Plan Prepare(const SchemaSnapshot& snapshot, int64_t timestamp,
               int32_t now_seconds) const;
  // Records that `plan` was applied.
  void Commit(Plan plan) { rendered_ = std::move(plan.rendered); }

 private:
  // Keyspace name -> what its partitions hold now.
  std::map<std::string, KeyspaceRows> rendered_;
};

// Converts rows into a partition replacing keyspace `keyspace`'s partition
// of `table`.
PartitionUpdate ReplacePartition(const TableDefPtr& table,
                                 const std::string& keyspace,
                                 const std::vector<SchemaRow>* rows,
                                 int64_t timestamp, int32_t now_seconds);

}  // namespace keywise::system
