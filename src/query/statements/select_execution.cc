// SelectStatement::Execute: binds the statement's values, picks the access
// path (select_statement.h) and streams its rows through a ReadPipeline.
#include <algorithm>
#include <optional>
#include <utility>

#include "common/coding.h"
#include "query/selection/version_rows.h"
#include "query/statements/read_pipeline.h"
#include "query/statements/select_statement.h"
#include "schema/value_codec.h"
#include "storage/partition_key.h"

namespace keywise::query {
namespace {

Result<int64_t> EvaluateCount(const PreparedTerm& term, const EvalContext& ctx,
                              const char* null_message,
                              const char* positive_message) {
  if (term == nullptr) return int64_t{-1};
  KW_ASSIGN_OR_RETURN(Value v, term->Evaluate(ctx));
  if (v.is_unset()) return int64_t{-1};
  if (v.is_null()) return Status::Invalid(null_message);
  if (v.bytes.size() != 4) return Status::Invalid("Invalid limit value");
  int32_t n = static_cast<int32_t>(DecodeFixed32BE(v.bytes.data()));
  if (n <= 0) return Status::Invalid(positive_message);
  return int64_t{n};
}

// One execution of a SELECT that is not a point GET.
class Execution {
 public:
  Execution(const SelectStatement& s, ExecutionContext& ctx,
            ReadPipeline* pipeline, const ReadOptions& read,
            const PagingState* resume)
      : s_(s),
        ctx_(ctx),
        eval_(ctx.eval()),
        pipeline_(*pipeline),
        read_(read),
        resume_(resume),
        order_(*s.table) {}

  Status Run() {
    return s_.restrictions->HasPartitionKeys() ? ReadPartitions() : Scan();
  }

 private:
  Status ReadPartitions();
  // Reads one partition; false when the pipeline stopped.
  Result<bool> ReadOne(const std::vector<std::string>& pk,
                       const std::string& spk, bool resuming);
  Status Scan();
  // Streams a reader's rows into the pipeline. Returns the pipeline's
  // verdict and counts rows read in *rows.
  template <typename NextFn>
  Result<ReadNext> Stream(NextFn next, const std::vector<Cell>& statics,
                          size_t* rows);
  bool InSlices(const LiveRow& row) const;

  const SelectStatement& s_;
  ExecutionContext& ctx_;
  EvalContext eval_;
  ReadPipeline& pipeline_;
  ReadOptions read_;
  const PagingState* resume_;
  ClusteringOrder order_;
  std::vector<ClusteringSlice> slices_;
  std::vector<std::vector<std::string>> names_;
  bool exact_ = false;  // a scan over several slices checks each row
};

template <typename NextFn>
Result<ReadNext> Execution::Stream(NextFn next,
                                   const std::vector<Cell>& statics,
                                   size_t* rows) {
  LiveRow row;
  while (next(&row)) {
    if (exact_ && !InSlices(row)) continue;
    ++*rows;
    KW_ASSIGN_OR_RETURN(ReadNext n, pipeline_.Row(statics, &row));
    if (n != ReadNext::kContinue) return n;
  }
  return ReadNext::kContinue;
}

bool Execution::InSlices(const LiveRow& row) const {
  for (const ClusteringSlice& slice : slices_) {
    if (order_.Contains(slice, row.clustering)) return true;
  }
  return false;
}

Result<bool> Execution::ReadOne(const std::vector<std::string>& pk,
                                const std::string& spk, bool resuming) {
  const TableDef& table = *s_.table;
  uint32_t counted = resuming ? resume_->partition_rows_counted : 0;
  pipeline_.StartPartition(&pk, &spk, counted);
  const std::vector<std::string>* last =
      resuming ? &resume_->clustering : nullptr;
  size_t rows = 0;
  if (s_.restrictions->IsNamesQuery()) {
    LiveRow row;
    std::vector<Cell> statics;
    for (size_t i = 0; i < names_.size(); ++i) {
      const auto& ck = names_[s_.reversed ? names_.size() - 1 - i : i];
      if (last != nullptr) {
        int cmp = order_.Compare(ck, *last);
        if (s_.reversed ? cmp >= 0 : cmp <= 0) continue;
      }
      bool found = false;
      KW_RETURN_IF_ERROR(
          ctx_.engine->GetRow(table, pk, ck, read_, &row, &found,
                              s_.has_statics ? &statics : nullptr));
      if (!found) continue;
      KW_ASSIGN_OR_RETURN(ReadNext n, pipeline_.Row(statics, &row));
      if (n == ReadNext::kStop) return false;
      if (n == ReadNext::kNextPartition) break;
    }
    return true;
  }
  std::vector<Cell> statics;
  for (size_t i = 0; i < slices_.size(); ++i) {
    ClusteringSlice slice = slices_[s_.reversed ? slices_.size() - 1 - i : i];
    if (last != nullptr && !order_.NarrowAfter(*last, s_.reversed, &slice)) {
      continue;
    }
    KW_ASSIGN_OR_RETURN(
        std::unique_ptr<PartitionReader> reader,
        ctx_.engine->ReadPartition(table, pk, slice.start, slice.end, read_));
    KW_ASSIGN_OR_RETURN(ReadNext n,
                        Stream([&](LiveRow* r) { return reader->Next(r); },
                               reader->static_cells(), &rows));
    KW_RETURN_IF_ERROR(reader->status());
    if (n == ReadNext::kStop) return false;
    if (n == ReadNext::kNextPartition) return true;
    if (rows == 0 && statics.empty()) statics = reader->static_cells();
  }
  if (rows == 0 && last == nullptr && !statics.empty() &&
      s_.static_rows_for_empty_partitions) {
    KW_ASSIGN_OR_RETURN(ReadNext n, pipeline_.Row(statics, nullptr));
    if (n == ReadNext::kStop) return false;
  }
  return true;
}

Status Execution::ReadPartitions() {
  const Restrictions& r = *s_.restrictions;
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
    KW_ASSIGN_OR_RETURN(bool go_on, ReadOne(keys[i], serialized[i], resuming));
    if (!go_on) break;
  }
  return Status::OK();
}

Status Execution::Scan() {
  const Restrictions& r = *s_.restrictions;
  const TableDef& table = *s_.table;
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
            ctx_.engine->ReadPartition(table, pk, rest.start, rest.end, read_));
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
      ctx_.engine->ScanTable(table, start, hull.start, hull.end, read_));
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
        s_.static_rows_for_empty_partitions) {
      KW_ASSIGN_OR_RETURN(ReadNext sn,
                          pipeline_.Row(scanner->static_cells(), nullptr));
      if (sn == ReadNext::kStop) break;
    }
  }
  return scanner->status();
}

// The paging state, checked against the table before it is trusted.
Result<PagingState> DecodeResume(const TableDef& table,
                                 const std::string& bytes) {
  KW_ASSIGN_OR_RETURN(PagingState state, PagingState::Decode(bytes));
  Status bad = Status::Invalid("Invalid value for the paging state");
  std::vector<const ColumnDef*> clustering = table.ClusteringColumns();
  if (state.clustering.size() > clustering.size()) return bad;
  if (!state.clustering.empty() &&
      state.clustering.size() != clustering.size()) {
    return bad;
  }
  if (state.clustering.empty() && !state.partition_done &&
      !clustering.empty()) {
    return bad;
  }
  for (size_t i = 0; i < state.clustering.size(); ++i) {
    if (!ValidateValue(*clustering[i]->type, state.clustering[i]).ok())
      return bad;
  }
  std::vector<const ColumnDef*> pk = table.PartitionKeyColumns();
  auto split = SplitPartitionKey(state.partition_key, pk.size());
  if (!split.ok() || state.partition_key.empty()) return bad;
  for (size_t i = 0; i < pk.size(); ++i) {
    if (!ValidateValue(*pk[i]->type, (*split)[i]).ok()) return bad;
  }
  return state;
}

}  // namespace

bool SelectStatement::IsQuick(const QueryOptions& options) const {
  if (point_get) return true;
  const Restrictions& r = *restrictions;
  if (!r.HasPartitionKeys() || r.KeyIsIn() || r.row_filter() != nullptr || grouped ||
      aggregate_everything || versions != nullptr) {
    return false;
  }
  int64_t rows = options.page_size > 0 ? options.page_size : -1;
  // Named values are resolved to positions later: only a literal LIMIT
  // counts then.
  if (limit != nullptr &&
      (limit->IsConstant() || options.value_names.empty())) {
    Result<int64_t> n = EvaluateCount(limit, EvalContext{&options, 0}, "", "");
    if (n.ok() && *n > 0 && (rows < 0 || *n < rows)) rows = *n;
  }
  return rows > 0 && rows <= kQuickReadRows;
}

Result<QueryResult> SelectStatement::Execute(ExecutionContext& ctx) const {
  EvalContext eval = ctx.eval();
  PipelineLimits limits;
  KW_ASSIGN_OR_RETURN(limits.limit,
                      EvaluateCount(limit, eval, "Invalid null value of limit",
                                    "LIMIT must be strictly positive"));
  KW_ASSIGN_OR_RETURN(
      limits.per_partition_limit,
      EvaluateCount(per_partition_limit, eval, "Invalid null value of limit",
                    "LIMIT must be strictly positive"));
  KW_ASSIGN_OR_RETURN(
      int64_t n_versions,
      EvaluateCount(versions, eval, "Invalid null value of versions",
                    "VERSIONS must be strictly positive"));
  ReadOptions read;
  read.now_seconds = ctx.now_seconds;
  read.reversed = reversed;
  read.versions = n_versions < 0 ? 1
                                 : static_cast<int>(std::min<int64_t>(
                                       n_versions, table->options.versions));
  QueryResult result;
  RowsResult& rows = result.result.emplace<RowsResult>();
  rows.columns = selection->columns();
  const std::string& paging_state = ctx.options->paging_state;

  if (point_get) {
    // At most one row: nothing is left once a page was returned.
    if (!paging_state.empty()) {
      KW_RETURN_IF_ERROR(DecodeResume(*table, paging_state).status());
    }
    std::unique_ptr<Selection::Accumulator> acc =
        ExpandVersions(selection->NewAccumulator(eval, &rows), read.versions);
    if (paging_state.empty()) {
      std::vector<std::string> pk, ck;
      KW_RETURN_IF_ERROR(restrictions->BindPoint(eval, &pk, &ck));
      LiveRow row;
      bool found = false;
      std::vector<Cell> statics;
      KW_RETURN_IF_ERROR(ctx.engine->GetRow(*table, pk, ck, read, &row, &found,
                                            has_statics ? &statics : nullptr));
      if (found) {
        RowView view{table.get(), &pk, &statics, &row};
        KW_RETURN_IF_ERROR(acc->AddRow(view));
      }
    }
    if (aggregate_everything) KW_RETURN_IF_ERROR(acc->EndGroup());
    return result;
  }

  limits.page_size = ctx.options->page_size > 0 ? ctx.options->page_size : -1;
  limits.versions = read.versions;
  if (aggregate_everything) limits.page_size = -1;
  // Post-query ordering reads without a row limit, so Cassandra pages it
  // whatever the LIMIT, and refuses.
  if (post_order && limits.page_size > 0) {
    return Status::Invalid(
        "Cannot page queries with both ORDER BY and a IN restriction on the "
        "partition key; you must either remove the ORDER BY or the IN and "
        "sort client side, or disable paging for this query");
  }
  if (selection->IsAggregate() || grouped) {
    if (!restrictions->HasPartitionKeyRestrictions()) {
      result.warnings.push_back("Aggregation query used without partition key");
    } else if (restrictions->KeyIsIn()) {
      result.warnings.push_back(
          "Aggregation query used on multiple partition keys (IN restriction)");
    }
  }
  if (distinct) limits.per_partition_limit = 1;

  std::optional<PagingState> resume;
  if (!paging_state.empty() && limits.page_size > 0) {
    KW_ASSIGN_OR_RETURN(resume, DecodeResume(*table, paging_state));
  }
  BoundRowFilter filter;
  if (restrictions->row_filter() != nullptr) {
    KW_ASSIGN_OR_RETURN(filter, restrictions->row_filter()->Bind(eval));
  }
  ReadPipeline pipeline(*this, eval, limits, std::move(filter), &rows);
  if (resume) pipeline.Resume(*resume);
  Execution execution(*this, ctx, &pipeline, read, resume ? &*resume : nullptr);
  KW_RETURN_IF_ERROR(execution.Run());
  KW_ASSIGN_OR_RETURN(std::optional<PagingState> next, pipeline.Finish());
  if (next) rows.paging_state = next->Encode();
  return result;
}

}  // namespace keywise::query
