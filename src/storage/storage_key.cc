#include "storage/storage_key.h"

#include "common/coding.h"
#include "storage/ordered_codec.h"

namespace keywise {

KeyLayout::KeyLayout(const TableDef& table)
    : storage_id_(table.storage_id),
      columns_(table.columns),
      clustering_begin_(table.PartitionKeySize()),
      clustering_size_(table.ClusteringSize()),
      rows_need_marker_(table.RowsNeedMarker()),
      counters_(table.IsCounterTable()) {}

void KeyLayout::AppendTablePrefix(TableStorageId id, std::string* out) {
  PutFixed32BE(out, id);
}

void KeyLayout::AppendPartitionPrefix(Token token,
                                      std::string_view serialized_pk,
                                      std::string* out) const {
  AppendTablePrefix(storage_id_, out);
  AppendTokenOrdered(token, out);
  AppendEscapedBytes(serialized_pk, out);
}

void KeyLayout::AppendClustering(const std::vector<std::string>& values,
                                 std::string* out) const {
  for (size_t i = 0; i < values.size() && i < clustering_size_; i++) {
    AppendOrdered(*Clustering(i).type, values[i], Clustering(i).order, out);
  }
}

bool KeyLayout::DecodeClustering(std::string_view in,
                                 std::vector<std::string>* values) const {
  values->resize(clustering_size_);
  for (size_t i = 0; i < clustering_size_; i++) {
    if (!ReadOrdered(*Clustering(i).type, Clustering(i).order, &in,
                     &(*values)[i]))
      return false;
  }
  return in.empty();
}

ClusteringInterval KeyLayout::Interval(const ClusteringBound& start,
                                       const ClusteringBound& end) const {
  ClusteringInterval r;
  if (!start.prefix.empty()) {
    AppendClustering(start.prefix, &r.lo);
    if (start.kind == BoundKind::kExclusive) r.lo = PrefixSuccessor(r.lo);
  }
  if (!end.prefix.empty()) {
    AppendClustering(end.prefix, &r.hi);
    if (end.kind == BoundKind::kInclusive) r.hi = PrefixSuccessor(r.hi);
    // An all-0xff prefix has no successor: treat as unbounded above.
  }
  return r;
}

bool ParsePartitionPrefix(std::string_view key, PartitionKeyRef* ref) {
  std::string_view in = key;
  if (in.size() < 12) return false;
  ref->token = DecodeTokenOrdered(in.data() + 4);
  in.remove_prefix(12);
  if (!ReadEscapedBytes(&in, &ref->serialized_pk)) return false;
  uint8_t section;
  ref->prefix_size = key.size() - in.size();
  if (!GetByte(&in, &section) || section > 2) return false;
  ref->section = static_cast<KeySection>(section);
  return true;
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty()) {
    unsigned char last = static_cast<unsigned char>(s.back());
    if (last != 0xff) {
      s.back() = static_cast<char>(last + 1);
      return s;
    }
    s.pop_back();
  }
  return s;
}

void AppendRangeTombstoneSuffix(const ClusteringInterval& interval,
                                std::string* out) {
  AppendEscapedBytes(interval.lo, out);
  AppendEscapedBytes(interval.hi, out);
}

bool DecodeRangeTombstoneSuffix(std::string_view in,
                                ClusteringInterval* interval) {
  return ReadEscapedBytes(&in, &interval->lo) &&
         ReadEscapedBytes(&in, &interval->hi) && in.empty();
}

}  // namespace keywise
