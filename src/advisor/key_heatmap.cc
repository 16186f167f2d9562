#include "advisor/key_heatmap.h"

namespace keywise::advisor {

int KeyHeatmap::RangeOf(Token token) {
  // The token's offset from the ring's start, in kRanges equal parts.
  const uint64_t offset =
      static_cast<uint64_t>(token.value) ^ (uint64_t{1} << 63);
  return static_cast<int>(offset >> 60);  // kRanges == 16
}

Token KeyHeatmap::RangeStart(int range) {
  const uint64_t offset = static_cast<uint64_t>(range) << 60;
  return Token{static_cast<int64_t>(offset ^ (uint64_t{1} << 63))};
}

void KeyHeatmap::Record(const Uuid& table, bool write, Token token,
                        int64_t now_seconds) {
  static_assert(kRanges == 16, "RangeOf takes the top four bits");
  Table& t = tables_[table];
  const int64_t bucket = now_seconds / kBucketSeconds;
  const size_t slot = static_cast<size_t>(bucket % kBuckets);
  if (t.bucket[slot] != bucket) {
    t.bucket[slot] = bucket;
    t.counts[slot] = {};
  }
  Counts& c = t.counts[slot][static_cast<size_t>(RangeOf(token))];
  ++(write ? c.writes : c.reads);
}

std::vector<KeyHeatmap::Cell> KeyHeatmap::Cells(int64_t now_seconds) const {
  const int64_t newest = now_seconds / kBucketSeconds;
  std::vector<Cell> out;
  for (const auto& [id, t] : tables_) {
    for (int64_t bucket = newest - kBuckets + 1; bucket <= newest; ++bucket) {
      if (bucket < 0) continue;
      const size_t slot = static_cast<size_t>(bucket % kBuckets);
      if (t.bucket[slot] != bucket) continue;
      for (int r = 0; r < kRanges; ++r) {
        const Counts& c = t.counts[slot][static_cast<size_t>(r)];
        if (c.reads == 0 && c.writes == 0) continue;
        out.push_back(Cell{id, bucket * kBucketSeconds, r, c.reads, c.writes});
      }
    }
  }
  return out;
}

}  // namespace keywise::advisor
