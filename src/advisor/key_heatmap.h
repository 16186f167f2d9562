// KeyHeatmap: where in the key space and when each table's reads and
// writes land, what a key heatmap draws (docs/advisor.md:
// system_views.key_heatmap). The token ring is cut into kRanges equal
// ranges, time into buckets of kBucketSeconds; the last kBuckets buckets
// are kept (a ring: a bucket is cleared when its slot is reused). Each
// cell counts reads, writes and the bytes written (the data size of the
// writes: key, clustering and cell values, 8 bytes per timestamp). A hot
// partition shows as one hot range; a hot key range (many partitions
// close in token order) as a few.
//
// Contract: not thread-safe (WorkloadStats locks around it). Record is
// O(1) and allocates only for a table or bucket slot not used before (a
// slot's counts, kRanges x 16 bytes, are allocated on its first count, so
// an idle table costs little). Cells lists the non-zero cells of the
// buckets within the window ending at `now_seconds`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "common/token.h"
#include "common/uuid.h"

namespace keywise::advisor {

class KeyHeatmap {
 public:
  static constexpr int kRangeBits = 6;
  static constexpr int kRanges = 1 << kRangeBits;  // 64
  static constexpr int kBuckets = 30;
  static constexpr int64_t kBucketSeconds = 10;

  // The range `token` falls in, and the first token of a range.
  static int RangeOf(Token token);
  static Token RangeStart(int range);
  // The last token of a range.
  static Token RangeLast(int range);

  // Counts a read or a write (of `bytes` bytes of data; 0 for reads).
  void Record(const Uuid& table, bool write, Token token, int64_t now_seconds,
              uint64_t bytes = 0);

  struct Cell {
    Uuid table;
    int64_t bucket_start = 0;  // seconds since the epoch
    int range = 0;
    uint64_t reads = 0;
    uint64_t writes = 0;
    uint64_t bytes_written = 0;
  };
  // By table, then time, then range.
  std::vector<Cell> Cells(int64_t now_seconds) const;
  void Reset() { tables_.clear(); }

 private:
  struct Counts {
    uint32_t reads = 0;
    uint32_t writes = 0;
    uint64_t bytes_written = 0;
  };
  using Slot = std::array<Counts, kRanges>;
  struct Table {
    std::array<int64_t, kBuckets> bucket{};  // the bucket each slot holds
    std::array<std::unique_ptr<Slot>, kBuckets> counts;  // null: never used
  };
  std::map<Uuid, Table> tables_;
};

}  // namespace keywise::advisor
