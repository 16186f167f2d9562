// KeyAccess: GET, MULTI-GET, SCAN and MULTI-PARTITION. The WHERE clause
// names the partitions (EQ/IN on every partition key column); each is read
// by whole primary keys (Engine::GetRow per row) or by clustering slices
// (Engine::ReadPartition per slice, backwards for a reversed read), in
// Cassandra's partition order, resuming strictly after a paging state.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "query/exec/access_operator.h"
#include "schema/partitioner.h"
#include "storage/partition_key.h"

namespace keywise::query {

Result<bool> KeyAccess::ReadOne(const std::vector<std::string>& pk,
                                const std::string& spk, bool resuming) {
  const TableDef& table = *plan_.table;
  uint32_t counted = resuming ? resume_->partition_rows_counted : 0;
  pipeline_.StartPartition(&pk, &spk, counted);
  const std::vector<std::string>* last =
      resuming ? &resume_->clustering : nullptr;
  size_t rows = 0;
  if (plan_.restrictions->IsNamesQuery()) {
    LiveRow row;
    std::vector<Cell> statics;
    for (size_t i = 0; i < names_.size(); ++i) {
      const auto& ck =
          names_[plan_.access.reversed ? names_.size() - 1 - i : i];
      if (last != nullptr) {
        int cmp = order_.Compare(ck, *last);
        if (plan_.access.reversed ? cmp >= 0 : cmp <= 0) continue;
      }
      bool found = false;
      KW_RETURN_IF_ERROR(
          ctx_.reads->GetRow(table, pk, ck, read_, &row, &found,
                             plan_.has_statics ? &statics : nullptr));
      if (!found) continue;
      KW_ASSIGN_OR_RETURN(ReadNext n, pipeline_.Row(statics, &row));
      if (n == ReadNext::kStop) return false;
      if (n == ReadNext::kNextPartition) break;
    }
    return true;
  }
  std::vector<Cell> statics;
  for (size_t i = 0; i < slices_.size(); ++i) {
    ClusteringSlice slice =
        slices_[plan_.access.reversed ? slices_.size() - 1 - i : i];
    if (last != nullptr &&
        !order_.NarrowAfter(*last, plan_.access.reversed, &slice)) {
      continue;
    }
    KW_ASSIGN_OR_RETURN(
        std::unique_ptr<PartitionReader> reader,
        ctx_.reads->ReadPartition(table, pk, slice.start, slice.end, read_));
    KW_ASSIGN_OR_RETURN(ReadNext n,
                        Stream([&](LiveRow* r) { return reader->Next(r); },
                               reader->static_cells(), &rows));
    KW_RETURN_IF_ERROR(reader->status());
    if (n == ReadNext::kStop) return false;
    if (n == ReadNext::kNextPartition) return true;
    if (rows == 0 && statics.empty()) statics = reader->static_cells();
  }
  if (rows == 0 && last == nullptr && !statics.empty() &&
      plan_.static_rows_for_empty_partitions) {
    KW_ASSIGN_OR_RETURN(ReadNext n, pipeline_.Row(statics, nullptr));
    if (n == ReadNext::kStop) return false;
  }
  return true;
}

Status KeyAccess::Run() {
  const Restrictions& r = *plan_.restrictions;
  KW_ASSIGN_OR_RETURN(std::vector<std::vector<std::string>> keys,
                      r.BindPartitionKeys(eval_));
  if (r.IsNamesQuery()) {
    KW_ASSIGN_OR_RETURN(names_, r.BindClusterings(eval_));
  } else {
    KW_ASSIGN_OR_RETURN(slices_, r.BindSlices(eval_));
  }
  size_t first = 0;
  std::vector<std::string> serialized(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    serialized[i] = SerializePartitionKey(keys[i]);
  }
  if (resume_ != nullptr) {
    first = keys.size();
    for (size_t i = 0; i < keys.size(); ++i) {
      if (serialized[i] == resume_->partition_key) first = i;
    }
    if (first == keys.size()) {
      return Status::Invalid("Invalid value for the paging state");
    }
  }
  for (size_t i = first; i < keys.size(); ++i) {
    bool resuming = resume_ != nullptr && i == first;
    if (resuming && resume_->partition_done) continue;
    if (ctx_.workload != nullptr && !resuming) {
      ctx_.workload->Record(plan_.table->id, advisor::KeyOp::kRead,
                            serialized[i],
                            PartitionToken(*plan_.table, serialized[i]));
    }
    KW_ASSIGN_OR_RETURN(bool go_on, ReadOne(keys[i], serialized[i], resuming));
    if (!go_on) break;
  }
  return Status::OK();
}

}  // namespace keywise::query
