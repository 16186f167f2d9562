#include "query/exec/cas_path.h"

#include <utility>

#include "storage/partition_key.h"

namespace keywise::query {

Status ReadCasSnapshot(ReadPath& reads, const CasRequest& request,
                       const ReadCall& call, CasSnapshot* out) {
  const TableDef& table = *request.table;
  bool statics_read = false;
  for (const auto& clustering : request.rows) {
    LiveRow row;
    bool found = false;
    KW_RETURN_IF_ERROR(reads.GetRow(table, request.partition_key, clustering,
                                    call, &row, &found,
                                    statics_read ? nullptr : &out->statics));
    statics_read = true;
    out->rows.push_back(found ? std::optional<LiveRow>(std::move(row))
                              : std::nullopt);
  }
  if (statics_read && !request.first_row) return Status::OK();
  // No row named (a static-only statement) or the partition's first row.
  KW_ASSIGN_OR_RETURN(std::unique_ptr<PartitionReader> reader,
                      reads.ReadPartition(table, request.partition_key,
                                          ClusteringBound{}, ClusteringBound{},
                                          call));
  LiveRow row;
  const bool any = request.first_row && reader->Next(&row);
  KW_RETURN_IF_ERROR(reader->status());
  if (!statics_read) out->statics = reader->static_cells();
  if (any) out->first_row = std::move(row);
  return Status::OK();
}

Result<CasOutcome> LocalCasPath::Execute(const CasRequest& request,
                                         const WriteOptions& options) {
  std::string key = std::to_string(request.table->storage_id) + ":" +
                    SerializePartitionKey(request.partition_key);
  std::optional<net::KeyLocks::Guard> lock = locks_.Lock(
      key, std::chrono::steady_clock::now() + contention_timeout);
  if (!lock) {
    ReplicaCounts counts;
    counts.consistency = request.serial;
    counts.block_for = 1;
    counts.write_type = "CAS";
    return Status::WithCounts(
        ErrorCode::kWriteTimeout,
        "CAS operation timed out: earlier conditional updates of the "
        "partition still held it after " +
            std::to_string(contention_timeout.count()) +
            " ms (cas_contention_timeout_in_ms)",
        counts);
  }
  CasOutcome out;
  ReadCall call;
  call.storage.now_seconds = request.now_seconds;
  KW_RETURN_IF_ERROR(ReadCasSnapshot(reads_, request, call, &out.current));
  KW_ASSIGN_OR_RETURN(out.applied, request.decide(out.current));
  if (!out.applied) return out;
  KW_ASSIGN_OR_RETURN(out.written, request.build(clock_->Next()));
  if (!out.written.empty()) {
    KW_RETURN_IF_ERROR(writes_->Apply(out.written, options));
  }
  return out;
}

}  // namespace keywise::query
