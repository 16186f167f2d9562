#include "storage/raw_merge.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "storage/fragment_purge.h"

namespace keywise {
namespace {

// Whether `have` already holds everything of `want` (both normalized):
// MergeFragments(have, want) == have.
bool Covers(const RowFragment& have, const RowFragment& want, int versions) {
  if (versions == 1) return Dominates(have, want);
  return MergeFragments(have, want, versions) == have;
}

bool IntervalLess(const RangeTombstone& a, const RangeTombstone& b) {
  if (a.interval.lo != b.interval.lo) return a.interval.lo < b.interval.lo;
  return a.interval.hi < b.interval.hi;
}
bool SameInterval(const RangeTombstone& a, const RangeTombstone& b) {
  return a.interval.lo == b.interval.lo && a.interval.hi == b.interval.hi;
}

Status CheckInputs(const std::vector<const RawPartition*>& inputs) {
  if (inputs.empty()) return Status::Invalid("Nothing to merge");
  const RawPartition& first = *inputs.front();
  for (const RawPartition* p : inputs) {
    if (p->table == nullptr || first.table == nullptr ||
        p->table->id != first.table->id ||
        p->partition_key != first.partition_key ||
        p->reversed != first.reversed)
      return Status::Invalid(
          "Raw partitions of different tables, keys or directions");
  }
  return Status::OK();
}

// Merges range tombstones of every input (each sorted, distinct) and adds
// to each repair those its input lacks.
void MergeRangeTombstones(const std::vector<const RawPartition*>& inputs,
                          RawMerge* out) {
  std::vector<RangeTombstone>& merged = out->merged.range_tombstones;
  for (const RawPartition* p : inputs)
    merged.insert(merged.end(), p->range_tombstones.begin(),
                  p->range_tombstones.end());
  std::stable_sort(merged.begin(), merged.end(), IntervalLess);
  size_t n = 0;
  for (size_t i = 0; i < merged.size(); i++) {
    if (n > 0 && SameInterval(merged[n - 1], merged[i])) {
      if (merged[i].deletion.Supersedes(merged[n - 1].deletion))
        merged[n - 1].deletion = merged[i].deletion;
    } else {
      if (n != i) merged[n] = std::move(merged[i]);
      n++;
    }
  }
  merged.resize(n);
  for (size_t i = 0; i < inputs.size(); i++) {
    const std::vector<RangeTombstone>& have = inputs[i]->range_tombstones;
    size_t j = 0;
    for (const RangeTombstone& rt : merged) {
      while (j < have.size() && IntervalLess(have[j], rt)) j++;
      if (j < have.size() && have[j] == rt) continue;
      out->repairs[i].range_tombstones.push_back(rt);
    }
  }
}

// The rows of one input with their clustering encodings, read in order.
struct RowStream {
  const RawPartition* input;
  std::vector<std::string> keys;  // clustering encodings of input->rows
  size_t next = 0;
};

class RowMerger {
 public:
  RowMerger(const std::vector<const RawPartition*>& inputs, RawMerge* out)
      : layout_(*out->merged.table),
        versions_(std::max(1, out->merged.table->options.versions)),
        reversed_(out->merged.reversed),
        out_(out) {
    for (const RawPartition* p : inputs) {
      RowStream s{p, {}, 0};
      s.keys.resize(p->rows.size());
      for (size_t r = 0; r < p->rows.size(); r++)
        layout_.AppendClustering(p->rows[r].clustering, &s.keys[r]);
      streams_.push_back(std::move(s));
      if (!p->complete) {
        std::string last;
        layout_.AppendClustering(p->last, &last);
        if (!bound_ || Before(last, *bound_)) {
          bound_ = std::move(last);
          bound_values_ = &p->last;
        }
      }
    }
  }

  void Run() {
    std::vector<size_t> at;  // streams whose head is the next clustering
    while (NextGroup(&at)) MergeGroup(at);
    if (bound_) {
      out_->merged.complete = false;
      out_->merged.last = *bound_values_;
    }
  }

 private:
  // Whether clustering encoding `a` comes before `b` in read order.
  bool Before(const std::string& a, const std::string& b) const {
    return reversed_ ? b < a : a < b;
  }
  const std::string* Head(const RowStream& s) const {
    if (s.next >= s.keys.size()) return nullptr;
    const std::string& key = s.keys[s.next];
    if (bound_ && Before(*bound_, key)) return nullptr;  // beyond coverage
    return &key;
  }
  // Fills *at with the streams whose head is the earliest clustering.
  bool NextGroup(std::vector<size_t>* at) const {
    at->clear();
    const std::string* best = nullptr;
    for (size_t i = 0; i < streams_.size(); i++) {
      const std::string* head = Head(streams_[i]);
      if (head == nullptr) continue;
      if (best == nullptr || Before(*head, *best)) {
        best = head;
        at->assign(1, i);
      } else if (*head == *best) {
        at->push_back(i);
      }
    }
    return best != nullptr;
  }

  void MergeGroup(const std::vector<size_t>& at) {
    const RowStream& first = streams_[at.front()];
    const std::string& key = first.keys[first.next];
    RawRow row{first.input->rows[first.next].clustering, {}};
    for (size_t i : at) {
      const RowFragment& f = streams_[i].input->rows[streams_[i].next].fragment;
      row.fragment = MergeFragments(row.fragment, f, versions_);
    }
    ShadowFragment(&row.fragment,
                   CoveringDeletion(out_->merged.header.deletion,
                                    out_->merged.range_tombstones, key));
    if (!row.fragment.IsEmpty()) {
      size_t k = 0;  // position in `at`
      for (size_t i = 0; i < streams_.size(); i++) {
        const bool holds = k < at.size() && at[k] == i;
        if (holds) k++;
        const RowFragment& have =
            holds ? streams_[i].input->rows[streams_[i].next].fragment : empty_;
        if (!Covers(have, row.fragment, versions_))
          out_->repairs[i].rows.push_back(row);
      }
      out_->merged.rows.push_back(std::move(row));
    }
    for (size_t i : at) streams_[i].next++;
  }

  KeyLayout layout_;
  const int versions_;
  const bool reversed_;
  RawMerge* out_;
  std::vector<RowStream> streams_;
  std::optional<std::string> bound_;  // end of coverage (clustering bytes)
  const std::vector<std::string>* bound_values_ = nullptr;
  const RowFragment empty_{};
};

}  // namespace

Result<RawMerge> MergeRawPartitions(
    const std::vector<const RawPartition*>& inputs) {
  KW_RETURN_IF_ERROR(CheckInputs(inputs));
  const RawPartition& first = *inputs.front();
  const int versions = std::max(1, first.table->options.versions);
  RawMerge out;
  out.merged =
      EmptyRawPartition(first.table, first.partition_key, first.reversed);
  for (const RawPartition* p : inputs)
    out.repairs.push_back(
        EmptyRawPartition(p->table, p->partition_key, p->reversed));
  RowFragment& header = out.merged.header;
  for (const RawPartition* p : inputs)
    header = MergeFragments(header, p->header, versions);
  for (size_t i = 0; i < inputs.size(); i++) {
    if (!Covers(inputs[i]->header, header, versions))
      out.repairs[i].header = header;
  }
  MergeRangeTombstones(inputs, &out);
  RowMerger(inputs, &out).Run();
  return out;
}

}  // namespace keywise
