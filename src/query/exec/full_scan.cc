// FullScan: FULL SCAN. Every partition of the table in token order
// (Engine::ScanTable), or those of a token() range, with the clustering
// slices' hull read from each and rows outside the slices dropped; resumes
// strictly after a paging state.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "query/exec/access_operator.h"
#include "storage/partition_key.h"

namespace keywise::query {

Status FullScan::Run() {
  const Restrictions& r = *plan_.restrictions;
  const TableDef& table = *plan_.table;
  KW_ASSIGN_OR_RETURN(TokenRange range, r.BindTokenRange(eval_));
  if (range.empty) return Status::OK();
  KW_ASSIGN_OR_RETURN(slices_, r.BindSlices(eval_));
  if (slices_.empty()) return Status::OK();
  ClusteringSlice hull{slices_.front().start, slices_.back().end};
  exact_ = slices_.size() > 1;
  size_t pk_size = table.PartitionKeySize();
  Token start = range.start;
  std::vector<std::string> pk;
  if (resume_ != nullptr) {
    start = TokenOfKey(resume_->partition_key);
    if (!resume_->partition_done) {
      KW_ASSIGN_OR_RETURN(pk,
                          SplitPartitionKey(resume_->partition_key, pk_size));
      ClusteringSlice rest = hull;
      if (order_.NarrowAfter(resume_->clustering, false, &rest)) {
        pipeline_.StartPartition(&pk, &resume_->partition_key,
                                 resume_->partition_rows_counted);
        KW_ASSIGN_OR_RETURN(
            std::unique_ptr<PartitionReader> reader,
            ctx_.reads->ReadPartition(table, pk, rest.start, rest.end, read_));
        size_t rows = 0;
        KW_ASSIGN_OR_RETURN(
            ReadNext n, Stream([&](LiveRow* row) { return reader->Next(row); },
                               reader->static_cells(), &rows));
        KW_RETURN_IF_ERROR(reader->status());
        if (n == ReadNext::kStop) return Status::OK();
      }
    }
  }
  KW_ASSIGN_OR_RETURN(
      std::unique_ptr<TableScanner> scanner,
      ctx_.reads->ScanTable(table, start, hull.start, hull.end, read_));
  std::string spk;
  while (scanner->NextPartition()) {
    Token token = scanner->token();
    if (resume_ != nullptr && token == start &&
        scanner->serialized_partition_key() <= resume_->partition_key) {
      continue;
    }
    if (range.end != kMinimumToken &&
        (range.end_inclusive ? token > range.end : token >= range.end)) {
      break;
    }
    if (!range.Contains(token)) continue;
    spk = scanner->serialized_partition_key();
    KW_ASSIGN_OR_RETURN(pk, SplitPartitionKey(spk, pk_size));
    pipeline_.StartPartition(&pk, &spk, 0);
    size_t rows = 0;
    KW_ASSIGN_OR_RETURN(
        ReadNext n, Stream([&](LiveRow* row) { return scanner->NextRow(row); },
                           scanner->static_cells(), &rows));
    if (n == ReadNext::kStop) break;
    if (n == ReadNext::kNextPartition) continue;
    if (rows == 0 && !scanner->static_cells().empty() &&
        plan_.static_rows_for_empty_partitions) {
      KW_ASSIGN_OR_RETURN(ReadNext sn,
                          pipeline_.Row(scanner->static_cells(), nullptr));
      if (sn == ReadNext::kStop) break;
    }
  }
  return scanner->status();
}

}  // namespace keywise::query
