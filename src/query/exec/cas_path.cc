#include "query/exec/cas_path.h"

#include <functional>
#include <utility>

#include "storage/partition_key.h"

namespace keywise::query {

Status LocalCasPath::Read(const CasRequest& request, CasSnapshot* out) {
  ReadOptions options;
  options.now_seconds = request.now_seconds;
  const TableDef& table = *request.table;
  bool statics_read = false;
  for (const auto& clustering : request.rows) {
    LiveRow row;
    bool found = false;
    KW_RETURN_IF_ERROR(engine_->GetRow(table, request.partition_key,
                                       clustering, options, &row, &found,
                                       statics_read ? nullptr : &out->statics));
    statics_read = true;
    out->rows.push_back(found ? std::optional<LiveRow>(std::move(row))
                              : std::nullopt);
  }
  if (statics_read && !request.first_row) return Status::OK();
  // No row named (a static-only statement) or the partition's first row.
  KW_ASSIGN_OR_RETURN(std::unique_ptr<PartitionReader> reader,
                      engine_->ReadPartition(table, request.partition_key,
                                             ClusteringBound{},
                                             ClusteringBound{}, options));
  LiveRow row;
  bool any = request.first_row && reader->Next(&row);
  KW_RETURN_IF_ERROR(reader->status());
  if (!statics_read) out->statics = reader->static_cells();
  if (any) out->first_row = std::move(row);
  return Status::OK();
}

Result<CasOutcome> LocalCasPath::Execute(const CasRequest& request,
                                         const WriteOptions& options) {
  const size_t bucket =
      std::hash<std::string>()(SerializePartitionKey(request.partition_key)) ^
      std::hash<uint64_t>()(request.table->storage_id);
  std::lock_guard<std::mutex> lock(locks_[bucket % locks_.size()]);
  CasOutcome out;
  KW_RETURN_IF_ERROR(Read(request, &out.current));
  KW_ASSIGN_OR_RETURN(out.applied, request.decide(out.current));
  if (!out.applied) return out;
  KW_ASSIGN_OR_RETURN(out.written, request.build(clock_->Next()));
  if (!out.written.empty()) {
    KW_RETURN_IF_ERROR(writes_->Apply(out.written, options));
  }
  return out;
}

}  // namespace keywise::query
