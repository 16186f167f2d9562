#include "storage/merge_operator.h"

#include "common/coding.h"
#include "storage/row_fragment.h"

namespace keywise {
namespace {

class FragmentMergeOperator final : public rocksdb::MergeOperator {
 public:
  explicit FragmentMergeOperator(const RetentionRegistry* retention)
      : retention_(retention) {}

  const char* Name() const override { return "KeywiseFragmentMerge"; }

  bool FullMergeV2(const MergeOperationInput& in,
                   MergeOperationOutput* out) const override {
    if (in.existing_value == nullptr && in.operand_list.size() == 1 &&
        !in.operand_list.front().empty()) {
      // A lone operand was normalized when written: it is the result, no
      // copy (the hot path of every read of a row written once).
      out->existing_operand = in.operand_list.front();
      return true;
    }
    return MergeAll(in.key, in.existing_value, in.operand_list,
                    &out->new_value);
  }

  bool PartialMergeMulti(const rocksdb::Slice& key,
                         const std::deque<rocksdb::Slice>& operands,
                         std::string* new_value,
                         rocksdb::Logger*) const override {
    std::vector<rocksdb::Slice> list(operands.begin(), operands.end());
    return MergeAll(key, nullptr, list, new_value);
  }

  bool AllowSingleOperand() const override { return false; }

 private:
  bool MergeAll(const rocksdb::Slice& key, const rocksdb::Slice* existing,
                const std::vector<rocksdb::Slice>& operands,
                std::string* out) const {
    out->clear();  // RocksDB may hand over a buffer that still holds bytes
    const rocksdb::Slice& first = existing ? *existing : operands.front();
    if (first.empty()) return false;
    if (!existing && operands.size() == 1) {
      // A lone operand was normalized when written: pass it through.
      out->assign(first.data(), first.size());
      return true;
    }
    if (static_cast<uint8_t>(first[0]) == kRangeTombstoneFormat) {
      DeletionTime best, d;
      auto take = [&](const rocksdb::Slice& s) {
        if (!DecodeRangeDeletion(std::string_view(s.data(), s.size()), &d))
          return false;
        if (d.Supersedes(best)) best = d;
        return true;
      };
      if (existing && !take(*existing)) return false;
      for (const auto& op : operands)
        if (!take(op)) return false;
      EncodeRangeDeletion(best, out);
      return true;
    }
    int versions = 1;
    if (key.size() >= 4) {
      versions = retention_->Get(DecodeFixed32BE(key.data())).versions;
    }
    RowFragment acc, next;
    bool have = false;
    auto take = [&](const rocksdb::Slice& s) {
      if (!DecodeRowFragment(std::string_view(s.data(), s.size()), &next))
        return false;
      if (!have) {
        NormalizeFragment(&next, versions);
        acc = std::move(next);
        have = true;
      } else {
        acc = MergeFragments(acc, next, versions);
      }
      return true;
    };
    if (existing && !take(*existing)) return false;
    for (const auto& op : operands)
      if (!take(op)) return false;
    EncodeRowFragment(acc, out);
    return true;
  }

  const RetentionRegistry* retention_;
};

}  // namespace

std::shared_ptr<rocksdb::MergeOperator> NewFragmentMergeOperator(
    const RetentionRegistry* retention) {
  return std::make_shared<FragmentMergeOperator>(retention);
}

}  // namespace keywise
