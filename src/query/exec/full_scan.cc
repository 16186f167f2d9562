// FullScan: FULL SCAN. Every partition of the table in token order
// (Engine::ScanTable), or those of a token() range, with the clustering
// slices' hull read from each and rows outside the slices dropped; resumes
// strictly after a paging state. A range-placed table's key range is a
// token range (Restrictions::BindTokenRange); a salted one's is a token
// range per salt bucket, scanned side by side and merged into key order
// (schema/partitioner.h).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "query/exec/access_operator.h"
#include "schema/partitioner.h"
#include "storage/partition_key.h"

namespace keywise::query {

Status FullScan::Run() {
  const Restrictions& r = *plan_.restrictions;
  const TableDef& table = *plan_.table;
  KW_ASSIGN_OR_RETURN(TokenRange range, r.BindTokenRange(eval_));
  if (range.empty) return Status::OK();
  KW_ASSIGN_OR_RETURN(slices_, r.BindSlices(eval_));
  if (slices_.empty()) return Status::OK();
  const ClusteringSlice hull{slices_.front().start, slices_.back().end};
  exact_ = slices_.size() > 1;
  KW_ASSIGN_OR_RETURN(bool go_on, ResumePartition(hull));
  if (!go_on) return Status::OK();
  if (MergesSaltBuckets(table, r)) return RunSalted(hull);
  Token start = range.start;
  if (resume_ != nullptr) start = PartitionToken(table, resume_->partition_key);
  KW_ASSIGN_OR_RETURN(
      std::unique_ptr<TableScanner> scanner,
      ctx_.reads->ScanTable(table, start, hull.start, hull.end, read_));
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
    KW_ASSIGN_OR_RETURN(ReadNext n, StreamPartition(scanner.get()));
    if (n == ReadNext::kStop) break;
  }
  return scanner->status();
}

bool FullScan::MergesSaltBuckets(const TableDef& table,
                                 const Restrictions& r) {
  return table.options.salt_buckets > 0 && !r.HasTokenRestriction();
}

Result<bool> FullScan::ResumePartition(const ClusteringSlice& hull) {
  if (resume_ == nullptr || resume_->partition_done) return true;
  const TableDef& table = *plan_.table;
  KW_ASSIGN_OR_RETURN(
      pk_, SplitPartitionKey(resume_->partition_key, table.PartitionKeySize()));
  ClusteringSlice rest = hull;
  if (!order_.NarrowAfter(resume_->clustering, false, &rest)) return true;
  pipeline_.StartPartition(&pk_, &resume_->partition_key,
                           resume_->partition_rows_counted);
  KW_ASSIGN_OR_RETURN(
      std::unique_ptr<PartitionReader> reader,
      ctx_.reads->ReadPartition(table, pk_, rest.start, rest.end, read_));
  size_t rows = 0;
  KW_ASSIGN_OR_RETURN(
      ReadNext n, Stream([&](LiveRow* row) { return reader->Next(row); },
                         reader->static_cells(), &rows));
  KW_RETURN_IF_ERROR(reader->status());
  return n != ReadNext::kStop;
}

Result<ReadNext> FullScan::StreamPartition(TableScanner* scanner) {
  spk_ = scanner->serialized_partition_key();
  KW_ASSIGN_OR_RETURN(pk_,
                      SplitPartitionKey(spk_, plan_.table->PartitionKeySize()));
  pipeline_.StartPartition(&pk_, &spk_, 0);
  size_t rows = 0;
  KW_ASSIGN_OR_RETURN(
      ReadNext n, Stream([&](LiveRow* row) { return scanner->NextRow(row); },
                         scanner->static_cells(), &rows));
  if (n != ReadNext::kContinue) return n;
  if (rows == 0 && !scanner->static_cells().empty() &&
      plan_.static_rows_for_empty_partitions) {
    KW_ASSIGN_OR_RETURN(ReadNext sn,
                        pipeline_.Row(scanner->static_cells(), nullptr));
    if (sn == ReadNext::kStop) return sn;
  }
  return ReadNext::kContinue;
}

Status FullScan::RunSalted(const ClusteringSlice& hull) {
  const TableDef& table = *plan_.table;
  const int32_t n = table.options.salt_buckets;
  const CqlType& type = *table.columns[0].type;
  KW_ASSIGN_OR_RETURN(KeyPositionRange keys,
                      plan_.restrictions->BindKeyPositions(eval_));
  if (keys.empty) return Status::OK();
  // Partitions at or before the paging state's, in key order, are done.
  std::optional<uint64_t> after;
  if (resume_ != nullptr) after = KeyPosition(type, resume_->partition_key);
  auto done = [&](uint64_t position, const std::string& spk) {
    return after && (position < *after ||
                     (position == *after && spk <= resume_->partition_key));
  };
  struct Bucket {
    std::unique_ptr<TableScanner> scanner;
    Token end;
    uint64_t position = 0;  // of the current partition
    bool live = true;
  };
  // Moves `b` to its next partition within the key range.
  auto advance = [&](Bucket* b) -> Status {
    while (b->scanner->NextPartition()) {
      if (b->scanner->token() > b->end) break;
      const std::string& spk = b->scanner->serialized_partition_key();
      b->position = KeyPosition(type, spk);
      if (b->position > keys.high) break;
      if (b->position < keys.low || done(b->position, spk)) continue;
      return Status::OK();
    }
    b->live = false;
    return b->scanner->status();
  };
  std::vector<Bucket> buckets(static_cast<size_t>(n));
  for (uint32_t i = 0; i < buckets.size(); ++i) {
    Bucket& b = buckets[i];
    const uint64_t from = after ? std::max(*after, keys.low) : keys.low;
    b.end = PositionToken(n, i, keys.high);
    KW_ASSIGN_OR_RETURN(b.scanner,
                        ctx_.reads->ScanTable(table, PositionToken(n, i, from),
                                              hull.start, hull.end, read_));
    KW_RETURN_IF_ERROR(advance(&b));
  }
  while (true) {
    Bucket* next = nullptr;
    for (Bucket& b : buckets) {
      if (!b.live) continue;
      if (next == nullptr || b.position < next->position ||
          (b.position == next->position &&
           b.scanner->serialized_partition_key() <
               next->scanner->serialized_partition_key())) {
        next = &b;
      }
    }
    if (next == nullptr) return Status::OK();
    KW_ASSIGN_OR_RETURN(ReadNext r, StreamPartition(next->scanner.get()));
    if (r == ReadNext::kStop) return Status::OK();
    KW_RETURN_IF_ERROR(advance(next));
  }
}

}  // namespace keywise::query
