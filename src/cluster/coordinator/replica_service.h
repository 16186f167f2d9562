// ReplicaService: what this node does as a replica for coordinators: it
// applies mutations, answers raw reads and scans, applies read repairs and
// streamed tablets, truncates and drops tablets that moved away, on its own
// storage (the handlers of verbs.h).
//
// Contract: Register before the MessagingService starts. A mutation of a
// table with views is answered once it is written with the journal of the
// view updates it caused for other nodes, or once those were applied or
// hinted when the router says the write waits (view_routing.h); other
// mutations, reads
// of one partition and read repairs run on the loop that received them
// (quick, as a single node's quick statements); scans, streams, truncation
// and cleanup on the messaging handler pool, and so do the Paxos verbs,
// whose partition lock may wait for a statement fiber of this node. A request
// for a table this node does not know yet (its schema lags) fails with
// ServerError "Unknown table id ...", which the coordinator treats as a failed
// replica. Deleting a range (kCleanup, DropRange) asks the drop guard first and
// holds what it returns while deleting; without a guard it is refused.
// Every request from a peer asks the sender guard first (when set) and
// holds what it returns while it runs: the cluster node refuses peers that
// its view shows down, whose views may be stale (fencing). A kTraced
// request (traced_message.h) runs its inner verb on the handler pool with
// this node's trace events of it (replica_tracing.cc).
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "cluster/coordinator/paxos_store.h"
#include "cluster/coordinator/verbs.h"
#include "cluster/messaging/messaging_service.h"
#include "storage/engine.h"
#include "storage/table_lookup.h"
#include "tracing/tracer.h"
#include "views/view_maintainer.h"
#include "views/view_router.h"

namespace keywise::cluster {

class ReplicaService {
 public:
  // `engine` and `views` (the node's view maintenance; null: writes go
  // straight to storage, as tests of other parts do) outlive the service.
  explicit ReplicaService(Engine* engine, ViewMaintainer* views = nullptr)
      : engine_(engine), views_(views), paxos_(engine) {}
  Status Register(MessagingService* messaging);
  // The node's tracer: requests of traced sessions (kTraced,
  // traced_message.h) record this node's events of them. Without one
  // they run untraced. `tracer` outlives the service.
  void SetTracer(tracing::Tracer* tracer) { tracer_.store(tracer); }

  // This node's tables by id, rebuilt when the schema changed.
  TableLookup Tables();

  // Whether this node may delete its data of a range: an error when it
  // replicates or receives part of it; else something to hold while
  // deleting (the cluster node's guard returns a fence ticket, so a
  // barrier for a newer view waits until the deletion is done).
  using DropGuard =
      std::function<Result<std::shared_ptr<const void>>(const TabletRange&)>;
  void SetDropGuard(DropGuard guard);
  // Whether to serve a request from node `from` sent with `epoch` (the
  // etcd revision of its view, messaging's IncomingMessage::epoch): an
  // error refuses it; else something to hold while serving it.
  using SenderGuard = std::function<Result<std::shared_ptr<const void>>(
      const Uuid& from, int64_t epoch)>;
  void SetSenderGuard(SenderGuard guard);
  // Deletes this node's data of `range` (a tablet that moved away, or a
  // range about to be streamed in), if the guard allows it.
  Status DropRange(const TabletRange& range);
  // Where the view updates this node does not apply go (view_routing.h);
  // `router` outlives the service. With a view maintainer and no router
  // yet, writes are refused (ServerError: the coordinator hints them), so
  // none misses its view updates while the node starts.
  void SetViewRouter(ViewRouter* router);
  // Applies a write as this replica (a kMutation, or the coordinator's own
  // share): the error when storage refused it; else OK, and `done` runs
  // (on any thread) when the router lets the write be acknowledged
  // (ViewRouter::Send). A kMutation is answered then.
  // With `trace`, the write and its acknowledgement are recorded there.
  Status ApplyMutations(std::vector<PartitionUpdate> updates,
                        std::function<void()> done,
                        tracing::TraceState* trace = nullptr);
  // Applies a read repair (kRepair, or the coordinator's own), with the
  // view updates it causes (sent without waiting).
  Status ApplyRepair(const RawPartition& raw);
  // This node's raw answer to a read (what kReadRaw and kReadDigest read).
  // With `trace`, the read and what it found (live rows, tombstones) are
  // recorded there.
  Result<RawPartition> ReadRaw(const ReadRawRequest& request,
                               tracing::TraceState* trace = nullptr);

  // Lightweight transactions (paxos_store.h): this node's answers to the
  // Paxos verbs (paxos_messages.h), for a peer or the coordinator's own
  // share. PaxosCommit applies the proposal's updates (with their view
  // updates), records the commit, and runs `done` when the write may be
  // acknowledged, as ApplyMutations.
  Result<PaxosPromise> PaxosPrepare(const PaxosKey& key, const Uuid& ballot) {
    return paxos_.Prepare(key, ballot);
  }
  Result<bool> PaxosPropose(const PaxosKey& key,
                            const PaxosProposal& proposal) {
    return paxos_.Propose(key, proposal);
  }
  Status PaxosCommit(const PaxosKey& key, const PaxosProposal& proposal,
                     std::function<void()> done);
  // A moving tablet's Paxos state (kPaxosExport, kPaxosImport): read here
  // from an old replica, merged here into the new one. An imported commit
  // newer than this node's has its updates applied first, without view
  // updates: the old replicas sent those when the round committed, and
  // the move streams the data as it does for every other write.
  Result<PaxosExport> PaxosExportState(const PaxosExportRequest& request) {
    return paxos_.Export(request.range, request.after, request.limit);
  }
  Status PaxosImportState(const Uuid& table_id,
                          const std::vector<PaxosStateEntry>& entries);
  // The sender guard's answer for `message` (null hold without a guard):
  // what every handler of a peer's request asks first.
  Result<std::shared_ptr<const void>> Admit(const IncomingMessage& message);

 private:
  void OnMutation(IncomingMessage message, Responder responder);
  // kTraced (replica_tracing.cc): the inner request, with this node's
  // events of it.
  void OnTraced(IncomingMessage message, Responder responder);
  Result<RawPartition> TracedReadRaw(const TableDefPtr& table,
                                     const std::vector<std::string>& pk,
                                     const ReadRawRequest& request,
                                     tracing::TraceState& trace);
  Result<std::string> TracedScanRaw(const std::string& payload,
                                    tracing::TraceState& trace);
  Result<ViewRouter*> Router();
  Result<std::string> OnReadRaw(const std::string& payload);
  Result<std::string> OnReadDigest(const std::string& payload);
  Result<std::string> OnScanRaw(const std::string& payload);
  Result<std::string> OnRepair(const std::string& payload);
  Result<std::string> OnTruncate(const std::string& payload);
  Result<std::string> OnCleanup(const std::string& payload);
  Result<std::string> OnStream(const std::string& payload);
  Result<std::string> OnPaxosPrepare(const std::string& payload);
  Result<std::string> OnPaxosPropose(const std::string& payload);
  void OnPaxosCommit(IncomingMessage message, Responder responder);
  Result<std::string> OnPaxosExport(const std::string& payload);
  Result<std::string> OnPaxosImport(const std::string& payload);
  // Decodes a proposal's updates, each of the partition `key` names.
  Result<std::vector<PartitionUpdate>> ProposalUpdates(
      const PaxosKey& key, const PaxosProposal& proposal);

  Engine* const engine_;
  ViewMaintainer* const views_;
  std::mutex mu_;
  SchemaSnapshotPtr indexed_;     // guarded by mu_
  TableLookup lookup_;            // guarded by mu_
  DropGuard drop_guard_;          // guarded by mu_
  ViewRouter* router_ = nullptr;  // guarded by mu_
  SenderGuard sender_guard_;      // guarded by mu_
  std::atomic<tracing::Tracer*> tracer_{nullptr};
  PaxosStore paxos_;
};

// The ReadOptions a replica reads with for a coordinator.
ReadOptions ReplicaReadOptions(int32_t now_seconds, bool reversed);

}  // namespace keywise::cluster
