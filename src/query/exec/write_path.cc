// LocalWritePath's traced writes: what is written where, and when storage
// acknowledged it.
#include "query/exec/write_path.h"

#include <set>
#include <string>

namespace keywise::query {

// "2 partition updates (5 rows) of ks.t": what a batch of updates writes.
std::string DescribeUpdates(const std::vector<PartitionUpdate>& updates) {
  size_t rows = 0;
  std::set<std::string> tables;
  for (const PartitionUpdate& u : updates) {
    rows += u.rows.size() + u.range_deletions.size() +
            (u.partition_deletion.IsLive() ? 0 : 1) +
            (u.static_cells.empty() ? 0 : 1);
    if (u.table != nullptr) tables.insert(u.table->keyspace + "." + u.table->name);
  }
  std::string out = std::to_string(updates.size()) +
                    (updates.size() == 1 ? " partition update (" :
                                           " partition updates (") +
                    std::to_string(rows) + (rows == 1 ? " row) of " : " rows) of ");
  bool first = true;
  for (const std::string& t : tables) {
    if (!first) out += ", ";
    out += t;
    first = false;
  }
  return out;
}

Status LocalWritePath::TracedApply(const std::vector<PartitionUpdate>& updates,
                                   tracing::TraceState& trace) {
  trace.Trace("Applying " + DescribeUpdates(updates) +
              " to storage (commit log and memtable)");
  Status st = views_->Apply(updates);
  trace.Trace(st.ok() ? std::string("Write applied to storage")
                      : "Storage write failed: " + st.message());
  return st;
}

}  // namespace keywise::query
