// LatencyHistogram: an HDR-style log-linear histogram of latencies in
// nanoseconds, for the percentiles of `keywise bench`.
//
// Values below 2^kSubBucketBits are counted exactly; above, each power of two
// is split into 2^(kSubBucketBits-1) equal buckets, so a reported value is
// within 1/2^(kSubBucketBits-1) (0.8%) of the recorded one. Recording is an
// index computation and one increment; the counts take ~60 KB.
//
// Contract: not thread-safe; one writer, and readers must synchronise with it
// (the bench keeps one per io thread behind a mutex and merges them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace keywise::bench {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 8;

  LatencyHistogram();

  void Record(uint64_t value_ns);
  // Adds every count of `other`.
  void Merge(const LatencyHistogram& other);
  void Reset();

  uint64_t count() const { return count_; }
  // 0 when empty.
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  double mean() const;
  // The value at quantile q in [0, 1]: the highest value equivalent to the
  // bucket holding the ceil(q * count)-th smallest value, clamped to
  // [min, max]. Returns 0 when empty.
  uint64_t ValueAtQuantile(double q) const;

  // Bucket of a value, and the highest value that falls in a bucket.
  static size_t BucketOf(uint64_t value);
  static uint64_t HighestInBucket(size_t bucket);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  long double sum_ = 0;
};

}  // namespace keywise::bench
