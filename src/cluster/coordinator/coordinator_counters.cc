// Coordinator::ApplyCounters and LeadCounters: counter increments led by a
// replica of their partition (query/exec/counter_path.h,
// docs/counters.md), as Cassandra's counter write path: the coordinator
// forwards to a leader, which applies its shard's next value locally and
// then writes it to the other replicas.
#include <algorithm>
#include <chrono>
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

using Clock = std::chrono::steady_clock;

// The WriteTimeout of a counter write that `received` of `block_for`
// replicas acknowledged.
Status CounterTimeout(const std::string& message, Consistency cl,
                      int block_for, int received = 0) {
  ReplicaCounts counts;
  counts.consistency = cl;
  counts.block_for = block_for;
  counts.received = received;
  counts.write_type = "COUNTER";
  return Status::WithCounts(ErrorCode::kWriteTimeout, message, counts);
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

bool NotAReplica(const Status& st) {
  return st.code() == ErrorCode::kServerError &&
         st.message() == kNotCounterReplica;
}

}  // namespace

Status Coordinator::ApplyCounters(const std::vector<PartitionUpdate>& updates,
                                  const query::WriteOptions& options) {
  KW_RETURN_IF_ERROR(ValidateForWrite(options.consistency));
  for (const PartitionUpdate& u : updates) {
    // A leader whose view had moved on wrote nothing: placed again, once.
    Status st;
    for (int attempt = 0; attempt < 2; ++attempt) {
      KW_ASSIGN_OR_RETURN(Placement p, Place(*u.table));
      if (!p.spec.Replicated()) {
        st = LeadCounters(u, options);
        break;
      }
      const Topology& topology = *p.view->topology;
      const Token token =
          PartitionToken(*u.table, SerializePartitionKey(u.partition_key));
      const TabletInfo& tablet = p.tablets->TabletAt(token);
      const ReplicationSpec spec = TabletSpec(p.spec, topology, tablet.replicas);
      // Unavailable before anything is sent, as for any write.
      KW_RETURN_IF_ERROR(AssureAvailable(options.consistency, spec, topology,
                                         tablet.replicas,
                                         tablet.PendingReplica()));
      std::optional<Uuid> leader =
          PickLeader(topology, tablet.replicas,
                     leader_turn_.fetch_add(1, std::memory_order_relaxed));
      if (!leader) {
        return Status::ServerError(
            "No live replica to lead the counter update");
      }
      st = *leader == topology.local()
               ? LeadCounters(u, options)
               : AskCounterLeader(
                     p, *leader, u, options,
                     ResponseTracker(options.consistency, spec, p.view->topology)
                         .block_for());
      if (!NotAReplica(st)) break;
    }
    KW_RETURN_IF_ERROR(st);
  }
  return Status::OK();
}

Status Coordinator::AskCounterLeader(const Placement& p, const Uuid& leader,
                                     const PartitionUpdate& update,
                                     const query::WriteOptions& options,
                                     int block_for) {
  CounterLeaderRequest request;
  request.consistency = options.consistency;
  EncodePartitionUpdate(update, &request.update);
  // The leader spends at most the write timeout: wait a little more for
  // its answer to travel.
  const auto deadline =
      Clock::now() + options_.write_timeout + std::chrono::seconds(1);
  ReplicaRound<std::string> round(messaging_, *p.view->topology, deadline);
  const size_t asked = round.Ask(
      leader, kCounterLeaderVerb, EncodeCounterLeaderRequest(request),
      [] { return Result<std::string>(Status::ServerError("not remote")); },
      [](std::string answer) { return Result<std::string>(std::move(answer)); });
  round.WaitForAll();
  Result<std::string> answer = round.Take(asked);
  if (answer.ok()) return DecodeCounterOutcome(*answer, options.consistency);
  const Status& failed = answer.status();
  if (failed.code() == ErrorCode::kReadTimeout) {
    return CounterTimeout("Operation timed out - the counter leader " +
                              leader.ToString() + " did not answer",
                          options.consistency, block_for);
  }
  if (!IsCounterWriteError(failed.code())) {
    return Status::ServerError("Counter leader " + leader.ToString() +
                               " failed: " + failed.message());
  }
  return failed;
}

Status Coordinator::LeadCounters(PartitionUpdate update,
                                 const query::WriteOptions& options) {
  const auto deadline = Clock::now() + options_.write_timeout;
  if (!update.table->IsCounterTable()) {
    return Status::Invalid("Not a counter table: " + update.table->keyspace +
                           "." + update.table->name);
  }
  KW_ASSIGN_OR_RETURN(Placement p, Place(*update.table));
  const Uuid& local = p.view->topology->local();
  int block_for = 1;
  if (p.spec.Replicated()) {
    const Token token = PartitionToken(
        *update.table, SerializePartitionKey(update.partition_key));
    const std::vector<Uuid>& replicas = p.tablets->TabletAt(token).replicas;
    if (std::find(replicas.begin(), replicas.end(), local) == replicas.end()) {
      return Status::ServerError(std::string(kNotCounterReplica));
    }
    block_for = ResponseTracker(options.consistency,
                                TabletSpec(p.spec, *p.view->topology, replicas),
                                p.view->topology)
                    .block_for();
  }
  std::optional<net::KeyLocks::Guard> lock =
      counter_locks_.Lock(query::CounterLockKey(update), deadline);
  if (!lock) {
    return CounterTimeout(
        "Counter write timed out: earlier increments of the partition still "
        "held it",
        options.consistency, block_for);
  }
  KW_RETURN_IF_ERROR(query::ShardCounterUpdate(
      *engine_, local.bytes_view(), counter_clock_.Next(), &update));
  // The lock is released once this node applied its share: the next
  // increment reads the shard this one wrote.
  return Write({std::move(update)}, options, deadline, std::move(lock));
}

}  // namespace keywise::cluster
