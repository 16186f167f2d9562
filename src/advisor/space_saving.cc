#include "advisor/space_saving.h"

#include <algorithm>

namespace keywise::advisor {

void SpaceSaving::Add(std::string_view key, uint64_t weight) {
  total_ += weight;
  if (capacity_ == 0) return;
  auto it = index_.find(key);
  if (it != index_.end()) {
    entries_[it->second].count += weight;
    return;
  }
  if (entries_.size() < capacity_) {
    index_.emplace(std::string(key), entries_.size());
    entries_.push_back(Entry{std::string(key), weight, 0});
    return;
  }
  size_t min = 0;
  for (size_t i = 1; i < entries_.size(); ++i) {
    if (entries_[i].count < entries_[min].count) min = i;
  }
  Entry& e = entries_[min];
  index_.erase(e.key);
  e.error = e.count;
  e.count += weight;
  e.key = std::string(key);
  index_.emplace(e.key, min);
}

std::vector<SpaceSaving::Entry> SpaceSaving::Top() const {
  std::vector<Entry> out = entries_;
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.count != b.count ? a.count > b.count : a.key < b.key;
  });
  return out;
}

}  // namespace keywise::advisor
