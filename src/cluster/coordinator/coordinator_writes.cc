// Coordinator::Apply: a write to every replica, acknowledged at the
// consistency level (Cassandra's StorageProxy.mutate).
#include <algorithm>
#include <mutex>
#include <optional>
#include <utility>

#include "cluster/coordinator/consistency.h"
#include "cluster/coordinator/coordinator.h"
#include "cluster/coordinator/fanout.h"
#include "cluster/coordinator/verbs.h"
#include "net/completion.h"
#include "protocol/consistency.h"
#include "schema/system_keyspace_names.h"
#include "storage/partition_key.h"
#include "storage/partition_update_codec.h"
#include "schema/partitioner.h"

namespace keywise::cluster {
namespace {

// The answers of one write: one tracker per partition update.
class WriteRound {
 public:
  void Add(ResponseTracker tracker) { trackers_.push_back(std::move(tracker)); }
  void Ack(size_t update, const Uuid& replica) {
    bool done = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      trackers_[update].OnSuccess(replica);
      done = Done();
    }
    if (done) done_.Notify();
  }
  // Waits until every update met its level or `deadline` (net::Completion:
  // a fiber is suspended, any other thread blocks); returns the fewest
  // answers of an update that did not.
  std::optional<int> Wait(std::chrono::steady_clock::time_point deadline) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (Done()) return std::nullopt;
    }
    done_.WaitUntil(deadline);
    std::lock_guard<std::mutex> lock(mu_);
    if (Done()) return std::nullopt;
    int fewest = INT32_MAX;
    for (const ResponseTracker& t : trackers_) {
      if (!t.Satisfied()) fewest = std::min(fewest, t.received());
    }
    return fewest;
  }
  int block_for(size_t update) const { return trackers_[update].block_for(); }

 private:
  // REQUIRES: mu_ held.
  bool Done() const {
    for (const ResponseTracker& t : trackers_) {
      if (!t.Satisfied()) return false;
    }
    return true;
  }

  std::mutex mu_;
  net::Completion done_;
  std::vector<ResponseTracker> trackers_;
};

std::string WriteTypeOf(query::WriteType type) {
  switch (type) {
    case query::WriteType::kSimple:
      return "SIMPLE";
    case query::WriteType::kBatch:
      return "BATCH";
    case query::WriteType::kUnloggedBatch:
      return "UNLOGGED_BATCH";
    case query::WriteType::kCounter:
      return "COUNTER";
  }
  return "SIMPLE";
}

}  // namespace

Coordinator::Coordinator(Engine* engine, MessagingService* messaging,
                         ReplicaService* replica, HintStore* hints, ViewFn view,
                         CoordinatorOptions options)
    : engine_(engine),
      messaging_(messaging),
      replica_(replica),
      hints_(hints),
      view_(std::move(view)),
      options_(options),
      fence_(view_()),
      counter_clock_(engine->clock()) {}

std::optional<Endpoint> Coordinator::EndpointOf(const Topology& topology,
                                                const Uuid& node) const {
  return PeerEndpoint(topology, node);
}

Result<Coordinator::Placement> Coordinator::Place(const TableDef& table) const {
  auto [view, ticket] = fence_.Acquire();
  return PlaceIn(table, std::move(view), std::move(ticket));
}

Result<Coordinator::Placement> Coordinator::PlaceIn(
    const TableDef& table, ClusterViewPtr view,
    RequestFence::Ticket ticket) const {
  Placement p;
  p.view = std::move(view);
  p.ticket = std::move(ticket);
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  KeyspaceDefPtr ks = schema->FindKeyspace(table.keyspace);
  if (ks == nullptr) {
    return Status::Invalid("Keyspace " + table.keyspace + " does not exist");
  }
  KW_ASSIGN_OR_RETURN(p.spec, ParseReplication(*ks));
  // system_auth and system_distributed have no tablets (schema_sync.cc):
  // each node keeps its own copy (system_auth: of the roles etcd holds,
  // server/node_auth.h), read and written on this node. system_traces
  // is gathered from every node instead (coordinator_gather.cc).
  if (IsReplicatedSystemKeyspace(table.keyspace) &&
      !GathersEverywhere(table)) {
    p.spec.kind = ReplicationSpec::Kind::kLocal;
  }
  p.table = schema->FindTable(table.keyspace, table.name);
  if (p.table == nullptr) {
    return Status::Invalid("unconfigured table " + table.name);
  }
  if (!p.spec.Replicated()) return p;
  p.tablets = p.view->TabletsOf(p.table->id);
  if (p.tablets == nullptr) {
    return Status::ServerError("No tablet map is known for table " +
                               table.keyspace + "." + table.name +
                               " yet; retry shortly");
  }
  return p;
}

Status Coordinator::Apply(const std::vector<PartitionUpdate>& updates,
                          const query::WriteOptions& options) {
  return Write(updates, options,
               std::chrono::steady_clock::now() + options_.write_timeout,
               std::nullopt);
}

Status Coordinator::WriteRaw(const std::vector<RawPartition>& partitions) {
  auto [view, ticket] = fence_.Acquire();
  for (const RawPartition& raw : partitions) {
    // Each partition has the write timeout (a load's batch is many).
    const auto deadline =
        std::chrono::steady_clock::now() + options_.write_timeout;
    KW_ASSIGN_OR_RETURN(Placement p, PlaceIn(*raw.table, view, ticket));
    if (!p.spec.Replicated()) {
      KW_RETURN_IF_ERROR(replica_->ApplyRepair(raw));
      continue;
    }
    const TabletInfo& tablet = p.tablets->TabletAt(raw.token);
    const std::optional<Uuid> pending = tablet.PendingReplica();
    const ReplicationSpec spec =
        TabletSpec(p.spec, *view->topology, tablet.replicas);
    KW_RETURN_IF_ERROR(AssureAvailable(Consistency::kAll, spec,
                                       *view->topology, tablet.replicas,
                                       pending));
    std::vector<Uuid> replicas = tablet.replicas;
    if (pending) replicas.push_back(*pending);
    KW_RETURN_IF_ERROR(Repair(p, replicas,
                              std::vector<RawPartition>(replicas.size(), raw),
                              Consistency::kAll, deadline));
  }
  return Status::OK();
}

Status Coordinator::Write(const std::vector<PartitionUpdate>& updates,
                          const query::WriteOptions& options,
                          std::chrono::steady_clock::time_point deadline,
                          std::optional<net::KeyLocks::Guard> held) {
  const Consistency cl = options.consistency;
  KW_RETURN_IF_ERROR(ValidateForWrite(cl));
  struct Target {
    const PartitionUpdate* update;
    std::vector<Uuid> replicas;  // with the pending one, if any
  };
  std::vector<PartitionUpdate> node_local;
  std::vector<Target> targets;
  auto round = std::make_shared<WriteRound>();
  const tracing::TracePtr trace =
      options.trace != nullptr ? options.trace->shared_from_this() : nullptr;
  // One view for the whole write, held until it returns.
  auto [view, ticket] = fence_.Acquire();
  for (const PartitionUpdate& u : updates) {
    KW_ASSIGN_OR_RETURN(Placement p, PlaceIn(*u.table, view, ticket));
    if (!p.spec.Replicated()) {
      node_local.push_back(u);
      continue;
    }
    const Token token = PartitionToken(*u.table, SerializePartitionKey(u.partition_key));
    const TabletInfo& tablet = p.tablets->TabletAt(token);
    const std::optional<Uuid> pending = tablet.PendingReplica();
    NoteRouting(*view->topology, tablet.replicas);
    load_.Record(u.table->id, token);
    // Unavailable before anything is sent (Cassandra's rule).
    const ReplicationSpec spec =
        TabletSpec(p.spec, *view->topology, tablet.replicas);
    KW_RETURN_IF_ERROR(
        AssureAvailable(cl, spec, *view->topology, tablet.replicas, pending));
    std::vector<Uuid> replicas = tablet.replicas;
    if (trace != nullptr) {
      trace->Trace("Writing a partition of " + u.table->keyspace + "." +
                   u.table->name + " (token " + std::to_string(token.value) +
                   ") at " + std::string(protocol::ConsistencyName(cl)) +
                   " to replicas " + NodeNames(*view->topology, replicas) +
                   (pending ? " and pending " +
                                  NodeName(*view->topology, *pending)
                            : std::string()));
    }
    ResponseTracker tracker(cl, spec, view->topology);
    if (pending) {
      replicas.push_back(*pending);
      tracker.AddPending(*pending);
    }
    targets.push_back(Target{&u, std::move(replicas)});
    round->Add(std::move(tracker));
  }
  if (!node_local.empty()) KW_RETURN_IF_ERROR(engine_->Apply(node_local));
  if (targets.empty()) return Status::OK();

  const Uuid local = view->topology->local();
  // A logged batch over several partitions: into the batch log first.
  std::vector<std::string> logged;
  std::vector<Uuid> log_nodes;
  Uuid batch_id;
  if (options.type == query::WriteType::kBatch && targets.size() > 1 &&
      batchlog_ != nullptr) {
    for (const Target& t : targets) {
      EncodePartitionUpdate(*t.update, &logged.emplace_back());
    }
    batch_id = Uuid::TimeBased(engine_->clock().NowMicros());
    KW_ASSIGN_OR_RETURN(
        log_nodes, batchlog_->Store(batch_id, logged, options.consistency));
    if (trace != nullptr) {
      trace->Trace("Logged batch stored in the batch log of " +
                   NodeNames(*view->topology, log_nodes));
    }
  }
  std::vector<PartitionUpdate> mine;
  std::vector<size_t> mine_index;
  for (size_t i = 0; i < targets.size(); ++i) {
    for (const Uuid& r : targets[i].replicas) {
      if (r != local) continue;
      mine.push_back(*targets[i].update);
      mine_index.push_back(i);
    }
  }
  // This replica counts once its view updates reached their replicas (or
  // hints), as a remote replica answers (replica_service.h).
  auto apply_mine = [&]() -> Status {
    if (mine.empty()) return Status::OK();
    return replica_->ApplyMutations(
        std::move(mine),
        [round, mine_index, local] {
          for (size_t i : mine_index) round->Ack(i, local);
        },
        trace.get());
  };
  // A counter leader writes its own shard first (what its next increment
  // reads) and only then lets it go to the others; other writes send
  // first, so the others' copies are on their way meanwhile.
  if (held) {
    KW_RETURN_IF_ERROR(apply_mine());
    held.reset();
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    const Target& t = targets[i];
    std::string encoded = logged.empty() ? std::string() : logged[i];
    for (const Uuid& r : t.replicas) {
      if (r == local) continue;
      if (encoded.empty()) EncodePartitionUpdate(*t.update, &encoded);
      std::optional<Endpoint> peer = EndpointOf(*view->topology, r);
      if (!peer || !view->topology->IsUp(r)) {
        if (trace != nullptr) {
          trace->Trace("Replica " + NodeName(*view->topology, r) +
                       " is down: storing a hint for it");
        }
        bool hinted = hints_->Store(r, encoded);
        if (hinted && cl == Consistency::kAny) round->Ack(i, r);
        continue;
      }
      // The callback keeps the view's ticket: a move's barrier waits until
      // every copy sent with an older view was answered or timed out, so
      // none reaches a replica that the move already cleaned up.
      ResponseCallback acked = [this, round, i, r, encoded, cl,
                                ticket](Response response) {
        if (response.ok()) {
          round->Ack(i, r);
          return;
        }
        bool hinted = hints_->Store(r, encoded);
        if (hinted && cl == Consistency::kAny) round->Ack(i, r);
      };
      if (trace == nullptr) [[likely]] {
        messaging_->Send(*peer, kMutationVerb, encoded, options_.write_timeout,
                         std::move(acked),
                         view->revision);  // the view that routed it (fencing)
        continue;
      }
      SendTraced(messaging_, *view->topology, r, *peer, kMutationVerb, encoded,
                 std::chrono::steady_clock::now() + options_.write_timeout,
                 trace, std::move(acked));
    }
  }
  KW_RETURN_IF_ERROR(apply_mine());  // nothing left when done above
  std::optional<int> short_of = round->Wait(deadline);
  if (trace != nullptr) {
    trace->Trace(short_of ? "Write timed out before " +
                                std::string(protocol::ConsistencyName(cl)) +
                                " was met"
                          : "Write acknowledged by enough replicas for " +
                                std::string(protocol::ConsistencyName(cl)));
  }
  if (!short_of) {
    if (!log_nodes.empty()) batchlog_->Remove(batch_id, log_nodes);
    return Status::OK();
  }
  // Timed out: a logged batch stays in the log and is replayed.
  ReplicaCounts counts;
  counts.consistency = options.consistency;
  counts.received = *short_of;
  counts.block_for = round->block_for(0);
  counts.write_type = WriteTypeOf(options.type);
  return Status::WithCounts(ErrorCode::kWriteTimeout,
                            "Operation timed out - received only " +
                                std::to_string(*short_of) + " responses.",
                            counts);
}

}  // namespace keywise::cluster
