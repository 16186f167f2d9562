#include "cluster/tablets/balancer.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "cluster/tablets/load_reporter.h"
#include "cluster/tablets/replica_plan.h"
#include "cluster/metadata/membership.h"
#include "cluster/metadata/metadata_json.h"
#include "common/log.h"

namespace keywise::cluster {

Balancer::Balancer(EtcdClient* etcd, ClusterKeys keys, Coordinator* coordinator,
                   TabletMover* mover, LeaseFn lease, BalancerOptions options)
    : etcd_(etcd),
      keys_(std::move(keys)),
      coordinator_(coordinator),
      mover_(mover),
      lease_(std::move(lease)),
      options_(options) {}

Balancer::~Balancer() {
  Stop();
}

void Balancer::Start() {
  rounds_.Start("cluster", "Balancer", std::chrono::milliseconds(0),
                options_.interval, [this](bool* again) {
                  Result<Action> done = RunOnce();
                  if (!done.ok()) return done.status();
                  // More may be waiting.
                  *again = *done != Action::kNone &&
                           *done != Action::kNotLeader;
                  return Status::OK();
                });
}

void Balancer::Stop() {
  rounds_.Stop();
}

Result<bool> Balancer::Lead() {
  const Uuid self = coordinator_->view()->topology->local();
  // A view from before the node knew its id: leading in the name of
  // nobody would stop every node from leading while this one lives.
  if (self == Uuid()) return false;
  const std::string key = keys_.Balancer();
  KW_ASSIGN_OR_RETURN(RangeResult current, etcd_->Get(key));
  if (!current.kvs.empty()) {
    if (current.kvs[0].value != self.ToString()) return false;
    // Every commit of this round holds only while the key is the one this
    // node created (tablet_mover.h, SetLeaderTerm).
    term_ = current.kvs[0].create_revision;
    mover_->SetLeaderTerm(key, term_);
    return true;
  }
  const LeaseId lease = lease_();
  if (lease == LeaseId::kNone) return false;
  KW_ASSIGN_OR_RETURN(
      TxnResult txn,
      etcd_->Txn({Compare::CreateRevision(key, CompareOp::kEqual, 0)},
                 {TxnOp::Put(key, self.ToString(), lease)}, {}));
  if (txn.succeeded) {
    LogInfo("cluster", "This node now runs the tablet balancer");
    term_ = txn.revision;
    mover_->SetLeaderTerm(key, term_);
  }
  return txn.succeeded;
}

Result<Balancer::Action> Balancer::RunOnce() {
  Result<Action> action = Round();
  if (action.ok() && static_cast<size_t>(*action) < actions_.size()) {
    actions_[static_cast<size_t>(*action)].fetch_add(1,
                                                     std::memory_order_relaxed);
  }
  return action;
}

Result<Balancer::Action> Balancer::Round() {
  KW_ASSIGN_OR_RETURN(bool leader, Lead());
  if (!leader) return Action::kNotLeader;
  ClusterViewPtr view = coordinator_->fence().WaitForView(
      acted_revision_,
      std::chrono::steady_clock::now() + std::chrono::seconds(5));
  if (view == nullptr) {
    return Status::ServerError(
        "This node's view of the cluster lags etcd revision " +
        std::to_string(acted_revision_) + "; balancing later");
  }
  // The node's own view is published before the fence's: take it when it
  // is at least as new.
  if (ClusterViewPtr latest = coordinator_->view();
      latest->revision >= view->revision) {
    view = std::move(latest);
  }
  for (const auto& [table_id, map] : view->tablets) {
    for (TabletId i = 0; i < map->tablets.size(); ++i) {
      if (!map->tablets[i].transition) continue;
      KW_ASSIGN_OR_RETURN(acted_revision_, mover_->Resume(table_id, i));
      return Action::kResumed;
    }
  }
  KW_ASSIGN_OR_RETURN(Action drained, DrainLeaving(*view));
  if (drained != Action::kNone) return drained;
  KW_ASSIGN_OR_RETURN(Action replicated, Replicate(*view));
  if (replicated != Action::kNone) return replicated;
  // Every node's load report, combined per tablet, once per round.
  KW_ASSIGN_OR_RETURN(std::vector<LoadReport> reports,
                      ReadLoadReports(etcd_, keys_));
  TableLoads loads;
  for (const auto& [table_id, map] : view->tablets) {
    loads[table_id] = CombineLoad(*map, reports);
  }
  KW_ASSIGN_OR_RETURN(Action resized, ResizeTablets(*view, loads));
  if (resized != Action::kNone) return resized;
  return Even(*view, loads);
}

Result<Balancer::Action> Balancer::DrainLeaving(const ClusterView& view) {
  const DrainPlan plan = PlanDrain(view, [this](const Uuid& t, Token last) {
    return Paused(t, last);
  });
  if (plan.mark_left) {
    KW_RETURN_IF_ERROR(MarkLeft(*plan.mark_left));
    return Action::kMarkedLeft;
  }
  for (const StuckTablet& stuck : plan.stuck) {
    // Logged once per pause; the other tablets go on.
    const TabletMapPtr& map = view.tablets.at(stuck.table_id);
    LogWarn("cluster", "Cannot move tablet " +
                           std::to_string(map->TabletOf(stuck.last_token)) +
                           " of " + map->keyspace + "." + map->table +
                           " off leaving node " + stuck.leaving.ToString() +
                           ": every other up node of datacenter " +
                           stuck.dc + " holds a replica of it");
    Pause(stuck.table_id, stuck.last_token);
  }
  if (!plan.move) return Action::kNone;
  const PlannedMove& m = *plan.move;
  KW_RETURN_IF_ERROR(
      Act(m.table_id, view.tablets.at(m.table_id)->LastToken(m.tablet), [&] {
        return mover_->Move(m.table_id, m.tablet, m.from, m.to);
      }));
  return Action::kMoved;
}

Result<Balancer::Action> Balancer::Replicate(const ClusterView& view) {
  std::map<Uuid, ReplicationSpec> specs;
  for (const auto& [table_id, map] : view.tablets) {
    TableDefPtr table = coordinator_->replica()->Tables()(table_id);
    if (table == nullptr) continue;
    // The placement holds a fence ticket on this view: released before
    // the mover's barriers wait for every request on older views.
    Result<Coordinator::Placement> p = coordinator_->Place(*table);
    if (p.ok() && p->spec.Replicated()) specs[table_id] = p->spec;
  }
  const std::optional<ReplicaChange> change = PlanReplicaCounts(
      view, specs, [this](const Uuid& t, Token last) { return Paused(t, last); });
  if (!change) return Action::kNone;
  KW_RETURN_IF_ERROR(Act(change->table_id, change->last_token, [&] {
    return change->add
               ? mover_->AddReplica(change->table_id, change->tablet,
                                    change->node)
               : mover_->DropReplica(change->table_id, change->tablet,
                                     change->node);
  }));
  return Action::kReplicated;
}

Result<Balancer::Action> Balancer::ResizeTablets(const ClusterView& view,
                                                const TableLoads& loads) {
  ResizeOptions o = options_.resize;
  o.min_tablets = size_t{1} << InitialTabletLog2(
                      options_.initial_tablets,
                      view.topology->DataNodes().size());
  o.node_loads = NodeLoads(view, loads);
  for (const NodeStatus& n : view.topology->nodes()) {
    o.node_dcs[n.info.host_id] = n.info.dc;
  }
  const TableLookup tables = coordinator_->replica()->Tables();
  const size_t min_tablets = o.min_tablets;
  for (const auto& [table_id, map] : view.tablets) {
    auto load = loads.find(table_id);
    if (load == loads.end()) continue;
    // A salted table keeps a tablet per salt bucket (schema_sync.cc).
    o.min_tablets = min_tablets;
    if (TableDefPtr table = tables(table_id)) {
      o.min_tablets = std::max(
          min_tablets, static_cast<size_t>(table->options.salt_buckets));
    }
    const Resize r = PlanResize(*map, load->second, o);
    const std::string name = map->keyspace + "." + map->table;
    if (r.kind == Resize::Kind::kLargePartition) {
      const std::string key = table_id.ToString() + "/large/" +
                              std::to_string(r.hot_token->value);
      if (hot_logged_.insert(key).second) {
        LogWarn("cluster",
                "Large partition in " + name + " (token " +
                    std::to_string(r.hot_token->value) + "): " + r.reason +
                    "; it has a tablet of its own, and one partition cannot "
                    "be split: consider a partition key that bounds how "
                    "much one partition holds");
      }
    } else if (r.hot_token) {
      const std::string key =
          table_id.ToString() + "/" + std::to_string(r.hot_token->value);
      if (hot_logged_.insert(key).second) {
        LogWarn("cluster",
                "Hot partition in " + name + ": " + r.reason +
                    (r.kind == Resize::Kind::kSplit
                         ? "; isolating it in a tablet of its own"
                         : "; it has a tablet of its own, and one partition "
                           "cannot be split: consider a partition key that "
                           "spreads these requests"));
      }
    }
    if (r.kind == Resize::Kind::kColocate) {
      const Token last_token = map->LastToken(r.tablet);
      if (Paused(table_id, last_token)) continue;
      LogInfo("cluster", "Co-locating tablet " + std::to_string(r.tablet) +
                             " of " + name + " to merge it: " + r.reason);
      KW_RETURN_IF_ERROR(Act(table_id, last_token, [&] {
        return mover_->Move(table_id, r.tablet, r.from, r.to);
      }));
      return Action::kMoved;
    }
    if (r.kind != Resize::Kind::kSplit && r.kind != Resize::Kind::kMerge) {
      continue;
    }
    // The tablets the plan saw, which the map in etcd must still have.
    const TabletId last = r.kind == Resize::Kind::kMerge ? r.tablet + 1
                                                         : r.tablet;
    const Token first_token = map->FirstToken(r.tablet);
    const Token last_token = map->LastToken(last);
    KW_ASSIGN_OR_RETURN(
        acted_revision_,
        mover_->Commit(table_id, [&](TabletMap* m) -> Status {
          if (last >= m->count() || m->FirstToken(r.tablet) != first_token ||
              m->LastToken(last) != last_token) {
            return Status::ServerError("the tablets changed meanwhile");
          }
          return r.kind == Resize::Kind::kSplit
                     ? SplitTablet(m, r.tablet, r.at)
                     : MergeTablets(m, r.tablet);
        }));
    if (r.kind == Resize::Kind::kSplit) {
      std::string at;
      for (Token t : r.at) {
        at += (at.empty() ? "" : ", ") + std::to_string(t.value);
      }
      LogInfo("cluster", "Split tablet " + std::to_string(r.tablet) + " of " +
                             name + " after token " + at + ": " + r.reason);
      return Action::kSplit;
    }
    LogInfo("cluster", "Merged tablets " + std::to_string(r.tablet) + " and " +
                           std::to_string(r.tablet + 1) + " of " + name +
                           ": " + r.reason);
    return Action::kMerged;
  }
  return Action::kNone;
}

Result<Balancer::Action> Balancer::Even(const ClusterView& view,
                                       const TableLoads& loads) {
  // Forget the cool-downs that ran out (of tablets since merged or
  // dropped too).
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(evened_, [&](const auto& e) { return e.second <= now; });
  std::optional<PlannedMove> move = PlanEvening(
      view, loads, options_.evening, [&](const Uuid& table_id, TabletId i) {
        const Token last = view.TabletsOf(table_id)->LastToken(i);
        return Paused(table_id, last) || Still(&evened_, {table_id, last});
      });
  if (!move) return Action::kNone;
  const Token last_token =
      view.TabletsOf(move->table_id)->LastToken(move->tablet);
  LogInfo("cluster", "Balancing " + move->reason);
  KW_RETURN_IF_ERROR(Act(move->table_id, last_token, [&] {
    return mover_->Move(move->table_id, move->tablet, move->from, move->to);
  }));
  // Where it lands the tablet stays a while, whatever the next reports say.
  evened_[{move->table_id, last_token}] =
      std::chrono::steady_clock::now() + options_.evening_cooldown;
  return Action::kMoved;
}

Status Balancer::Act(const Uuid& table_id, Token last_token,
                     const std::function<Result<int64_t>()>& step) {
  Result<int64_t> revision = step();
  if (!revision.ok()) {
    Pause(table_id, last_token);
    return revision.status();
  }
  acted_revision_ = *revision;
  return Status::OK();
}

void Balancer::Pause(const Uuid& table_id, Token last_token) {
  paused_[{table_id, last_token}] =
      std::chrono::steady_clock::now() + options_.failed_tablet_pause;
}

bool Balancer::Paused(const Uuid& table_id, Token last_token) {
  return Still(&paused_, {table_id, last_token});
}

bool Balancer::Still(TabletDeadlines* deadlines,
                     const std::pair<Uuid, Token>& tablet) {
  auto it = deadlines->find(tablet);
  if (it == deadlines->end()) return false;
  if (std::chrono::steady_clock::now() < it->second) return true;
  deadlines->erase(it);
  return false;
}

Status Balancer::MarkLeft(const Uuid& node) {
  // Only while this node still holds the leader key it took (Lead): a
  // deposed leader's drained view may be stale.
  KW_ASSIGN_OR_RETURN(
      std::optional<TxnResult> txn,
      WriteNodeState(etcd_, keys_, node, NodeState::kLeft,
                     {Compare::CreateRevision(keys_.Balancer(),
                                              CompareOp::kEqual, term_)}));
  if (!txn) return Status::OK();
  if (!txn->succeeded) {
    KW_ASSIGN_OR_RETURN(RangeResult leader, etcd_->Get(keys_.Balancer()));
    if (leader.kvs.empty() || leader.kvs[0].create_revision != term_) {
      return Status::ServerError(
          "This node is no longer the tablet balancer leader; not marking "
          "node " + node.ToString() + " left");
    }
  } else {
    LogInfo("cluster", "Node " + node.ToString() +
                           " holds no tablet any more: it has left");
  }
  acted_revision_ = txn->revision;
  return Status::OK();
}

}  // namespace keywise::cluster
