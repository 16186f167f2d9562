#include "bench_tool/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace keywise::bench {
namespace {

constexpr uint64_t kExact = uint64_t{1} << LatencyHistogram::kSubBucketBits;
constexpr uint64_t kHalf = kExact / 2;
// Shifts 1..(64 - kSubBucketBits + 1) each add kHalf buckets above kExact.
constexpr size_t kBuckets =
    kExact + (64 - LatencyHistogram::kSubBucketBits + 1) * kHalf;

}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

size_t LatencyHistogram::BucketOf(uint64_t value) {
  if (value < kExact) return static_cast<size_t>(value);
  // value >= 2^kSubBucketBits: keep its top kSubBucketBits bits.
  int shift = std::bit_width(value) - kSubBucketBits;
  uint64_t sub = value >> shift;  // in [kHalf, kExact)
  return static_cast<size_t>(shift) * kHalf + static_cast<size_t>(sub);
}

uint64_t LatencyHistogram::HighestInBucket(size_t bucket) {
  if (bucket < kExact) return bucket;
  size_t shift = (bucket - kHalf) / kHalf;
  uint64_t sub = bucket - shift * kHalf;
  uint64_t low = sub << shift;
  return low + ((uint64_t{1} << shift) - 1);
}

void LatencyHistogram::Record(uint64_t value_ns) {
  ++counts_[BucketOf(value_ns)];
  ++count_;
  min_ = std::min(min_, value_ns);
  max_ = std::max(max_, value_ns);
  sum_ += value_ns;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

void LatencyHistogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ / count_);
}

uint64_t LatencyHistogram::ValueAtQuantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  uint64_t rank =
      static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(HighestInBucket(i), min_, max_);
  }
  return max_;
}

}  // namespace keywise::bench
