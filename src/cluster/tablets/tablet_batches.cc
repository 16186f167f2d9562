#include "cluster/tablets/tablet_batches.h"

#include <chrono>

namespace keywise::cluster {

Status ForEachMergedBatch(Coordinator* c, const Uuid& table_id,
                          TokenInterval tokens, size_t batch_rows,
                          const std::vector<Uuid>& contacts,
                          const std::atomic<bool>* stop,
                          const PlacementFn& placement,
                          const MergedBatchFn& batch, size_t* repaired) {
  ScanRawRequest request;
  request.table_id = table_id;
  request.tokens = tokens;
  request.row_limit = batch_rows;
  while (true) {
    if (stop != nullptr && stop->load()) {
      return Status::ServerError("This node is stopping");
    }
    KW_ASSIGN_OR_RETURN(std::shared_ptr<const Coordinator::Placement> p,
                        placement());
    request.now_seconds = c->engine()->clock().NowSeconds();
    const auto deadline =
        std::chrono::steady_clock::now() + c->options().read_timeout;
    KW_ASSIGN_OR_RETURN(RawScan scan,
                        c->ScanMerged(*p, contacts, request, Consistency::kAll,
                                      deadline, repaired));
    const bool complete = scan.complete;
    if (!complete) {
      request.has_after = true;
      request.after = scan.resume_after();
    }
    KW_RETURN_IF_ERROR(batch(scan));
    if (complete) return Status::OK();
  }
}

}  // namespace keywise::cluster
