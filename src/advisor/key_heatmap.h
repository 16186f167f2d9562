// KeyHeatmap: where in the key space and when each table's reads and
// writes land, what a key heatmap draws (docs/advisor.md:
// system_views.key_heatmap). The token ring is cut into kRanges equal
// ranges, time into buckets of kBucketSeconds; the last kBuckets buckets
// are kept (a ring: a bucket is cleared when its slot is reused). A hot
// partition shows as one hot range; a hot key range (many partitions
// close in token order) as a few.
//
// Contract: not thread-safe (WorkloadStats locks around it). Record is
// O(1) and allocates only for a table not seen before. Cells lists the
// non-zero cells of the buckets within the window ending at `now_seconds`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "common/token.h"
#include "common/uuid.h"

namespace keywise::advisor {

class KeyHeatmap {
 public:
  static constexpr int kRanges = 16;
  static constexpr int kBuckets = 30;
  static constexpr int64_t kBucketSeconds = 10;

  // The range `token` falls in, and the first token of a range.
  static int RangeOf(Token token);
  static Token RangeStart(int range);

  void Record(const Uuid& table, bool write, Token token, int64_t now_seconds);

  struct Cell {
    Uuid table;
    int64_t bucket_start = 0;  // seconds since the epoch
    int range = 0;
    uint64_t reads = 0;
    uint64_t writes = 0;
  };
  // By table, then time, then range.
  std::vector<Cell> Cells(int64_t now_seconds) const;
  void Reset() { tables_.clear(); }

 private:
  struct Counts {
    uint32_t reads = 0;
    uint32_t writes = 0;
  };
  struct Table {
    std::array<int64_t, kBuckets> bucket{};  // the bucket each slot holds
    std::array<std::array<Counts, kRanges>, kBuckets> counts{};
  };
  std::map<Uuid, Table> tables_;
};

}  // namespace keywise::advisor
