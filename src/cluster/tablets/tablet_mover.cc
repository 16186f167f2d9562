#include "cluster/tablets/tablet_mover.h"

#include <algorithm>
#include <utility>

#include "cluster/coordinator/fanout.h"
#include "cluster/coordinator/verbs.h"
#include "cluster/metadata/fence.h"
#include "cluster/metadata/metadata_json.h"
#include "cluster/tablets/paxos_handoff.h"
#include "cluster/tablets/tablet_batches.h"
#include "cluster/tablets/tablet_repair.h"
#include "common/log.h"

namespace keywise::cluster {
namespace {

std::string Describe(const Uuid& table_id, TabletId tablet) {
  return "tablet " + std::to_string(tablet) + " of table " +
         table_id.ToString();
}

// Whether tablet `tablet` of `map` still covers `tokens` (a split or merge
// by an overlapping balancer leader shifts what an index names).
bool Covers(const TabletMap& map, TabletId tablet, TokenInterval tokens) {
  return tablet < map.count() && map.FirstToken(tablet) == tokens.start &&
         map.LastToken(tablet) == tokens.end;
}

// The tablet of `map` covering `tokens`, which must still be moving
// (another mover, or a dropped and recreated table, would have changed
// that).
// Whether the failure branch of a commit (reading the leader key) saw the
// key still created at `create_revision`.
bool StillLeader(const TxnResult& failed, int64_t create_revision) {
  return !failed.results.empty() && !failed.results[0].kvs.empty() &&
         failed.results[0].kvs[0].create_revision == create_revision;
}

// Tablet `tablet` of `map`, still over `tokens` and in transition `id`.
Result<TabletInfo*> Moving(TabletMap* map, TabletId tablet,
                           TokenInterval tokens, const Uuid& id) {
  if (!Covers(*map, tablet, tokens) || !map->tablets[tablet].transition) {
    return Status::ServerError("the tablet's transition vanished");
  }
  if (map->tablets[tablet].transition->id != id) {
    return Status::ServerError(
        "the tablet is in another transition (begun by another balancer "
        "leader)");
  }
  return &map->tablets[tablet];
}

}  // namespace

TabletMover::TabletMover(EtcdClient* etcd, ClusterKeys keys,
                         Coordinator* coordinator, TabletMoverOptions options)
    : etcd_(etcd),
      keys_(std::move(keys)),
      coordinator_(coordinator),
      options_(options),
      stream_limit_(options.stream_bytes_per_second) {}

Result<int64_t> TabletMover::Commit(
    const Uuid& table_id, const std::function<Status(TabletMap*)>& change) {
  const std::string key = keys_.Tablets(table_id);
  KW_ASSIGN_OR_RETURN(RangeResult current, etcd_->Get(key));
  if (current.kvs.empty()) {
    return Status::Invalid("Table " + table_id.ToString() +
                           " has no tablet map (dropped?)");
  }
  KW_ASSIGN_OR_RETURN(TabletMap map, DecodeTabletMap(current.kvs[0].value));
  KW_RETURN_IF_ERROR(change(&map));
  std::vector<Compare> conditions = {Compare::ModRevision(
      key, CompareOp::kEqual, current.kvs[0].mod_revision)};
  std::optional<std::pair<std::string, int64_t>> term;
  {
    std::lock_guard<std::mutex> lock(term_mu_);
    term = term_;
  }
  if (term) {
    conditions.push_back(
        Compare::CreateRevision(term->first, CompareOp::kEqual, term->second));
  }
  KW_ASSIGN_OR_RETURN(
      TxnResult txn,
      etcd_->Txn(
          conditions, {TxnOp::Put(key, EncodeTabletMap(map))},
          term ? std::vector<TxnOp>{TxnOp::Range(KeyRange::Single(term->first))}
               : std::vector<TxnOp>{}));
  if (!txn.succeeded) {
    if (term && !StillLeader(txn, term->second)) {
      return Status::ServerError(
          "This node is no longer the tablet balancer leader; not changing "
          "the tablet map of table " +
          table_id.ToString());
    }
    return Status::ServerError("The tablet map of table " +
                               table_id.ToString() +
                               " changed meanwhile; retry");
  }
  return txn.revision;
}

void TabletMover::SetLeaderTerm(std::string key, int64_t create_revision) {
  std::lock_guard<std::mutex> lock(term_mu_);
  term_.emplace(std::move(key), create_revision);
}

void TabletMover::ClearLeaderTerm() {
  std::lock_guard<std::mutex> lock(term_mu_);
  term_.reset();
}

Status TabletMover::Barrier(int64_t revision) {
  ClusterViewPtr view = coordinator_->view();
  std::vector<Uuid> nodes;
  for (const NodeStatus& n : view->topology->nodes()) {
    if (n.up && n.info.state != NodeState::kLeft) {
      nodes.push_back(n.info.host_id);
    }
  }
  const auto deadline =
      std::chrono::steady_clock::now() +
      coordinator_->options().BarrierWait(options_.barrier_timeout);
  std::vector<Result<bool>> acks = Gather<bool>(
      *coordinator_, *view->topology, nodes, kBarrierVerb,
      EncodeRevision(revision),
      [&]() -> Result<bool> {
        if (!coordinator_->fence().Wait(revision, deadline)) {
          return Status::ServerError("barrier timed out");
        }
        return true;
      },
      [](std::string) -> Result<bool> { return true; }, deadline);
  for (size_t i = 0; i < acks.size(); ++i) {
    if (!acks[i].ok()) {
      return Status::ServerError(
          "Node " + nodes[i].ToString() + " did not reach etcd revision " +
          std::to_string(revision) + ": " + acks[i].status().message());
    }
  }
  // Every live node is on the new view: raise the fence to it, in etcd
  // (for nodes that start later) and on each of them, so that a node that
  // missed this barrier is refused before the next step (docs/cluster.md,
  // "Fencing").
  KW_RETURN_IF_ERROR(RaiseFence(etcd_, keys_, revision).status());
  // A round of its own: each node answers once the requests it admitted
  // from older views are served.
  const auto fence_deadline =
      std::chrono::steady_clock::now() +
      coordinator_->options().BarrierWait(options_.barrier_timeout);
  std::vector<Result<bool>> fenced = Gather<bool>(
      *coordinator_, *view->topology, nodes, kFenceVerb,
      EncodeRevision(revision),
      [&]() -> Result<bool> {
        coordinator_->fence().Raise(revision);
        if (!coordinator_->fence().Wait(revision, fence_deadline)) {
          return Status::ServerError(
              "requests older than the fence still "
              "running");
        }
        return true;
      },
      [](std::string) -> Result<bool> { return true; }, fence_deadline);
  for (size_t i = 0; i < fenced.size(); ++i) {
    // A node of the previous release has no kFence: it cannot be fenced,
    // and must not stop moves during a rolling upgrade.
    if (!fenced[i].ok() && fenced[i].status().message().find("unknown verb") !=
                               std::string::npos) {
      continue;
    }
    if (!fenced[i].ok()) {
      return Status::ServerError("Node " + nodes[i].ToString() +
                                 " did not raise its fence to etcd revision " +
                                 std::to_string(revision) + ": " +
                                 fenced[i].status().message());
    }
  }
  return Status::OK();
}

Result<int64_t> TabletMover::Move(const Uuid& table_id, TabletId tablet,
                                  const Uuid& from, const Uuid& to) {
  if (from == Uuid() || to == Uuid()) {
    return Status::Invalid("A move needs a replica to move and a node");
  }
  return Change(table_id, tablet, from, to);
}

Result<int64_t> TabletMover::AddReplica(const Uuid& table_id, TabletId tablet,
                                        const Uuid& to) {
  if (to == Uuid()) return Status::Invalid("Adding a replica needs a node");
  return Change(table_id, tablet, Uuid(), to);
}

Result<int64_t> TabletMover::DropReplica(const Uuid& table_id, TabletId tablet,
                                         const Uuid& from) {
  if (from == Uuid()) return Status::Invalid("Dropping needs a replica");
  return Change(table_id, tablet, from, Uuid());
}

Result<int64_t> TabletMover::Change(const Uuid& table_id, TabletId tablet,
                                    const Uuid& from, const Uuid& to) {
  ClusterViewPtr view = coordinator_->view();
  if (to != Uuid() && !view->topology->IsUp(to)) {
    return Status::Invalid("Node " + to.ToString() + " is not up");
  }
  // The new replica starts from an empty range: whatever an earlier stay
  // of the tablet left there (a cleanup that could not run, a copy that
  // arrived late) is garbage, and could bring back rows whose tombstones
  // were purged since. The node refuses if it holds or receives part of
  // the range; a transition begun meanwhile by another mover changes the
  // map, so the commit below fails, and its stream comes after its
  // barrier, which waits for this deletion (docs/cluster.md).
  TabletMapPtr seen = view->TabletsOf(table_id);
  if (seen == nullptr || tablet >= seen->count()) {
    return Status::Invalid("No " + Describe(table_id, tablet) +
                           " in this node's view");
  }
  if (to != Uuid() && HasReplica(seen->tablets[tablet].replicas, to)) {
    return Status::Invalid("Node " + to.ToString() + " is a replica of the " +
                           Describe(table_id, tablet) + " already");
  }
  TokenInterval tokens;  // the tablet's, as the begin commit read them
  const Uuid id = Uuid::Random();  // this transition's
  std::optional<TokenInterval> cleared;
  if (to != Uuid()) {
    cleared = TokenInterval{seen->FirstToken(tablet), seen->LastToken(tablet)};
    if (Status st = Cleanup(table_id, *cleared, to, /*must_run=*/true);
        !st.ok()) {
      return Status::ServerError("Cannot clear the " +
                                 Describe(table_id, tablet) + " on " +
                                 to.ToString() + " first: " + st.message());
    }
  }
  KW_ASSIGN_OR_RETURN(
      int64_t revision, Commit(table_id, [&](TabletMap* map) -> Status {
        if (tablet >= map->tablets.size()) {
          return Status::Invalid("No " + Describe(table_id, tablet));
        }
        if (cleared && !Covers(*map, tablet, *cleared)) {
          return Status::ServerError("The " + Describe(table_id, tablet) +
                                     " changed meanwhile; retry");
        }
        TabletInfo& info = map->tablets[tablet];
        if (info.transition) {
          return Status::Invalid("The " + Describe(table_id, tablet) +
                                 " is already moving");
        }
        if ((from != Uuid() && !HasReplica(info.replicas, from)) ||
            (to != Uuid() && HasReplica(info.replicas, to)) ||
            (to == Uuid() && info.replicas.size() < 2)) {
          return Status::Invalid("Cannot move the " +
                                 Describe(table_id, tablet) + " from " +
                                 from.ToString() + " to " + to.ToString() +
                                 ": the first must be a replica, the second "
                                 "not, and a tablet keeps one replica");
        }
        info.Begin(from, to, id);
        tokens = {map->FirstToken(tablet), map->LastToken(tablet)};
        return Status::OK();
      }));
  LogInfo(
      "cluster",
      (from == Uuid() ? "Adding a replica of the " +
                            Describe(table_id, tablet) + " on " + to.ToString()
       : to == Uuid()
           ? "Dropping the replica of the " + Describe(table_id, tablet) +
                 " on " + from.ToString()
           : "Moving the " + Describe(table_id, tablet) + " from " +
                 from.ToString() + " to " + to.ToString()));
  return Complete(table_id, tablet, tokens, id, TransitionStage::kWriteBoth,
                  revision);
}

Result<int64_t> TabletMover::Resume(const Uuid& table_id, TabletId tablet) {
  KW_ASSIGN_OR_RETURN(RangeResult current, etcd_->Get(keys_.Tablets(table_id)));
  if (current.kvs.empty()) return current.revision;  // dropped
  KW_ASSIGN_OR_RETURN(TabletMap map, DecodeTabletMap(current.kvs[0].value));
  if (tablet >= map.tablets.size() || !map.tablets[tablet].transition) {
    return current.kvs[0].mod_revision;
  }
  return Complete(
      table_id, tablet, {map.FirstToken(tablet), map.LastToken(tablet)},
      map.tablets[tablet].transition->id, map.tablets[tablet].transition->stage,
      current.kvs[0].mod_revision);
}

Result<int64_t> TabletMover::Complete(const Uuid& table_id, TabletId tablet,
                                      TokenInterval tokens, const Uuid& id,
                                      TransitionStage stage, int64_t revision) {
  KW_RETURN_IF_ERROR(Barrier(revision));
  // A pending node that went down would block writes to the tablet (its
  // answer is required): give the move up rather than wait for it.
  ClusterViewPtr view = coordinator_->view();
  TabletMapPtr map = view->TabletsOf(table_id);
  if (map != nullptr && Covers(*map, tablet, tokens) &&
      map->tablets[tablet].PendingReplica() &&
      !view->topology->IsUp(map->tablets[tablet].transition->pending)) {
    return Abort(
        table_id, tablet, tokens, id,
        Status::ServerError(
            "the new replica " +
            map->tablets[tablet].transition->pending.ToString() + " is down"));
  }
  Uuid leaving;
  if (stage == TransitionStage::kWriteBoth) {
    // Nothing to stream when a replica is only dropped.
    const bool adds = map == nullptr || !Covers(*map, tablet, tokens) ||
                      map->tablets[tablet].PendingReplica().has_value();
    if (Status st = adds ? Stream(table_id, tablet, tokens, id) : Status::OK();
        !st.ok()) {
      // A node that stops leaves the move to the next balancer leader.
      if (stopping_.load()) return st;
      return Abort(table_id, tablet, tokens, id, st);
    }
    KW_ASSIGN_OR_RETURN(revision,
                        Commit(table_id, [&](TabletMap* map) -> Status {
                          KW_ASSIGN_OR_RETURN(TabletInfo * info,
                                              Moving(map, tablet, tokens, id));
                          info->transition->stage = TransitionStage::kReadNew;
                          return Status::OK();
                        }));
    KW_RETURN_IF_ERROR(Barrier(revision));
  }
  bool dropped = false;
  std::vector<Uuid> replicas;
  KW_ASSIGN_OR_RETURN(revision, Commit(table_id, [&](TabletMap* map) -> Status {
                        KW_ASSIGN_OR_RETURN(TabletInfo * info,
                                            Moving(map, tablet, tokens, id));
                        leaving = info->transition->leaving;
                        dropped = info->transition->pending == Uuid();
                        info->Finish();
                        replicas = info->replicas;
                        return Status::OK();
                      }));
  KW_RETURN_IF_ERROR(Barrier(revision));
  if (dropped) {
    // Nobody writes to the dropped replica any more, and its data is still
    // there: whatever only it acknowledged (a write at ONE) goes to the
    // replicas that stay before it is deleted.
    if (Status st = HandOver(table_id, tokens, replicas, leaving); !st.ok()) {
      LogWarn("cluster",
              "Dropped the replica of the " + Describe(table_id, tablet) +
                  " on " + leaving.ToString() +
                  " but could not hand its data over: " + st.ToString() +
                  "; keeping its copy");
      return revision;
    }
  }
  Status cleaned =
      leaving == Uuid() ? Status::OK() : Cleanup(table_id, tokens, leaving);
  if (!cleaned.ok()) {
    // The move is done; the old copy is only garbage now.
    LogWarn("cluster", "Moved the " + Describe(table_id, tablet) +
                           " but could not drop it on " + leaving.ToString() +
                           ": " + cleaned.ToString());
  }
  LogInfo("cluster", "Moved the " + Describe(table_id, tablet));
  return revision;
}

Status TabletMover::Abort(const Uuid& table_id, TabletId tablet,
                          TokenInterval tokens, const Uuid& id,
                          const Status& why) {
  Uuid pending;
  Result<int64_t> undone = Commit(table_id, [&](TabletMap* map) -> Status {
    KW_ASSIGN_OR_RETURN(TabletInfo * info, Moving(map, tablet, tokens, id));
    pending = info->transition->pending;
    info->transition.reset();
    return Status::OK();
  });
  if (!undone.ok()) {
    return Status::ServerError(
        "Moving the " + Describe(table_id, tablet) + " failed (" +
        why.message() + ") and undoing it failed too (" +
        undone.status().message() + "); the balancer retries");
  }
  LogWarn("cluster", "Gave up moving the " + Describe(table_id, tablet) + ": " +
                         why.message());
  // What reached the new replica is garbage now; the rest is as before
  // (every write went to the old replicas too).
  if (pending != Uuid() && Barrier(*undone).ok()) {
    (void)Cleanup(table_id, tokens, pending);
  }
  return Status::ServerError("Moving the " + Describe(table_id, tablet) +
                             " failed and was undone: " + why.message());
}

Status TabletMover::Stream(const Uuid& table_id, TabletId tablet,
                           TokenInterval tokens, const Uuid& id) {
  TableDefPtr table = coordinator_->replica()->Tables()(table_id);
  if (table == nullptr) {
    return Status::ServerError("Unknown table id " + table_id.ToString());
  }
  KW_ASSIGN_OR_RETURN(Coordinator::Placement p, coordinator_->Place(*table));
  if (p.tablets == nullptr || !Covers(*p.tablets, tablet, tokens) ||
      !p.tablets->tablets[tablet].transition ||
      p.tablets->tablets[tablet].transition->id != id) {
    return Status::ServerError("The " + Describe(table_id, tablet) +
                               " is not in this move in this node's view");
  }
  const TabletInfo& info = p.tablets->tablets[tablet];
  const Uuid pending = info.transition->pending;
  const Uuid leaving = info.transition->leaving;
  // The pending replica takes the leaving one's place: a copy of what it
  // holds keeps every write on as many replicas as before (Cassandra's
  // consistent range movement), and reads one replica instead of all.
  // Without it (added replica, node down), every live replica, merged.
  std::vector<Uuid> sources;
  if (leaving != Uuid() && p.view->topology->IsUp(leaving)) {
    sources.push_back(leaving);
  } else {
    for (const Uuid& r : info.replicas) {
      if (p.view->topology->IsUp(r)) sources.push_back(r);
    }
  }
  if (sources.empty()) {
    if (leaving == Uuid()) {
      return Status::ServerError("No live replica of the " +
                                 Describe(table_id, tablet) +
                                 " to stream from");
    }
    // Every replica is gone (replication factor 1 and its node removed):
    // the tablet moves empty, as Cassandra's removenode would.
    LogWarn("cluster", "No live replica of the " + Describe(table_id, tablet) +
                           " to stream from: its data is lost to the "
                           "cluster; the new replica starts empty");
    return Status::OK();
  }
  size_t partitions = 0;
  auto placement = std::make_shared<const Coordinator::Placement>(std::move(p));
  KW_RETURN_IF_ERROR(ForEachMergedBatch(
      coordinator_, table_id, tokens, options_.stream_batch_rows, sources,
      &stopping_,
      [placement]() -> Result<std::shared_ptr<const Coordinator::Placement>> {
        return placement;
      },
      [&](RawScan& scan) -> Status {
        partitions += scan.partitions.size();
        if (scan.partitions.empty()) return Status::OK();
        std::string payload = EncodeRawScan(scan);
        if (!stream_limit_.Acquire(payload.size(), &stopping_)) {
          return Status::ServerError("This node is stopping");
        }
        std::vector<Result<bool>> acks = Gather<bool>(
            *coordinator_, *placement->view->topology, {pending}, kStreamVerb,
            payload,
            [&]() -> Result<bool> {
              KW_RETURN_IF_ERROR(
                  coordinator_->engine()->ApplyRaw(scan.partitions));
              return true;
            },
            [](std::string) -> Result<bool> { return true; },
            std::chrono::steady_clock::now() +
                coordinator_->options().write_timeout);
        return acks[0].status();
      }));
  // The Paxos state after the data: a commit it carries that the data
  // missed is applied on the way (paxos_handoff.h).
  size_t paxos_partitions = 0;
  KW_RETURN_IF_ERROR(HandOverPaxosState(
      coordinator_, *placement->view->topology, table_id, tokens, sources,
      pending, &stopping_, &paxos_partitions));
  LogInfo("cluster", "Streamed " + std::to_string(partitions) +
                         " partitions of the " + Describe(table_id, tablet) +
                         " to " + pending.ToString() +
                         ", with the Paxos "
                         "state of " +
                         std::to_string(paxos_partitions));
  return Status::OK();
}

Status TabletMover::HandOver(const Uuid& table_id, TokenInterval tokens,
                             std::vector<Uuid> replicas, const Uuid& leaving) {
  if (!coordinator_->view()->topology->IsUp(leaving)) return Status::OK();
  TableDefPtr table = coordinator_->replica()->Tables()(table_id);
  if (table == nullptr) return Status::OK();  // dropped meanwhile
  replicas.push_back(leaving);
  RepairSummary summary;
  return RepairTablet(coordinator_, *table, tokens, replicas,
                      options_.stream_batch_rows, &stopping_, &summary);
}

Status TabletMover::Cleanup(const Uuid& table_id, TokenInterval tokens,
                            const Uuid& node, bool must_run) {
  ClusterViewPtr view = coordinator_->view();
  if (!view->topology->IsUp(node)) {
    return must_run
               ? Status::ServerError("node " + node.ToString() + " is down")
               : Status::OK();
  }
  TabletRange range;
  range.table_id = table_id;
  range.tokens = tokens;
  std::vector<Result<bool>> acks = Gather<bool>(
      *coordinator_, *view->topology, {node}, kCleanupVerb,
      EncodeTabletRange(range),
      [&]() -> Result<bool> {
        KW_RETURN_IF_ERROR(coordinator_->replica()->DropRange(range));
        return true;
      },
      [](std::string) -> Result<bool> { return true; },
      std::chrono::steady_clock::now() + coordinator_->options().write_timeout);
  return acks[0].status();
}

}  // namespace keywise::cluster
