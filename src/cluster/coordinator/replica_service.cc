#include "cluster/coordinator/replica_service.h"

#include <utility>

#include "cluster/coordinator/raw_digest.h"
#include "cluster/coordinator/traced_message.h"
#include "cluster/coordinator/truncations.h"
#include "cluster/coordinator/verbs.h"
#include "common/log.h"
#include "query/exec/write_path.h"
#include "storage/partition_key.h"
#include "storage/partition_update_codec.h"
#include "storage/raw_partition_codec.h"

namespace keywise::cluster {
namespace {

Status UnknownTable(const Uuid& id) {
  return Status::ServerError("Unknown table id " + id.ToString());
}

}  // namespace

ReadOptions ReplicaReadOptions(int32_t now_seconds, bool reversed) {
  ReadOptions options;
  options.now_seconds = now_seconds;
  options.reversed = reversed;
  return options;
}

TableLookup ReplicaService::Tables() {
  SchemaSnapshotPtr now = engine_->catalog().snapshot();
  std::lock_guard<std::mutex> lock(mu_);
  if (now != indexed_) {
    indexed_ = now;
    lookup_ = TablesById(now);
  }
  return lookup_;
}

Status ReplicaService::Register(MessagingService* messaging) {
  auto on =
      [&](Verb verb, HandlerThread thread,
          Result<std::string> (ReplicaService::*handle)(const std::string&)) {
        return messaging->RegisterHandler(
            verb, thread,
            [this, handle](IncomingMessage message, Responder responder) {
              Result<std::shared_ptr<const void>> hold = Admit(message);
              if (!hold.ok()) {
                responder.Fail(hold.status());
                return;
              }
              Result<std::string> answer = (this->*handle)(message.payload);
              if (answer.ok()) {
                responder.Respond(std::move(answer).value());
              } else {
                responder.Fail(answer.status());
              }
            });
      };
  // A write, a read of one partition (at most a batch of rows) and a read
  // repair are quick, as a single node's quick statements are: they run on
  // the loop that received them and are answered in the same turn. Scans,
  // streams and whole-range deletions go to the pool.
  constexpr HandlerThread kLoop = HandlerThread::kIoThread;
  constexpr HandlerThread kPool = HandlerThread::kPool;
  KW_RETURN_IF_ERROR(messaging->RegisterHandler(
      kMutationVerb, kLoop,
      [this](IncomingMessage message, Responder responder) {
        OnMutation(std::move(message), std::move(responder));
      }));
  KW_RETURN_IF_ERROR(on(kReadRawVerb, kLoop, &ReplicaService::OnReadRaw));
  KW_RETURN_IF_ERROR(on(kReadDigestVerb, kLoop, &ReplicaService::OnReadDigest));
  KW_RETURN_IF_ERROR(on(kRepairVerb, kLoop, &ReplicaService::OnRepair));
  KW_RETURN_IF_ERROR(on(kScanRawVerb, kPool, &ReplicaService::OnScanRaw));
  KW_RETURN_IF_ERROR(on(kTruncateVerb, kPool, &ReplicaService::OnTruncate));
  KW_RETURN_IF_ERROR(on(kCleanupVerb, kPool, &ReplicaService::OnCleanup));
  // A Paxos step may wait for its partition's lock, which a statement
  // fiber of this node's loops may hold: never on a loop.
  KW_RETURN_IF_ERROR(
      on(kPaxosPrepareVerb, kPool, &ReplicaService::OnPaxosPrepare));
  KW_RETURN_IF_ERROR(
      on(kPaxosProposeVerb, kPool, &ReplicaService::OnPaxosPropose));
  KW_RETURN_IF_ERROR(
      on(kPaxosExportVerb, kPool, &ReplicaService::OnPaxosExport));
  KW_RETURN_IF_ERROR(
      on(kPaxosImportVerb, kPool, &ReplicaService::OnPaxosImport));
  // Traced requests may be slower: the pool takes them all.
  KW_RETURN_IF_ERROR(messaging->RegisterHandler(
      kTracedVerb, kPool,
      [this](IncomingMessage message, Responder responder) {
        OnTraced(std::move(message), std::move(responder));
      }));
  KW_RETURN_IF_ERROR(messaging->RegisterHandler(
      kPaxosCommitVerb, kPool,
      [this](IncomingMessage message, Responder responder) {
        OnPaxosCommit(std::move(message), std::move(responder));
      }));
  return on(kStreamVerb, kPool, &ReplicaService::OnStream);
}

void ReplicaService::SetViewRouter(ViewRouter* router) {
  std::lock_guard<std::mutex> lock(mu_);
  router_ = router;
}

Result<ViewRouter*> ReplicaService::Router() {
  std::lock_guard<std::mutex> lock(mu_);
  if (router_ == nullptr) {
    return Status::ServerError("This node is not ready for writes yet");
  }
  return router_;
}

Status ReplicaService::ApplyMutations(std::vector<PartitionUpdate> updates,
                                      std::function<void()> done,
                                      tracing::TraceState* trace) {
  if (trace != nullptr) {
    trace->Trace("Applying " + query::DescribeUpdates(updates) +
                 " to this replica's storage");
    done = [trace = trace->shared_from_this(), done = std::move(done)] {
      trace->Trace("Mutation applied on this replica");
      done();
    };
  }
  if (views_ == nullptr) {
    KW_RETURN_IF_ERROR(engine_->Apply(updates));
    done();
    return Status::OK();
  }
  KW_ASSIGN_OR_RETURN(ViewRouter * router, Router());
  std::unique_ptr<ViewDelivery> delivery;
  KW_RETURN_IF_ERROR(views_->Apply(updates, &delivery));
  if (delivery == nullptr) {
    done();
  } else {
    router->Send(std::move(delivery), std::move(done));
  }
  return Status::OK();
}

Status ReplicaService::ApplyRepair(const RawPartition& raw) {
  if (views_ == nullptr) return engine_->ApplyRaw({raw});
  KW_ASSIGN_OR_RETURN(ViewRouter * router, Router());
  std::unique_ptr<ViewDelivery> delivery;
  KW_RETURN_IF_ERROR(views_->ApplyRaw({raw}, &delivery));
  if (delivery != nullptr) router->Send(std::move(delivery), [] {});
  return Status::OK();
}

Result<std::shared_ptr<const void>> ReplicaService::Admit(
    const IncomingMessage& message) {
  SenderGuard guard;
  {
    std::lock_guard<std::mutex> lock(mu_);
    guard = sender_guard_;
  }
  if (!guard) return std::shared_ptr<const void>();
  return guard(message.from, message.epoch);
}

void ReplicaService::OnMutation(IncomingMessage message, Responder responder) {
  Result<std::shared_ptr<const void>> hold = Admit(message);
  if (!hold.ok()) {
    responder.Fail(hold.status());
    return;
  }
  Result<PartitionUpdate> update =
      DecodePartitionUpdate(message.payload, Tables());
  if (!update.ok()) {
    responder.Fail(update.status());
    return;
  }
  std::vector<PartitionUpdate> updates;
  updates.push_back(std::move(update).value());
  // The responder answers once; it is shared with the callback, which
  // keeps the sender's hold until then.
  auto shared = std::make_shared<Responder>(std::move(responder));
  std::shared_ptr<const void> held = std::move(hold).value();
  Status st = ApplyMutations(
      std::move(updates), [shared, held] { shared->Respond(std::string()); });
  if (!st.ok()) shared->Fail(st);
}

Result<std::vector<PartitionUpdate>> ReplicaService::ProposalUpdates(
    const PaxosKey& key, const PaxosProposal& proposal) {
  std::vector<PartitionUpdate> updates;
  const TableLookup tables = Tables();
  for (const std::string& encoded : proposal.updates) {
    KW_ASSIGN_OR_RETURN(PartitionUpdate u,
                        DecodePartitionUpdate(encoded, tables));
    if (u.table->id != key.table_id ||
        SerializePartitionKey(u.partition_key) != key.partition_key) {
      return Status::ServerError(
          "Malformed paxos commit: an update of another partition");
    }
    updates.push_back(std::move(u));
  }
  return updates;
}

Status ReplicaService::PaxosCommit(const PaxosKey& key,
                                   const PaxosProposal& proposal,
                                   std::function<void()> done) {
  KW_ASSIGN_OR_RETURN(std::vector<PartitionUpdate> updates,
                      ProposalUpdates(key, proposal));
  if (updates.empty()) {
    KW_RETURN_IF_ERROR(paxos_.Commit(key, proposal));
    done();
    return Status::OK();
  }
  // The data first: a commit recorded without its data would be lost.
  // Once the data is written the round is done here (`done` answers): the
  // record only spares later rounds a repair, so failing to write it is
  // logged, not answered (an answer was, or will be, sent already).
  KW_RETURN_IF_ERROR(ApplyMutations(std::move(updates), std::move(done)));
  Status recorded = paxos_.Commit(key, proposal);
  if (!recorded.ok()) {
    LogWarn("paxos",
            "Applied a commit but could not record it: " + recorded.ToString());
  }
  return Status::OK();
}

void ReplicaService::OnPaxosCommit(IncomingMessage message,
                                   Responder responder) {
  Result<std::shared_ptr<const void>> hold = Admit(message);
  if (!hold.ok()) {
    responder.Fail(hold.status());
    return;
  }
  PaxosKey key;
  PaxosProposal proposal;
  Status decoded = DecodePaxosProposal(message.payload, &key, &proposal);
  if (!decoded.ok()) {
    responder.Fail(decoded);
    return;
  }
  auto shared = std::make_shared<Responder>(std::move(responder));
  std::shared_ptr<const void> held = std::move(hold).value();
  Status st = PaxosCommit(key, proposal,
                          [shared, held] { shared->Respond(std::string()); });
  if (!st.ok()) shared->Fail(st);
}

Status ReplicaService::PaxosImportState(
    const Uuid& table_id, const std::vector<PaxosStateEntry>& entries) {
  TableDefPtr table = Tables()(table_id);
  if (table == nullptr) return UnknownTable(table_id);
  // A commit older than gc_grace_seconds is recorded but not applied: the
  // tombstones of later deletes may be purged already, and its data would
  // come back (the move streamed whatever of it still lives).
  const int64_t oldest_applied =
      engine_->clock().NowMicros() -
      int64_t{table->options.gc_grace_seconds} * 1000000;
  for (const PaxosStateEntry& e : entries) {
    const PaxosKey key{table_id, e.partition_key};
    KW_RETURN_IF_ERROR(
        paxos_.Merge(key, e.state, [&](const PaxosProposal& commit) -> Status {
          if (BallotMicros(commit.ballot) < oldest_applied) return Status::OK();
          KW_ASSIGN_OR_RETURN(std::vector<PartitionUpdate> updates,
                              ProposalUpdates(key, commit));
          return updates.empty() ? Status::OK() : engine_->Apply(updates);
        }));
  }
  return Status::OK();
}

Result<std::string> ReplicaService::OnPaxosExport(const std::string& payload) {
  KW_ASSIGN_OR_RETURN(PaxosExportRequest request,
                      DecodePaxosExportRequest(payload));
  KW_ASSIGN_OR_RETURN(PaxosExport answer, PaxosExportState(request));
  return EncodePaxosExport(answer);
}

Result<std::string> ReplicaService::OnPaxosImport(const std::string& payload) {
  Uuid table_id;
  std::vector<PaxosStateEntry> entries;
  KW_RETURN_IF_ERROR(DecodePaxosImport(payload, &table_id, &entries));
  KW_RETURN_IF_ERROR(PaxosImportState(table_id, entries));
  return std::string();
}

Result<std::string> ReplicaService::OnPaxosPrepare(const std::string& payload) {
  PaxosKey key;
  Uuid ballot;
  KW_RETURN_IF_ERROR(DecodePaxosPrepare(payload, &key, &ballot));
  KW_ASSIGN_OR_RETURN(PaxosPromise promise, paxos_.Prepare(key, ballot));
  return EncodePaxosPromise(promise);
}

Result<std::string> ReplicaService::OnPaxosPropose(const std::string& payload) {
  PaxosKey key;
  PaxosProposal proposal;
  KW_RETURN_IF_ERROR(DecodePaxosProposal(payload, &key, &proposal));
  KW_ASSIGN_OR_RETURN(bool accepted, paxos_.Propose(key, proposal));
  return std::string(1, accepted ? '\1' : '\0');
}

Result<RawPartition> ReplicaService::ReadRaw(const ReadRawRequest& r,
                                             tracing::TraceState* trace) {
  TableDefPtr table = Tables()(r.table_id);
  if (table == nullptr) return UnknownTable(r.table_id);
  KW_ASSIGN_OR_RETURN(
      std::vector<std::string> pk,
      SplitPartitionKey(r.partition_key, table->PartitionKeySize()));
  if (trace != nullptr) return TracedReadRaw(table, pk, r, *trace);
  return engine_->ReadRaw(table, pk, r.slice, r.row_limit,
                          ReplicaReadOptions(r.now_seconds, r.reversed));
}

Result<std::string> ReplicaService::OnReadRaw(const std::string& payload) {
  KW_ASSIGN_OR_RETURN(ReadRawRequest r, DecodeReadRawRequest(payload));
  KW_ASSIGN_OR_RETURN(RawPartition raw, ReadRaw(r));
  std::string out;
  EncodeRawPartition(raw, &out);
  return out;
}

Result<std::string> ReplicaService::OnReadDigest(const std::string& payload) {
  KW_ASSIGN_OR_RETURN(ReadRawRequest r, DecodeReadRawRequest(payload));
  KW_ASSIGN_OR_RETURN(RawPartition raw, ReadRaw(r));
  return RawDigest(raw);
}

Result<std::string> ReplicaService::OnScanRaw(const std::string& payload) {
  KW_ASSIGN_OR_RETURN(ScanRawRequest r, DecodeScanRawRequest(payload));
  TableDefPtr table = Tables()(r.table_id);
  if (table == nullptr) return UnknownTable(r.table_id);
  KW_ASSIGN_OR_RETURN(
      RawScan scan,
      engine_->ScanRaw(table, r.tokens, r.slice,
                       r.has_after ? &r.after : nullptr, r.row_limit,
                       ReplicaReadOptions(r.now_seconds, false)));
  return EncodeRawScan(scan);
}

Result<std::string> ReplicaService::OnRepair(const std::string& payload) {
  KW_ASSIGN_OR_RETURN(RawPartition raw, DecodeRawPartition(payload, Tables()));
  KW_RETURN_IF_ERROR(ApplyRepair(raw));
  return std::string();
}

Result<std::string> ReplicaService::OnTruncate(const std::string& payload) {
  std::optional<Uuid> id = Uuid::FromBytes(payload);
  if (!id) return Status::ServerError("Malformed truncate request");
  TableDefPtr table = Tables()(*id);
  if (table == nullptr) return UnknownTable(*id);
  KW_RETURN_IF_ERROR(TruncateLocally(*engine_, *table));
  return std::string();
}

Result<std::string> ReplicaService::OnCleanup(const std::string& payload) {
  KW_ASSIGN_OR_RETURN(TabletRange range, DecodeTabletRange(payload));
  KW_RETURN_IF_ERROR(DropRange(range));
  return std::string();
}

void ReplicaService::SetSenderGuard(SenderGuard guard) {
  std::lock_guard<std::mutex> lock(mu_);
  sender_guard_ = std::move(guard);
}

void ReplicaService::SetDropGuard(DropGuard guard) {
  std::lock_guard<std::mutex> lock(mu_);
  drop_guard_ = std::move(guard);
}

Status ReplicaService::DropRange(const TabletRange& range) {
  DropGuard guard;
  {
    std::lock_guard<std::mutex> lock(mu_);
    guard = drop_guard_;
  }
  if (!guard) {
    return Status::ServerError("This node is not ready to delete data yet");
  }
  KW_ASSIGN_OR_RETURN(std::shared_ptr<const void> hold, guard(range));
  TableDefPtr table = Tables()(range.table_id);
  // A table dropped meanwhile has no data left to drop.
  if (table == nullptr) return Status::OK();
  return engine_->DeleteTokenRange(table->storage_id, range.tokens);
}

Result<std::string> ReplicaService::OnStream(const std::string& payload) {
  KW_ASSIGN_OR_RETURN(RawScan scan, DecodeRawScan(payload, Tables()));
  if (scan.partitions.empty()) return std::string();
  KW_RETURN_IF_ERROR(engine_->ApplyRaw(scan.partitions));
  return std::string();
}

}  // namespace keywise::cluster
