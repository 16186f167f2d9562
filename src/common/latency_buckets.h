// Latency buckets: a log-scale histogram's bucket arithmetic for latencies
// in microseconds, four buckets per power of two (so a bucket's top is
// within 25% above any value in it), 128 buckets in all (the last one holds
// everything from about 2^32 us, 71 minutes, up). Values 0..3 have a bucket
// each. Used by the coordinator's read latencies (speculative retry) and the
// advisor's query shapes.
//
// Contract: pure functions; LatencyBucket is monotonic, and every value v
// satisfies LatencyBucketTop(LatencyBucket(v) - 1) < v <=
// LatencyBucketTop(LatencyBucket(v)) below the last bucket.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace keywise {

inline constexpr int kLatencyBuckets = 4 * 32;

inline int LatencyBucket(uint64_t micros) {
  if (micros < 4) return static_cast<int>(micros);
  const int high = std::bit_width(micros) - 1;  // >= 2
  const int sub = static_cast<int>((micros >> (high - 2)) & 3);
  return std::min(kLatencyBuckets - 1, 4 * (high - 1) + sub);
}

// The largest value bucket `bucket` holds.
inline uint64_t LatencyBucketTop(int bucket) {
  if (bucket < 4) return static_cast<uint64_t>(bucket);
  const int high = bucket / 4 + 1;
  const uint64_t sub = static_cast<uint64_t>(bucket % 4);
  // Values with bit `high` set and the next two bits == sub.
  return ((4 + sub + 1) << (high - 2)) - 1;
}

// The top of the bucket holding the ceil(q * total)-th smallest of the
// values counted in `counts` (q in [0, 1]); 0 when `total` is 0.
template <typename Count>
uint64_t LatencyAtQuantile(const std::array<Count, kLatencyBuckets>& counts,
                           uint64_t total, double q) {
  if (total == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(total));
  if (static_cast<double>(rank) < q * static_cast<double>(total)) ++rank;
  rank = std::max<uint64_t>(rank, 1);
  uint64_t seen = 0;
  for (int i = 0; i < kLatencyBuckets; ++i) {
    seen += static_cast<uint64_t>(counts[static_cast<size_t>(i)]);
    if (seen >= rank) return LatencyBucketTop(i);
  }
  return LatencyBucketTop(kLatencyBuckets - 1);
}

}  // namespace keywise
