#include "query/exec/counter_path.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "schema/value_codec.h"
#include "storage/clustering_slice.h"
#include "storage/counter_shards.h"
#include "storage/partition_key.h"
#include "storage/row_fragment.h"

namespace keywise::query {
namespace {

bool IsDelta(const Cell& c) {
  return !c.tombstone && !IsColumnDeletion(c) && c.path.empty();
}

bool HasDeltas(const std::vector<Cell>& cells) {
  for (const Cell& c : cells) {
    if (IsDelta(c)) return true;
  }
  return false;
}

// Replaces the delta cells of `cells` (several of one column add up) by
// the shard's next cells, given the stored shards `current`. Deltas the
// update deletes itself (`deleted`, or a column deletion among `cells`:
// a counter batch's DELETE) are dropped, as in Cassandra, where the
// deletion and the increment share the batch's timestamp.
Status ToShards(const std::vector<Cell>& current, std::string_view shard,
                int64_t now_micros, bool deleted, std::vector<Cell>* cells) {
  std::vector<Cell> out;
  std::vector<std::pair<ColumnId, uint64_t>> deltas;  // first-seen order
  auto column_deleted = [&](ColumnId column) {
    return std::any_of(cells->begin(), cells->end(), [&](const Cell& d) {
      return IsColumnDeletion(d) && (d.column & ~kColumnDeletionBit) == column;
    });
  };
  for (Cell& c : *cells) {
    if (!IsDelta(c)) {
      out.push_back(std::move(c));
      continue;
    }
    if (deleted || column_deleted(c.column)) continue;
    KW_ASSIGN_OR_RETURN(int64_t delta, DecodeBigint(c.value));
    auto it = std::find_if(deltas.begin(), deltas.end(),
                           [&](const auto& d) { return d.first == c.column; });
    if (it == deltas.end()) {
      deltas.emplace_back(c.column, static_cast<uint64_t>(delta));
    } else {
      it->second += static_cast<uint64_t>(delta);  // wraps as Java's long
    }
  }
  for (const auto& [column, delta] : deltas) {
    out.push_back(NextCounterShard(current, column, shard,
                                   static_cast<int64_t>(delta), now_micros));
  }
  *cells = std::move(out);
  return Status::OK();
}

}  // namespace

std::string CounterLockKey(const PartitionUpdate& update) {
  return std::to_string(update.table->storage_id) + ":" +
         SerializePartitionKey(update.partition_key);
}

Status ShardCounterUpdate(Engine& engine, std::string_view shard,
                          int64_t now_micros, PartitionUpdate* update) {
  const TableDef& table = *update->table;
  const bool partition_deleted = !update->partition_deletion.IsLive();
  ClusteringOrder order(table);
  auto range_deleted = [&](const std::vector<std::string>& clustering) {
    for (const RangeDeletion& r : update->range_deletions) {
      if (order.Contains(ClusteringSlice{r.start, r.end}, clustering)) {
        return true;
      }
    }
    return false;
  };
  ReadOptions read;
  read.now_seconds = static_cast<int32_t>(now_micros / 1000000);
  read.counter_shards = true;
  std::optional<std::vector<Cell>> statics;
  if (HasDeltas(update->static_cells)) {
    KW_ASSIGN_OR_RETURN(
        std::unique_ptr<PartitionReader> reader,
        engine.ReadPartition(table, update->partition_key, ClusteringBound{},
                             ClusteringBound{}, read));
    KW_RETURN_IF_ERROR(reader->status());
    statics = reader->static_cells();
    KW_RETURN_IF_ERROR(ToShards(*statics, shard, now_micros,
                                partition_deleted, &update->static_cells));
  }
  for (RowWrite& row : update->rows) {
    if (!HasDeltas(row.fragment.cells)) continue;
    LiveRow current;
    bool found = false;
    KW_RETURN_IF_ERROR(engine.GetRow(table, update->partition_key,
                                     row.clustering, read, &current, &found,
                                     nullptr));
    if (!found) current.cells.clear();
    const bool deleted = partition_deleted || !row.fragment.deletion.IsLive() ||
                         range_deleted(row.clustering);
    KW_RETURN_IF_ERROR(ToShards(current.cells, shard, now_micros, deleted,
                                &row.fragment.cells));
  }
  return Status::OK();
}

Status LocalCounterPath::ApplyCounters(
    const std::vector<PartitionUpdate>& updates, const WriteOptions& options) {
  for (const PartitionUpdate& u : updates) {
    std::optional<net::KeyLocks::Guard> lock = locks_.Lock(
        CounterLockKey(u), std::chrono::steady_clock::now() + lock_timeout);
    if (!lock) {
      ReplicaCounts counts;
      counts.consistency = options.consistency;
      counts.block_for = 1;
      counts.write_type = "COUNTER";
      return Status::WithCounts(
          ErrorCode::kWriteTimeout,
          "Counter write timed out: earlier increments of the partition "
          "still held it after " +
              std::to_string(lock_timeout.count()) + " ms",
          counts);
    }
    PartitionUpdate sharded = u;
    KW_RETURN_IF_ERROR(
        ShardCounterUpdate(*engine_, "", clock_->Next(), &sharded));
    KW_RETURN_IF_ERROR(writes_->Apply({std::move(sharded)}, options));
  }
  return Status::OK();
}

}  // namespace keywise::query
