// Coordinator::ApplyCounters and LeadCounters: counter increments led by a
// replica of their partition (query/exec/counter_path.h,
// docs/counters.md), as Cassandra's counter write path: the coordinator
// forwards to a leader, which applies its shard's next value locally and
// then writes it to the other replicas.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/coordinator/consistency.h"
#include "cluster/coordinator/coordinator.h"
#include "cluster/coordinator/counter_messages.h"
#include "cluster/coordinator/fanout.h"
#include "schema/partitioner.h"
#include "storage/partition_key.h"
#include "storage/partition_update_codec.h"

namespace keywise::cluster {
namespace {

Status LockTimeout(const query::WriteOptions& options,
                   std::chrono::milliseconds waited) {
  ReplicaCounts counts;
  counts.consistency = options.consistency;
  counts.write_type = "COUNTER";
  return Status::WithCounts(
      ErrorCode::kWriteTimeout,
      "Counter write timed out: earlier increments of the partition still "
      "held it after " +
          std::to_string(waited.count()) + " ms",
      counts);
}

// The replica to lead an increment: this node when it is a live replica;
// else a live replica of this node's datacenter, else any live one, taken
// in turn; nullopt when none is up.
std::optional<Uuid> PickLeader(const Topology& topology,
                               const std::vector<Uuid>& replicas,
                               uint64_t turn) {
  const Uuid& local = topology.local();
  for (const Uuid& r : replicas) {
    if (r == local && topology.IsUp(r)) return r;
  }
  const std::string dc = topology.LocalDc();
  for (bool same_dc : {true, false}) {
    std::vector<Uuid> up;
    for (const Uuid& r : replicas) {
      const NodeStatus* n = topology.Find(r);
      if (n == nullptr || !topology.IsUp(r)) continue;
      if (same_dc && n->info.dc != dc) continue;
      up.push_back(r);
    }
    if (!up.empty()) return up[turn % up.size()];
  }
  return std::nullopt;
}

}  // namespace

Status Coordinator::ApplyCounters(const std::vector<PartitionUpdate>& updates,
                                  const query::WriteOptions& options) {
  KW_RETURN_IF_ERROR(ValidateForWrite(options.consistency));
  for (const PartitionUpdate& u : updates) {
    KW_ASSIGN_OR_RETURN(Placement p, Place(*u.table));
    if (!p.spec.Replicated()) {
      KW_RETURN_IF_ERROR(LeadCounters(u, options));
      continue;
    }
    const Topology& topology = *p.view->topology;
    const Token token =
        PartitionToken(*u.table, SerializePartitionKey(u.partition_key));
    const TabletInfo& tablet = p.tablets->TabletAt(token);
    // Unavailable before anything is sent, as for any write.
    KW_RETURN_IF_ERROR(AssureAvailable(
        options.consistency, TabletSpec(p.spec, topology, tablet.replicas),
        topology, tablet.replicas, tablet.PendingReplica()));
    std::optional<Uuid> leader =
        PickLeader(topology, tablet.replicas,
                   leader_turn_.fetch_add(1, std::memory_order_relaxed));
    if (!leader) {
      return Status::ServerError("No live replica to lead the counter update");
    }
    if (*leader == topology.local()) {
      KW_RETURN_IF_ERROR(LeadCounters(u, options));
    } else {
      KW_RETURN_IF_ERROR(AskCounterLeader(p, *leader, u, options));
    }
  }
  return Status::OK();
}

Status Coordinator::AskCounterLeader(const Placement& p, const Uuid& leader,
                                     const PartitionUpdate& update,
                                     const query::WriteOptions& options) {
  CounterLeaderRequest request;
  request.consistency = options.consistency;
  EncodePartitionUpdate(update, &request.update);
  // The leader's own write may take the write timeout: wait a little more
  // for its answer.
  const auto deadline = std::chrono::steady_clock::now() +
                        options_.write_timeout + std::chrono::seconds(1);
  ReplicaRound<std::string> round(messaging_, *p.view->topology, deadline);
  const size_t asked = round.Ask(
      leader, kCounterLeaderVerb, EncodeCounterLeaderRequest(request),
      [] { return Result<std::string>(Status::ServerError("not remote")); },
      [](std::string answer) { return Result<std::string>(std::move(answer)); });
  round.WaitForAll();
  Result<std::string> answer = round.Take(asked);
  if (answer.ok()) return DecodeCounterOutcome(*answer, options.consistency);
  if (answer.status().code() == ErrorCode::kReadTimeout) {
    ReplicaCounts counts;
    counts.consistency = options.consistency;
    counts.write_type = "COUNTER";
    return Status::WithCounts(
        ErrorCode::kWriteTimeout,
        "Operation timed out - the counter leader " + leader.ToString() +
            " did not answer",
        counts);
  }
  return answer.status();
}

Status Coordinator::LeadCounters(PartitionUpdate update,
                                 const query::WriteOptions& options) {
  KW_ASSIGN_OR_RETURN(Placement p, Place(*update.table));
  const Uuid& local = p.view->topology->local();
  if (p.spec.Replicated()) {
    const Token token = PartitionToken(
        *update.table, SerializePartitionKey(update.partition_key));
    const std::vector<Uuid>& replicas = p.tablets->TabletAt(token).replicas;
    if (std::find(replicas.begin(), replicas.end(), local) == replicas.end()) {
      return Status::ServerError(
          "Cannot lead the counter update: this node is no longer a replica "
          "of the partition; retry");
    }
  }
  std::optional<net::KeyLocks::Guard> lock = counter_locks_.Lock(
      query::CounterLockKey(update),
      std::chrono::steady_clock::now() + options_.write_timeout);
  if (!lock) return LockTimeout(options, options_.write_timeout);
  KW_RETURN_IF_ERROR(query::ShardCounterUpdate(
      *engine_, local.bytes_view(), counter_clock_.Next(), &update));
  // The lock is released once this node applied its share: the next
  // increment reads the shard this one wrote.
  return Write({std::move(update)}, options, std::move(lock));
}

}  // namespace keywise::cluster
