#include "storage/counter_shards.h"

#include <algorithm>
#include <utility>

#include "schema/value_codec.h"

namespace keywise {
namespace {

uint64_t ShardValue(const Cell& cell) {
  Result<int64_t> v = DecodeBigint(cell.value);
  return v.ok() ? static_cast<uint64_t>(*v) : 0;
}

}  // namespace

void FoldCounterShards(std::vector<Cell>* cells) {
  size_t out = 0;
  for (size_t i = 0; i < cells->size();) {
    const ColumnId column = (*cells)[i].column;
    uint64_t sum = 0;  // two's complement wrap-around, as Java's long
    int64_t newest = kNoTimestamp;
    const Cell* shard = nullptr;
    size_t j = i;
    for (; j < cells->size() && (*cells)[j].column == column; ++j) {
      const Cell& c = (*cells)[j];
      // Versions of a shard come newest first: only the first counts.
      if (shard != nullptr && SameCellSlot(*shard, c)) continue;
      shard = &c;
      sum += ShardValue(c);
      newest = std::max(newest, c.timestamp);
    }
    Cell folded = std::move((*cells)[i]);
    folded.path.clear();
    folded.timestamp = newest;
    folded.value = EncodeBigint(static_cast<int64_t>(sum));
    (*cells)[out++] = std::move(folded);
    i = j;
  }
  cells->resize(out);
}

Cell NextCounterShard(const std::vector<Cell>& current, ColumnId column,
                      std::string_view shard, int64_t delta,
                      int64_t now_micros) {
  uint64_t value = 0;
  int64_t timestamp = now_micros;
  for (const Cell& c : current) {
    if (c.column != column || c.path != shard) continue;
    value = ShardValue(c);  // the newest version comes first
    if (c.timestamp >= timestamp) timestamp = c.timestamp + 1;
    break;
  }
  Cell next;
  next.column = column;
  next.path = std::string(shard);
  next.timestamp = timestamp;
  next.value = EncodeBigint(
      static_cast<int64_t>(value + static_cast<uint64_t>(delta)));
  return next;
}

}  // namespace keywise
