#include "cluster/tablets/balancer.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "cluster/tablets/load_reporter.h"
#include "cluster/metadata/membership.h"
#include "cluster/metadata/metadata_json.h"
#include "common/log.h"

namespace keywise::cluster {
namespace {

// Up nodes in state normal of datacenter `dc`.
std::vector<const NodeStatus*> Targets(const Topology& topology,
                                       const std::string& dc) {
  std::vector<const NodeStatus*> out;
  for (const NodeStatus& n : topology.nodes()) {
    if (n.up && n.info.state == NodeState::kNormal && n.info.dc == dc) {
      out.push_back(&n);
    }
  }
  return out;
}

}  // namespace

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
  thread_ = std::thread([this] { Loop(); });
}

void Balancer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void Balancer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  std::string last_error;  // logged once while it repeats (etcd away, ...)
  while (!stop_) {
    lock.unlock();
    Result<Action> done = RunOnce();
    const std::string error = done.ok() ? "" : done.status().ToString();
    if (!error.empty() && error != last_error) {
      LogWarn("cluster", "Balancer: " + error);
    }
    last_error = error;
    const bool busy =
        done.ok() && *done != Action::kNone && *done != Action::kNotLeader;
    lock.lock();
    if (busy) continue;  // more may be waiting
    cv_.wait_for(lock, options_.interval, [this] { return stop_; });
  }
}

Result<bool> Balancer::Lead() {
  const Uuid self = coordinator_->view()->topology->local();
  const std::string key = keys_.Balancer();
  KW_ASSIGN_OR_RETURN(RangeResult current, etcd_->Get(key));
  if (!current.kvs.empty()) return current.kvs[0].value == self.ToString();
  const LeaseId lease = lease_();
  if (lease == LeaseId::kNone) return false;
  KW_ASSIGN_OR_RETURN(
      TxnResult txn,
      etcd_->Txn({Compare::CreateRevision(key, CompareOp::kEqual, 0)},
                 {TxnOp::Put(key, self.ToString(), lease)}, {}));
  if (txn.succeeded) {
    LogInfo("cluster", "This node now runs the tablet balancer");
  }
  return txn.succeeded;
}

Result<Balancer::Action> Balancer::RunOnce() {
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
  std::map<Uuid, size_t> counts = view.ReplicasHeld();
  for (const NodeStatus& leaving : view.topology->nodes()) {
    if (leaving.info.state != NodeState::kLeaving) continue;
    const Uuid& from = leaving.info.host_id;
    if (counts[from] == 0) {
      KW_RETURN_IF_ERROR(MarkLeft(from));
      return Action::kMarkedLeft;
    }
    std::vector<const NodeStatus*> targets =
        Targets(*view.topology, leaving.info.dc);
    for (const auto& [table_id, map] : view.tablets) {
      for (TabletId i = 0; i < map->tablets.size(); ++i) {
        const std::vector<Uuid>& replicas = map->tablets[i].replicas;
        if (!HasReplica(replicas, from) ||
            Paused(table_id, map->LastToken(i))) {
          continue;
        }
        const NodeStatus* best = nullptr;
        for (const NodeStatus* t : targets) {
          if (HasReplica(replicas, t->info.host_id)) continue;
          if (best == nullptr ||
              counts[t->info.host_id] < counts[best->info.host_id]) {
            best = t;
          }
        }
        if (best == nullptr) {
          // Logged once per pause; the other tablets go on.
          LogWarn("cluster", "Cannot move tablet " + std::to_string(i) +
                                 " of " + map->keyspace + "." + map->table +
                                 " off leaving node " + from.ToString() +
                                 ": every other up node of datacenter " +
                                 leaving.info.dc + " holds a replica of it");
          Pause(table_id, map->LastToken(i));
          continue;
        }
        KW_RETURN_IF_ERROR(Act(table_id, map->LastToken(i), [&] {
          return mover_->Move(table_id, i, from, best->info.host_id);
        }));
        return Action::kMoved;
      }
    }
  }
  return Action::kNone;
}

Result<Balancer::Action> Balancer::Replicate(const ClusterView& view) {
  std::map<Uuid, size_t> counts = view.ReplicasHeld();
  const Topology& topology = *view.topology;
  for (const auto& [table_id, map] : view.tablets) {
    TableDefPtr table = coordinator_->replica()->Tables()(table_id);
    if (table == nullptr) continue;
    ReplicationSpec spec;
    {
      // The placement holds a fence ticket on this view: released before
      // the mover's barriers wait for every request on older views.
      Result<Coordinator::Placement> p = coordinator_->Place(*table);
      if (!p.ok() || !p->spec.Replicated()) continue;
      spec = p->spec;
    }
    // The replicas wanted per datacenter ("": anywhere, SimpleStrategy).
    std::map<std::string, int> wanted;
    if (spec.kind == ReplicationSpec::Kind::kNetworkTopology) {
      wanted = spec.dc_rf;
      for (const NodeStatus& n : topology.nodes()) {
        wanted.try_emplace(n.info.dc, 0);  // a datacenter dropped: none
      }
    } else {
      wanted[""] = spec.simple_rf;
    }
    auto in = [&](const Uuid& node, const std::string& dc) {
      const NodeStatus* n = topology.Find(node);
      return dc.empty() || (n != nullptr && n->info.dc == dc);
    };
    for (TabletId i = 0; i < map->count(); ++i) {
      const TabletInfo& t = map->tablets[i];
      // Not while a replica is down: a drop could take the only live one
      // (or leave a dead one's copy behind), an add might have nothing to
      // stream from. Adds first, over every datacenter, then drops, so a
      // tablet never has fewer replicas than both factors.
      bool all_up = true;
      for (const Uuid& r : t.replicas) all_up = all_up && topology.IsUp(r);
      if (t.transition || !all_up || Paused(table_id, t.last_token)) continue;
      for (const auto& [dc, want] : wanted) {
        int have = 0;
        for (const Uuid& r : t.replicas) have += in(r, dc) ? 1 : 0;
        if (have >= want) continue;
        // Add one on the up normal node holding the fewest; none left
        // means fewer nodes than the factor (as at creation: min(rf, n)).
        const NodeStatus* best = nullptr;
        for (const NodeStatus& n : topology.nodes()) {
          if (!n.up || n.info.state != NodeState::kNormal ||
              !in(n.info.host_id, dc) ||
              HasReplica(t.replicas, n.info.host_id)) {
            continue;
          }
          if (best == nullptr ||
              counts[n.info.host_id] < counts[best->info.host_id]) {
            best = &n;
          }
        }
        if (best == nullptr) continue;
        KW_RETURN_IF_ERROR(Act(table_id, t.last_token, [&] {
          return mover_->AddReplica(table_id, i, best->info.host_id);
        }));
        return Action::kReplicated;
      }
      for (const auto& [dc, want] : wanted) {
        int have = 0;
        for (const Uuid& r : t.replicas) have += in(r, dc) ? 1 : 0;
        if (have <= want || t.replicas.size() < 2) continue;
        // Drop the replica on the node holding the most.
        const Uuid* drop = nullptr;
        for (const Uuid& r : t.replicas) {
          if (in(r, dc) && (drop == nullptr || counts[r] > counts[*drop])) {
            drop = &r;
          }
        }
        KW_RETURN_IF_ERROR(Act(table_id, t.last_token, [&] {
          return mover_->DropReplica(table_id, i, *drop);
        }));
        return Action::kReplicated;
      }
    }
  }
  return Action::kNone;
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
  for (const auto& [table_id, map] : view.tablets) {
    auto load = loads.find(table_id);
    if (load == loads.end()) continue;
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
  std::optional<PlannedMove> move =
      PlanEvening(view, loads, options_.load_floor);
  if (!move) return Action::kNone;
  const Token last_token =
      view.TabletsOf(move->table_id)->LastToken(move->tablet);
  // The plan would pick the same tablet again: evening waits for it.
  if (Paused(move->table_id, last_token)) return Action::kNone;
  LogInfo("cluster", "Balancing " + move->reason);
  KW_RETURN_IF_ERROR(Act(move->table_id, last_token, [&] {
    return mover_->Move(move->table_id, move->tablet, move->from, move->to);
  }));
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
  auto it = paused_.find({table_id, last_token});
  if (it == paused_.end()) return false;
  if (std::chrono::steady_clock::now() < it->second) return true;
  paused_.erase(it);
  return false;
}

Status Balancer::MarkLeft(const Uuid& node) {
  KW_ASSIGN_OR_RETURN(std::optional<TxnResult> txn,
                      WriteNodeState(etcd_, keys_, node, NodeState::kLeft));
  if (!txn) return Status::OK();
  if (txn->succeeded) {
    LogInfo("cluster", "Node " + node.ToString() +
                           " holds no tablet any more: it has left");
  }
  acted_revision_ = txn->revision;
  return Status::OK();
}

}  // namespace keywise::cluster
