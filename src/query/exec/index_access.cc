// IndexAccess: INDEX. Reads the rows of a secondary index's table for the
// bound value (a global index: one partition, rows in the base table's
// token order; a local index: the value's rows within each base partition
// the WHERE clause names), then each base row by its primary key. Index
// rows whose base row is gone are skipped, and every restriction (key
// ranges and the row filter, the indexed one included) is checked on the
// base row, so stale index entries never reach the result. Resumes
// strictly after a paging state (the last base row returned).
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "query/exec/access_operator.h"
#include "schema/value_codec.h"
#include "schema/partitioner.h"
#include "storage/partition_key.h"

namespace keywise::query {
namespace {

// Where each base key column is found in an index row.
struct KeyMapping {
  // Per base partition key / clustering column: the index clustering
  // position, or -1 for the indexed column (the index's partition key for
  // a global index).
  std::vector<int> pk;
  std::vector<int> ck;
};

KeyMapping MapKey(const TableDef& base, const TableDef& index) {
  KeyMapping m;
  auto position = [&](const ColumnDef* c) {
    const ColumnDef* ic = index.FindColumn(c->name);
    return ic != nullptr && ic->kind == ColumnKind::kClustering
               ? ic->position
               : -1;
  };
  for (const ColumnDef* c : base.PartitionKeyColumns()) m.pk.push_back(position(c));
  for (const ColumnDef* c : base.ClusteringColumns()) m.ck.push_back(position(c));
  return m;
}

}  // namespace

Status IndexAccess::Run() {
  const TableDef& base = *plan_.table;
  const TableDefPtr& index = plan_.index;
  const ViewInfo& info = *index->view;
  const bool local = info.kind == ViewKind::kLocalIndex;
  TableDefPtr now =
      ctx_.engine->catalog().snapshot()->FindTableByStorageId(index->storage_id);
  if (now == nullptr || now->id != index->id) {
    return Status::Invalid("The secondary index '" + info.index_name +
                           "' no longer exists");
  }
  if (!now->view->built) {
    return Status::Invalid("The secondary index '" + info.index_name +
                           "' is not yet available: it is being built from "
                           "the rows the table already holds");
  }
  KW_ASSIGN_OR_RETURN(Value value, plan_.index_value->Evaluate(eval_));
  if (!value.is_set() || value.is_null()) {
    return Status::Invalid("Unsupported null value for column " +
                           info.target_column);
  }
  if (plan_.index_key != nullptr) {  // entries: the (key, value) tuple
    KW_ASSIGN_OR_RETURN(Value key, plan_.index_key->Evaluate(eval_));
    if (!key.is_set() || key.is_null()) {
      return Status::Invalid("Unsupported null map key for column " +
                             info.target_column);
    }
    value.bytes = EncodeTuple({key.bytes, value.bytes});
  }
  const Restrictions& r = *plan_.restrictions;
  KW_ASSIGN_OR_RETURN(TokenRange range, r.BindTokenRange(eval_));
  if (range.empty) return Status::OK();
  KW_ASSIGN_OR_RETURN(slices_, r.BindSlices(eval_));
  if (slices_.empty()) return Status::OK();
  exact_ = true;
  std::set<std::string> keys;  // serialized; empty: any partition
  std::vector<std::vector<std::string>> key_values;
  if (r.HasPartitionKeys()) {
    KW_ASSIGN_OR_RETURN(key_values, r.BindPartitionKeys(eval_));
    if (key_values.empty()) return Status::OK();
    for (const auto& k : key_values) keys.insert(SerializePartitionKey(k));
  }

  const KeyMapping map = MapKey(base, *index);
  // An index on a static column names partitions.
  const bool static_index =
      base.FindColumn(info.target_column)->kind == ColumnKind::kStatic;
  const ClusteringOrder index_order(*index);
  const std::string target = value.bytes;
  if (target.empty() && !local) {
    return Status::Invalid(
        "Keywise cannot look up the empty value through index '" +
        info.index_name + "' yet (storage keeps no empty partition key)");
  }
  // The index clustering of a base row (a prefix when `clustering` is
  // null: the base partition's first index position).
  auto index_clustering = [&](const std::vector<std::string>& pk,
                              const std::string& spk,
                              const std::vector<std::string>* clustering) {
    std::vector<std::string> out(index->ClusteringSize());
    size_t used = 0;
    for (const ColumnDef* c : index->ClusteringColumns()) {
      const size_t at = static_cast<size_t>(c->position);
      if (c->name == kIndexTokenColumn) {
        out[at] = EncodeBigint(PartitionToken(base, spk).value);
      } else if (const ColumnDef* bc = base.FindColumn(c->name)) {
        if (bc->kind == ColumnKind::kPartitionKey) {
          out[at] = pk[bc->position];
        } else if (bc->name == info.target_column) {
          out[at] = target;
        } else if (clustering != nullptr) {
          out[at] = (*clustering)[bc->position];
        } else {
          break;
        }
      }
      used = at + 1;
    }
    out.resize(used);
    return out;
  };

  // A static column's index: the rows of base partition `pk` (after
  // `after` when resuming inside it) within the slices, or its static row.
  auto read_partition = [&](const std::vector<std::string>& pk,
                            const std::string& spk,
                            const std::vector<std::string>* after)
      -> Result<bool> {
    const bool resumed = resume_ != nullptr && resume_->partition_key == spk;
    pipeline_.StartPartition(&pk, &spk,
                             resumed ? resume_->partition_rows_counted : 0);
    size_t rows = 0;
    std::vector<Cell> statics;
    for (ClusteringSlice slice : slices_) {
      if (after != nullptr && !order_.NarrowAfter(*after, false, &slice)) {
        continue;
      }
      KW_ASSIGN_OR_RETURN(
          std::unique_ptr<PartitionReader> reader,
          ctx_.reads->ReadPartition(base, pk, slice.start, slice.end, read_));
      KW_ASSIGN_OR_RETURN(ReadNext n,
                          Stream([&](LiveRow* r) { return reader->Next(r); },
                                 reader->static_cells(), &rows));
      KW_RETURN_IF_ERROR(reader->status());
      if (n == ReadNext::kStop) return false;
      if (n == ReadNext::kNextPartition) return true;
      if (statics.empty()) statics = reader->static_cells();
    }
    if (rows == 0 && after == nullptr && !statics.empty() &&
        plan_.static_rows_for_empty_partitions) {
      KW_ASSIGN_OR_RETURN(ReadNext n, pipeline_.Row(statics, nullptr));
      if (n == ReadNext::kStop) return false;
    }
    return true;
  };

  // One index partition (a global index's for the value, or a local
  // index's for one base partition), from `slice`.
  auto read_index = [&](const std::vector<std::string>& index_pk,
                        ClusteringSlice slice) -> Result<bool> {
    KW_ASSIGN_OR_RETURN(std::unique_ptr<PartitionReader> reader,
                        ctx_.reads->ReadPartition(*index, index_pk, slice.start,
                                                  slice.end, read_));
    LiveRow entry, row;
    std::vector<std::string> pk(map.pk.size()), ck(map.ck.size());
    std::string spk, current_spk;
    std::vector<std::string> current_pk;
    std::vector<Cell> statics;
    std::string skipped;  // a partition past its PER PARTITION LIMIT
    while (reader->Next(&entry)) {
      for (size_t i = 0; i < pk.size(); ++i) {
        pk[i] = map.pk[i] < 0 ? (local ? index_pk[i] : target)
                              : entry.clustering[map.pk[i]];
      }
      for (size_t i = 0; i < ck.size() && !static_index; ++i) {
        ck[i] = map.ck[i] < 0 ? target : entry.clustering[map.ck[i]];
      }
      spk = SerializePartitionKey(pk);
      if (spk == skipped) continue;
      if (!keys.empty() && !keys.contains(spk)) continue;
      if (!range.Contains(PartitionToken(base, spk))) continue;
      if (static_index) {  // the entry names a partition: read its rows
        KW_ASSIGN_OR_RETURN(bool go_on, read_partition(pk, spk, nullptr));
        if (!go_on) return false;
        continue;
      }
      bool found = false;
      KW_RETURN_IF_ERROR(ctx_.reads->GetRow(
          base, pk, ck, read_, &row, &found,
          plan_.has_statics ? &statics : nullptr));
      if (!found || !InSlices(row)) continue;  // a stale index entry
      if (spk != current_spk) {
        current_spk = spk;
        current_pk = pk;
        const bool resumed = resume_ != nullptr &&
                             resume_->partition_key == current_spk;
        pipeline_.StartPartition(
            &current_pk, &current_spk,
            resumed ? resume_->partition_rows_counted : 0);
      }
      KW_ASSIGN_OR_RETURN(ReadNext n, pipeline_.Row(statics, &row));
      if (n == ReadNext::kStop) return false;
      if (n == ReadNext::kNextPartition) skipped = spk;
    }
    KW_RETURN_IF_ERROR(reader->status());
    return true;
  };

  auto after_resume = [&](const std::vector<std::string>& resume_pk,
                          ClusteringSlice* slice) {
    std::vector<std::string> last = index_clustering(
        resume_pk, resume_->partition_key,
        resume_->partition_done || static_index ? nullptr
                                                : &resume_->clustering);
    return index_order.NarrowAfter(last, false, slice);
  };

  if (local) {
    for (const auto& pk : key_values) {
      const std::string spk = SerializePartitionKey(pk);
      ClusteringSlice slice{{{target}, BoundKind::kInclusive},
                            {{target}, BoundKind::kInclusive}};
      if (resume_ != nullptr) {
        if (spk < resume_->partition_key) continue;  // keys are sorted
        if (spk == resume_->partition_key && !after_resume(pk, &slice)) {
          continue;
        }
      }
      KW_ASSIGN_OR_RETURN(bool go_on, read_index(pk, slice));
      if (!go_on) break;
    }
    return Status::OK();
  }
  ClusteringSlice slice;
  if (key_values.size() == 1) {  // one base partition: its index rows only
    std::vector<std::string> prefix = index_clustering(
        key_values[0], *keys.begin(), nullptr);
    slice = {{prefix, BoundKind::kInclusive}, {prefix, BoundKind::kInclusive}};
  }
  if (resume_ != nullptr) {
    KW_ASSIGN_OR_RETURN(
        std::vector<std::string> resume_pk,
        SplitPartitionKey(resume_->partition_key, base.PartitionKeySize()));
    if (static_index && !resume_->partition_done) {
      // The rest of the partition the last page stopped in (its index
      // entry is skipped below: resuming is after the partition's prefix).
      KW_ASSIGN_OR_RETURN(bool go_on,
                          read_partition(resume_pk, resume_->partition_key,
                                         &resume_->clustering));
      if (!go_on) return Status::OK();
    }
    if (!after_resume(resume_pk, &slice)) return Status::OK();
  }
  KW_ASSIGN_OR_RETURN(bool go_on, read_index({target}, slice));
  (void)go_on;
  return Status::OK();
}

}  // namespace keywise::query
