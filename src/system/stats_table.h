// StatsTable: a system_views table that a node rewrites whole from its
// statistics (system_views.top_partitions, query_shapes: docs/advisor.md),
// one partition per keyspace.
//
// Contract: Publish replaces the table's rows by `rows` (keyspace -> its
// rows; each keyspace's partition in one atomic write; keyspaces with rows
// before and none now are emptied). A table not installed yet is left
// alone. Not thread-safe: one publisher per table.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "storage/engine.h"
#include "system/schema_rows.h"

namespace keywise::system {

class StatsTable {
 public:
  StatsTable(Engine* engine, std::string name)
      : engine_(engine), name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  Status Publish(const std::map<std::string, std::vector<SchemaRow>>& rows);

 private:
  Engine* const engine_;
  const std::string name_;
  std::set<std::string> written_;  // keyspaces with rows now
  int64_t last_timestamp_ = 0;
};

}  // namespace keywise::system
