#include "cluster/tablets/paxos_handoff.h"

#include <chrono>
#include <string>

#include "cluster/coordinator/fanout.h"
#include "cluster/coordinator/paxos_messages.h"
#include "cluster/coordinator/replica_service.h"

namespace keywise::cluster {
namespace {

// Partitions per page: a page holds whole proposals, each bounded by the
// batch size limits their statements passed.
constexpr uint64_t kPageEntries = 500;

}  // namespace

Status HandOverPaxosState(Coordinator* coordinator, const Topology& topology,
                          const Uuid& table_id, TokenInterval tokens,
                          const std::vector<Uuid>& sources, const Uuid& pending,
                          const std::atomic<bool>* stop, size_t* handed_over) {
  ReplicaService* replica = coordinator->replica();
  for (const Uuid& source : sources) {
    PaxosExportRequest request{{table_id, tokens}, std::string(), kPageEntries};
    while (true) {
      if (stop != nullptr && stop->load()) {
        return Status::ServerError("This node is stopping");
      }
      const auto deadline = std::chrono::steady_clock::now() +
                            coordinator->options().write_timeout;
      std::vector<Result<PaxosExport>> page = Gather<PaxosExport>(
          *coordinator, topology, {source}, kPaxosExportVerb,
          EncodePaxosExportRequest(request),
          [&]() { return replica->PaxosExportState(request); },
          [](std::string answer) { return DecodePaxosExport(answer); },
          deadline);
      if (!page[0].ok()) return page[0].status();
      const PaxosExport& got = *page[0];
      if (!got.entries.empty()) {
        std::vector<Result<bool>> acks = Gather<bool>(
            *coordinator, topology, {pending}, kPaxosImportVerb,
            EncodePaxosImport(table_id, got.entries),
            [&]() -> Result<bool> {
              KW_RETURN_IF_ERROR(
                  replica->PaxosImportState(table_id, got.entries));
              return true;
            },
            [](std::string) -> Result<bool> { return true; },
            std::chrono::steady_clock::now() +
                coordinator->options().write_timeout);
        if (!acks[0].ok()) return acks[0].status();
        *handed_over += got.entries.size();
        request.after = got.entries.back().partition_key;
      }
      if (got.complete || got.entries.empty()) break;
    }
  }
  return Status::OK();
}

}  // namespace keywise::cluster
