#include "storage/clustering_slice.h"

namespace keywise {

int ClusteringOrder::Compare(const std::vector<std::string>& a,
                             const std::vector<std::string>& b) const {
  std::string x, y;
  layout_.AppendClustering(a, &x);
  layout_.AppendClustering(b, &y);
  return x.compare(y);
}

bool ClusteringOrder::IsEmpty(const ClusteringSlice& slice) const {
  return layout_.Interval(slice.start, slice.end).IsEmpty();
}

bool ClusteringOrder::Contains(
    const ClusteringSlice& slice,
    const std::vector<std::string>& clustering) const {
  std::string bytes;
  layout_.AppendClustering(clustering, &bytes);
  return layout_.Interval(slice.start, slice.end).Contains(bytes);
}

bool ClusteringOrder::NarrowAfter(const std::vector<std::string>& last,
                                  bool reversed, ClusteringSlice* slice) const {
  if (last.empty()) return false;
  ClusteringInterval iv = layout_.Interval(slice->start, slice->end);
  std::string at;
  layout_.AppendClustering(last, &at);
  if (!reversed) {
    std::string after = PrefixSuccessor(at);
    if (!iv.hi.empty() && iv.hi <= after) return false;
    if (iv.lo < after) {
      slice->start = ClusteringBound{last, BoundKind::kExclusive};
    }
  } else {
    if (iv.lo >= at) return false;
    if (iv.hi.empty() || iv.hi > at) {
      slice->end = ClusteringBound{last, BoundKind::kExclusive};
    }
  }
  return true;
}

}  // namespace keywise
