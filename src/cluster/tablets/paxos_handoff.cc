#include "cluster/tablets/paxos_handoff.h"

#include <chrono>
#include <string>

#include "cluster/coordinator/fanout.h"
#include "cluster/coordinator/paxos_messages.h"
#include "cluster/coordinator/replica_service.h"
#include "common/log.h"

namespace keywise::cluster {
namespace {

// Partitions per page (the exporting replica also bounds a page's bytes).
constexpr uint64_t kPageEntries = 500;
// How long one page may take to read or to merge: a read may scan much of
// system.paxos, a merge applies up to a page of commits.
constexpr std::chrono::seconds kPageTimeout{30};

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
      const auto deadline = std::chrono::steady_clock::now() + kPageTimeout;
      std::vector<Result<PaxosExport>> page = Gather<PaxosExport>(
          *coordinator, topology, {source}, kPaxosExportVerb,
          EncodePaxosExportRequest(request),
          [&]() { return replica->PaxosExportState(request); },
          [](std::string answer) { return DecodePaxosExport(answer); },
          deadline);
      if (!page[0].ok()) {
        // A node of the previous release has no kPaxosExport: during a
        // rolling upgrade the move goes on without the hand-over, as
        // before it existed.
        if (page[0].status().message().find("unknown verb") !=
            std::string::npos) {
          LogWarn("cluster", "Node " + source.ToString() +
                                 " cannot hand over Paxos state (an older "
                                 "release): moving without it");
          break;
        }
        return page[0].status();
      }
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
            std::chrono::steady_clock::now() + kPageTimeout);
        if (!acks[0].ok()) {
          if (acks[0].status().message().find("unknown verb") !=
              std::string::npos) {
            LogWarn("cluster", "Node " + pending.ToString() +
                                   " cannot take Paxos state (an older "
                                   "release): moving without it");
            return Status::OK();
          }
          return acks[0].status();
        }
        *handed_over += got.entries.size();
        request.after = got.entries.back().partition_key;
      }
      if (got.complete) break;
      if (got.entries.empty()) {
        return Status::ServerError(
            "Paxos state export made no progress (an empty page that is not "
            "the last)");
      }
    }
  }
  return Status::OK();
}

}  // namespace keywise::cluster
