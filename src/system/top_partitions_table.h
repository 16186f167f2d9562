// system_views.top_partitions: the partitions this node's requests read
// and wrote most, per table (advisor/workload_stats.h), one partition of
// the table per keyspace: clustering (table_name, op, rank), then the
// partition as a WHERE clause (`k = 5 AND b = 'x'`), its count, the
// count's possible overestimate and the table's operations of that kind.
//
// Contract: Publish rewrites the table from a snapshot of the statistics
// (each keyspace's partition in one atomic write; keyspaces no longer in
// the statistics emptied). Not thread-safe: one publisher per node.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "advisor/workload_stats.h"
#include "storage/engine.h"
#include "system/schema_rows.h"

namespace keywise::system {

// Keyspace -> rows, for the tables of `top` that `snapshot` knows.
std::map<std::string, std::vector<SchemaRow>> TopPartitionsRows(
    const SchemaSnapshot& snapshot,
    const std::vector<advisor::TopPartition>& top);

class TopPartitionsTable {
 public:
  explicit TopPartitionsTable(Engine* engine) : engine_(engine) {}
  Status Publish(const std::vector<advisor::TopPartition>& top);

 private:
  Engine* const engine_;
  std::set<std::string> written_;  // keyspaces with rows now
  int64_t last_timestamp_ = 0;
};

}  // namespace keywise::system
