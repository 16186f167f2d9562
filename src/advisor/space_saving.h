// SpaceSaving: the most frequent keys of a stream in fixed memory
// (Metwally, Agrawal, El Abbadi, "Efficient computation of frequent and
// top-k elements in data streams", 2005). It keeps `capacity` counters; a
// key not counted takes the smallest counter over, inheriting its count as
// its possible overestimate (`error`). Every key seen more than
// total / capacity times is among the counters, and each reported count is
// at most `error` above the key's true count.
//
// Contract: not thread-safe (WorkloadStats locks around it). Add is O(1)
// for a counted key and O(capacity) when a counter is taken over.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace keywise::advisor {

class SpaceSaving {
 public:
  explicit SpaceSaving(size_t capacity) : capacity_(capacity) {}

  void Add(std::string_view key, uint64_t weight = 1);

  struct Entry {
    std::string key;
    uint64_t count = 0;  // at least the true count, at most count - error
    uint64_t error = 0;  // the count inherited when the key came in
  };
  // The counted keys, most frequent first (ties by key).
  std::vector<Entry> Top() const;
  uint64_t total() const { return total_; }

 private:
  struct Hash {
    using is_transparent = void;  // lookups by string_view allocate nothing
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  const size_t capacity_;
  std::vector<Entry> entries_;
  // key -> entries_ slot
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> index_;
  uint64_t total_ = 0;
};

}  // namespace keywise::advisor
