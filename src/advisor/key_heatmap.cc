#include "advisor/key_heatmap.h"

namespace keywise::advisor {
namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;
constexpr int kRangeShift = 64 - KeyHeatmap::kRangeBits;

}  // namespace

int KeyHeatmap::RangeOf(Token token) {
  // The token's offset from the ring's start, in kRanges equal parts.
  const uint64_t offset = static_cast<uint64_t>(token.value) ^ kSignBit;
  return static_cast<int>(offset >> kRangeShift);
}

Token KeyHeatmap::RangeStart(int range) {
  const uint64_t offset = static_cast<uint64_t>(range) << kRangeShift;
  return Token{static_cast<int64_t>(offset ^ kSignBit)};
}

Token KeyHeatmap::RangeLast(int range) {
  const uint64_t offset = (static_cast<uint64_t>(range) << kRangeShift) |
                          ((uint64_t{1} << kRangeShift) - 1);
  return Token{static_cast<int64_t>(offset ^ kSignBit)};
}

void KeyHeatmap::Record(const Uuid& table, bool write, Token token,
                        int64_t now_seconds, uint64_t bytes) {
  Table& t = tables_[table];
  const int64_t bucket = now_seconds / kBucketSeconds;
  const size_t slot = static_cast<size_t>(bucket % kBuckets);
  std::unique_ptr<Slot>& counts = t.counts[slot];
  if (counts == nullptr) {
    counts = std::make_unique<Slot>();
    t.bucket[slot] = bucket;
  } else if (t.bucket[slot] != bucket) {
    t.bucket[slot] = bucket;
    *counts = {};
  }
  Counts& c = (*counts)[static_cast<size_t>(RangeOf(token))];
  if (write) {
    ++c.writes;
    c.bytes_written += bytes;
  } else {
    ++c.reads;
  }
}

std::vector<KeyHeatmap::Cell> KeyHeatmap::Cells(int64_t now_seconds) const {
  const int64_t newest = now_seconds / kBucketSeconds;
  std::vector<Cell> out;
  for (const auto& [id, t] : tables_) {
    for (int64_t bucket = newest - kBuckets + 1; bucket <= newest; ++bucket) {
      if (bucket < 0) continue;
      const size_t slot = static_cast<size_t>(bucket % kBuckets);
      if (t.counts[slot] == nullptr || t.bucket[slot] != bucket) continue;
      for (int r = 0; r < kRanges; ++r) {
        const Counts& c = (*t.counts[slot])[static_cast<size_t>(r)];
        if (c.reads == 0 && c.writes == 0) continue;
        out.push_back(Cell{id, bucket * kBucketSeconds, r, c.reads, c.writes,
                           c.bytes_written});
      }
    }
  }
  return out;
}

}  // namespace keywise::advisor
