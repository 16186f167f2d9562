#include "cluster/cluster_node.h"

#include <algorithm>
#include <thread>
#include <set>
#include <utility>

#include "cluster/coordinator/counter_messages.h"
#include "cluster/coordinator/verbs.h"
#include "cluster/view_build_records.h"
#include "cluster/messaging/frame.h"
#include "storage/partition_key.h"
#include "storage/partition_update_codec.h"
#include "common/log.h"
#include "schema/partitioner.h"

namespace keywise::cluster {

ClusterNode::ClusterNode(ClusterNodeOptions options, EtcdClient* etcd,
                         Engine* engine)
    : options_(std::move(options)),
      keys_(options_.cluster_name),
      etcd_(etcd),
      engine_(engine),
      views_(engine) {
  view_ = std::make_shared<ClusterView>(
      ClusterView{0, std::make_shared<const Topology>(), std::nullopt, 0, {}});
  watched_ = view_;
}

ClusterNode::~ClusterNode() {
  Stop();
}

Status ClusterNode::Start() {
  SchemaSyncOptions sync;
  sync.initial_tablets = options_.initial_tablets;
  if (options_.schema_events) {
    sync.on_remote_changes =
        [sink = options_.schema_events](
            const std::vector<query::SchemaChangeResult>& changes) {
          for (const query::SchemaChangeResult& c : changes) sink(c);
        };
  }
  schema_ = std::make_unique<SchemaSync>(
      etcd_, keys_, engine_, sync, [this] { return view(); },
      [this](int64_t revision, std::vector<TabletMapPtr> created,
             std::vector<Uuid> dropped) {
        OnOwnSchemaChange(revision, std::move(created), std::move(dropped));
      });
  mirror_ = std::make_unique<MetadataMirror>(
      etcd_, keys_.root(),
      [this](const MetadataCopy& copy, int64_t rev) { OnMetadata(copy, rev); });
  KW_RETURN_IF_ERROR(mirror_->Start());
  return schema_->Start();
}

Status ClusterNode::Join(const Uuid& host_id) {
  NodeInfo self = options_.self;
  self.host_id = host_id;
  ClusterViewPtr watched;
  {
    std::lock_guard<std::mutex> lock(view_mu_);
    local_ = host_id;
    // The views built so far name no local node. Until the watch brings
    // the next one, the current one is republished with it: what starts
    // below (the balancer, whose first round runs at once and takes the
    // leader key in this node's name) must never see a view without it.
    if (watched_ != nullptr && watched_->topology->local() != host_id) {
      auto copy = std::make_shared<ClusterView>(*watched_);
      copy->topology = std::make_shared<const Topology>(
          host_id, watched_->topology->nodes(),
          watched_->topology->revision());
      watched_ = std::move(copy);
    }
    watched = watched_;
  }
  if (watched != nullptr) Publish(watched);
  MessagingOptions messaging = options_.messaging;
  messaging.listen_address = self.listen_address;
  messaging.port = static_cast<uint16_t>(self.storage_port);
  messaging.node_id = host_id;
  messaging_ = std::make_unique<MessagingService>(messaging, options_.loops);
  replica_ = std::make_unique<ReplicaService>(engine_, &views_);
  replica_->SetTracer(options_.tracer);
  KW_RETURN_IF_ERROR(replica_->Register(messaging_.get()));
  batchlog_ = std::make_unique<BatchLog>(
      engine_, messaging_.get(), [this] { return view(); },
      [this] { return replica_->Tables(); }, options_.batchlog);
  KW_RETURN_IF_ERROR(batchlog_->Register());
  KW_RETURN_IF_ERROR(RegisterBarrier());
  KW_RETURN_IF_ERROR(RegisterCounterLeader());
  admin_ = std::make_unique<AdminService>(engine_, options_.reload_tls);
  KW_RETURN_IF_ERROR(admin_->Register(messaging_.get()));
  stats_ = std::make_unique<StatsService>(
      engine_, options_.workload, [this] { return view(); }, messaging_.get(),
      options_.stats_timeout);
  KW_RETURN_IF_ERROR(stats_->Register());
  trace_copies_ = std::make_unique<TraceCopyService>(
      engine_, [this] { return view(); }, messaging_.get(),
      options_.coordinator.write_timeout);
  KW_RETURN_IF_ERROR(trace_copies_->Register());
  messaging_->SetEpoch(view()->revision);
  republisher_ = std::thread([this] { Republish(); });
  messaging_->SetConnectionListener(
      [this](const ConnectionEvent& event) { OnConnectionEvent(event); });
  KW_RETURN_IF_ERROR(messaging_->Start());
  self.storage_port = messaging_->local_endpoint().port;
  auto topology = [this] { return view()->topology; };
  hints_ = std::make_unique<HintStore>(engine_, messaging_.get(), topology,
                                       options_.hints);
  coordinator_ = std::make_unique<Coordinator>(
      engine_, messaging_.get(), replica_.get(), hints_.get(),
      [this] { return view(); }, options_.coordinator);
  view_router_ = std::make_unique<PairedViewRouter>(
      coordinator_.get(), options_.view_update_backlog_limit_bytes);
  views_.SetRouter(view_router_.get());
  replica_->SetViewRouter(view_router_.get());
  view_backlog_table_ = std::make_unique<ViewBacklogTable>(
      engine_, view_router_.get(), hints_.get(), host_id.ToString(),
      std::chrono::seconds(1));
  build_records_sweep_.Start(
      "views", "Cannot sweep the view build records in etcd",
      options_.build_records_sweep_interval,
      options_.build_records_sweep_interval, [this](bool*) {
        return SweepViewBuildRecords(etcd_, keys_,
                                     *engine_->catalog().snapshot());
      });
  AddViewListener([this](const ClusterView& before, const ClusterView& after) {
    // A peer seen back up, or registered again (restarted before its old
    // lease ran out), is reconnected at once, not after the messaging
    // backoff that its absence built up.
    for (const NodeStatus& n : after.topology->nodes()) {
      if (!n.up || n.info.host_id == after.topology->local()) continue;
      const NodeStatus* was = before.topology->Find(n.info.host_id);
      if (was != nullptr && was->up && was->incarnation == n.incarnation) {
        continue;
      }
      if (auto peer = coordinator_->EndpointOf(*after.topology, n.info.host_id))
        messaging_->Connect(*peer);
    }
    hints_->OnTopology(*after.topology);
  });
  AddViewListener([this](const ClusterView& before, const ClusterView& after) {
    // Requests carry the view's revision (fencing): set before the view is
    // published, so a barrier at this revision cannot complete while
    // requests still go out stamped with an older one.
    messaging_->SetEpoch(after.revision);
    coordinator_->fence().Publish(std::make_shared<ClusterView>(after));
    for (const auto& [id, map] : before.tablets) {
      if (!after.tablets.contains(id)) coordinator_->ForgetTable(id);
    }
  });
  coordinator_->fence().Publish(view());
  // (`host_id`, not the view's local id: the first views are built before
  // Join knows it.)
  replica_->SetDropGuard([this, host_id](const TabletRange& range) {
    return MayDrop(host_id, range);
  });
  replica_->SetSenderGuard([this](const Uuid& from, int64_t epoch) {
    return MayServe(from, epoch);
  });
  barrier_target_.store(coordinator_.get());
  admin_->SetCoordinator(coordinator_.get());
  mover_ = std::make_unique<TabletMover>(etcd_, keys_, coordinator_.get(),
                                         options_.mover);
  hints_->SetReroute([this](const Uuid& target, const PartitionUpdate& update)
                         -> std::optional<Status> {
    const ClusterViewPtr now = view();
    const TabletMapPtr map = now->TabletsOf(update.table->id);
    if (map == nullptr) return std::nullopt;
    if (map->TabletAt(PartitionToken(
                *update.table, SerializePartitionKey(update.partition_key)))
            .HeldBy(target)) {
      return std::nullopt;
    }
    query::WriteOptions one;  // ONE: the replicas are written or hinted
    return coordinator_->Apply({update}, one);
  });
  hints_->Start();
  coordinator_->SetBatchLog(batchlog_.get());
  batchlog_->Start([this](const std::vector<PartitionUpdate>& updates) {
    query::WriteOptions replay;  // ONE: every replica is written or hinted
    return coordinator_->Apply(updates, replay);
  });
  peer_tables_ = std::make_unique<PeerTables>(engine_, options_.initial_tablets,
                                              options_.node_events);
  KW_RETURN_IF_ERROR(peer_tables_->Reset());
  tablets_table_ = std::make_unique<TabletsTableSync>(engine_);
  KW_RETURN_IF_ERROR(tablets_table_->Reset());
  AddViewListener([this](const ClusterView&, const ClusterView& after) {
    if (Status st = peer_tables_->OnView(after); !st.ok()) {
      LogWarn("cluster", "Cannot rewrite system.peers: " + st.ToString());
    }
    if (Status st = tablets_table_->OnView(after); !st.ok()) {
      LogWarn("cluster", "Cannot rewrite system.tablets: " + st.ToString());
    }
  });
  self.state = NodeState::kNormal;
  self.schema_version = engine_->catalog().snapshot()->version;
  membership_ = std::make_unique<Membership>(etcd_, keys_, std::move(self),
                                             options_.lease_ttl);
  KW_RETURN_IF_ERROR(membership_->Join());
  // Every schema this node applies goes into its record. The catalog
  // outlives this node: the hook is cut by Stop.
  engine_->catalog().AddListener(
      [hook = schema_hook_](const SchemaSnapshot& schema) {
        std::lock_guard<std::mutex> lock(hook->mu);
        if (hook->membership != nullptr) {
          hook->membership->SetSchemaVersion(schema.version);
        }
      });
  {
    std::lock_guard<std::mutex> lock(schema_hook_->mu);
    schema_hook_->membership = membership_.get();
  }
  membership_->SetSchemaVersion(engine_->catalog().snapshot()->version);
  KW_RETURN_IF_ERROR(peer_tables_->OnView(*view()));
  KW_RETURN_IF_ERROR(tablets_table_->OnView(*view()));
  balancer_ = std::make_unique<Balancer>(
      etcd_, keys_, coordinator_.get(), mover_.get(),
      [this] { return membership_->lease(); }, options_.balancer);
  if (options_.run_balancer) balancer_->Start();
  load_reporter_ = std::make_unique<LoadReporter>(
      etcd_, keys_, coordinator_.get(),
      [this] { return membership_->lease(); }, options_.load_reports);
  if (options_.report_load) load_reporter_->Start();
  cleanup_ = std::make_unique<LeftoverCleanup>(coordinator_.get(),
                                               options_.cleanup);
  if (options_.run_cleanup) cleanup_->Start();
  LogInfo("cluster", "Joined cluster '" + options_.cluster_name + "' as " +
                         host_id.ToString());
  return Status::OK();
}

void ClusterNode::Stop() {
  {
    std::lock_guard<std::mutex> lock(view_mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  {
    std::lock_guard<std::mutex> lock(schema_hook_->mu);
    schema_hook_->membership = nullptr;
  }
  if (coordinator_) {
    const Coordinator::RoutingStats r = coordinator_->routing();
    LogInfo("cluster", "Coordinated " + std::to_string(r.partitions) +
                           " partition reads and writes, " +
                           std::to_string(r.local_replica) +
                           " of them with this node a replica");
  }
  if (messaging_) {
    const MessagingStats m = messaging_->stats();
    LogInfo("messaging", "Wrote " + std::to_string(m.frames_written) +
                             " messages in " + std::to_string(m.socket_writes) +
                             " socket writes");
  }
  {
    std::lock_guard<std::mutex> lock(republish_mu_);
    republish_stop_ = true;
    republish_cv_.notify_all();
  }
  if (republisher_.joinable()) republisher_.join();
  view_backlog_table_.reset();
  build_records_sweep_.Stop();
  if (admin_) admin_->Stop();
  if (mover_) mover_->Stop();
  if (balancer_) balancer_->Stop();
  if (load_reporter_) load_reporter_->Stop();
  if (cleanup_) cleanup_->Stop();
  if (membership_) membership_->Leave();
  if (batchlog_) batchlog_->Stop();
  if (hints_) hints_->Stop();
  if (mirror_) mirror_->Stop();
  if (messaging_) messaging_->Shutdown();
}

NodeInfo ClusterNode::self() const {
  return membership_ ? membership_->self() : options_.self;
}

ClusterViewPtr ClusterNode::view() const {
  std::lock_guard<std::mutex> lock(view_mu_);
  return view_;
}

void ClusterNode::AddViewListener(ViewListener listener) {
  std::lock_guard<std::mutex> lock(view_mu_);
  listeners_.push_back(std::move(listener));
}

void ClusterNode::OnMetadata(const MetadataCopy& copy, int64_t revision) {
  Uuid local;
  {
    std::lock_guard<std::mutex> lock(view_mu_);
    local = local_;
  }
  ClusterViewPtr built = BuildClusterView(keys_, local, copy, revision);
  if (schema_ != nullptr) {
    Status st = schema_->Apply(*built);
    if (!st.ok()) {
      LogWarn("cluster", "Cannot apply the cluster's schema at revision " +
                             std::to_string(built->schema_revision) + ": " +
                             st.ToString());
    }
  }
  detector_.Prune(*built->topology);
  {
    std::lock_guard<std::mutex> lock(view_mu_);
    watched_ = built;
  }
  Publish(built);
}

void ClusterNode::OnConnectionEvent(const ConnectionEvent& event) {
  if (event.state == PeerState::kDown) return;  // the reconnect decides
  ClusterViewPtr watched;
  {
    std::lock_guard<std::mutex> lock(view_mu_);
    if (stopped_) return;
    watched = watched_;
  }
  Uuid id = event.node_id;
  if (id == Uuid()) {  // never connected: known by its address
    for (const NodeStatus& n : watched->topology->nodes()) {
      if (n.info.listen_address == event.peer.address &&
          n.info.storage_port == event.peer.port) {
        id = n.info.host_id;
      }
    }
  }
  if (id == Uuid() || id == watched->topology->local()) return;
  if (event.state == PeerState::kUnreachable) {
    // etcd's word on a node it shows down suffices.
    const NodeStatus* n = watched->topology->Find(id);
    // A node restarted on another port: its old endpoint refusing
    // connections says nothing about the new one.
    if (n == nullptr || !n->up || n->info.listen_address != event.peer.address ||
        n->info.storage_port != event.peer.port ||
        !detector_.Unreachable(id, n->incarnation)) {
      return;
    }
    LogWarn("cluster", "Node " + id.ToString() + " (" + event.peer.ToString() +
                           ") does not take connections (" +
                           event.reason.message() +
                           "): treating it as down before its etcd lease "
                           "expires");
  } else {
    if (!detector_.Reachable(id)) return;
    LogInfo("cluster", "Node " + id.ToString() + " (" +
                           event.peer.ToString() +
                           ") takes connections again");
  }
  std::lock_guard<std::mutex> lock(republish_mu_);
  republish_ = true;
  republish_cv_.notify_all();
}

void ClusterNode::Republish() {
  std::unique_lock<std::mutex> lock(republish_mu_);
  while (true) {
    republish_cv_.wait(lock, [this] { return republish_ || republish_stop_; });
    if (republish_stop_) return;
    republish_ = false;
    lock.unlock();
    // The watch's latest view, read after the verdict changed: a view the
    // watch publishes meanwhile carries the verdict too.
    ClusterViewPtr watched;
    {
      std::lock_guard<std::mutex> view_lock(view_mu_);
      watched = watched_;
    }
    Publish(watched);
    lock.lock();
  }
}

void ClusterNode::Publish(ClusterViewPtr view) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  ClusterViewPtr before;
  std::vector<ViewListener> listeners;
  {
    std::lock_guard<std::mutex> lock(view_mu_);
    if (view_ != nullptr && view->revision < view_->revision) return;
    if (overlay_revision_ > view->revision) {
      auto copy = std::make_shared<ClusterView>(*view);
      for (const TabletMapPtr& map : overlay_created_) {
        copy->tablets[map->table_id] = map;
      }
      for (const Uuid& id : overlay_dropped_) copy->tablets.erase(id);
      view = std::move(copy);
    } else {
      overlay_created_.clear();
      overlay_dropped_.clear();
    }
    if (TopologyPtr shown = detector_.Apply(view->topology);
        shown != view->topology) {
      auto copy = std::make_shared<ClusterView>(*view);
      copy->topology = std::move(shown);
      view = std::move(copy);
    }
    before = view_;
    view_ = view;
    listeners = listeners_;
  }
  for (const ViewListener& listener : listeners) listener(*before, *view);
}

void ClusterNode::OnOwnSchemaChange(int64_t revision,
                                    std::vector<TabletMapPtr> created,
                                    std::vector<Uuid> dropped) {
  ClusterViewPtr watched;
  {
    std::lock_guard<std::mutex> lock(view_mu_);
    overlay_revision_ = revision;
    for (TabletMapPtr& map : created) overlay_created_.push_back(map);
    for (Uuid& id : dropped) overlay_dropped_.push_back(id);
    watched = watched_;
  }
  Publish(watched);
}

Result<std::shared_ptr<const void>> ClusterNode::MayDrop(
    const Uuid& self, const TabletRange& range) const {
  auto [view, ticket] = coordinator_->fence().Acquire();
  if (TabletMapPtr map = view->TabletsOf(range.table_id)) {
    for (TabletId i = 0; i < map->count(); ++i) {
      if (map->FirstToken(i) > range.tokens.end ||
          map->LastToken(i) < range.tokens.start) {
        continue;
      }
      if (map->tablets[i].HeldBy(self)) {
        return Status::ServerError(
            "This node holds or receives tablet " + std::to_string(i) +
            " of " + map->keyspace + "." + map->table + " at etcd revision " +
            std::to_string(view->revision) + ": not deleting its data");
      }
    }
  }
  return ticket;
}

Result<std::shared_ptr<const void>> ClusterNode::MayServe(
    const Uuid& from, int64_t epoch) const {
  // The ticket holds the sender's revision when older than this node's
  // view: a kFence for a newer one waits until this request is served.
  auto [view, ticket] = epoch == kNoEpoch
                            ? coordinator_->fence().Acquire()
                            : coordinator_->fence().AcquireAt(epoch);
  // kNoEpoch: a node of the previous release, which cannot be fenced.
  const int64_t fence = std::max(coordinator_->fence().raised(), view->fence);
  if (epoch != kNoEpoch && epoch < fence) {
    {
      // Logged once per sender and fence, not per request.
      std::lock_guard<std::mutex> lock(fenced_mu_);
      int64_t& logged = fenced_logged_[from];
      if (logged < fence) {
        logged = fence;
        LogWarn("cluster", "Refusing requests from node " + from.ToString() +
                               " on its view of etcd revision " +
                               std::to_string(epoch) +
                               ", older than the fence at " +
                               std::to_string(fence));
      }
    }
    return Status::ServerError(
        "Node " + from.ToString() + " sent a request on its view of etcd "
        "revision " + std::to_string(epoch) + ", older than the fence at " +
        std::to_string(fence) +
        ": a tablet move went on without it, so this replica does not serve "
        "it until its view has caught up");
  }
  const NodeStatus* peer = view->topology->Find(from);
  // Down by etcd's word, not this node's failure detector: a peer it cannot
  // connect to may still reach it, and its map is as fresh as its lease.
  const bool down =
      peer != nullptr && !peer->up && !detector_.Convicts(peer->info.host_id);
  if (peer != nullptr && (down || peer->info.state == NodeState::kLeft)) {
    return Status::ServerError(
        "Node " + from.ToString() + " is " + (peer->up ? "left" : "down") +
        " at etcd revision " + std::to_string(view->revision) +
        ": its view of the cluster may be stale, so this replica does not "
        "serve it");
  }
  return ticket;
}

Status ClusterNode::RegisterBarrier() {
  // Both verbs answer once this node uses a view of the revision asked and
  // no request on an older one is still served; kFence first refuses
  // requests stamped older (those admitted before hold tickets at their own
  // revision). The wait may last until requests on older views finish: on
  // a thread of its own, never blocking a loop or the handler pool (whose
  // handlers those requests may be waiting for).
  auto handler = [this](bool raise) {
    return [this, raise](IncomingMessage message, Responder responder) {
      Result<int64_t> revision = DecodeRevision(message.payload);
      Coordinator* coordinator = barrier_target_.load();
      if (!revision.ok() || coordinator == nullptr) {
        responder.Fail(revision.ok() ? Status::ServerError("Not joined yet")
                                     : revision.status());
        return;
      }
      if (raise) coordinator->fence().Raise(*revision);
      const auto wait =
          coordinator->options().BarrierWait(std::chrono::seconds(10));
      std::thread([fence = coordinator->fence(), rev = *revision, wait,
                   raise, responder = std::move(responder)]() mutable {
        const auto deadline = std::chrono::steady_clock::now() + wait;
        if (fence.Wait(rev, deadline)) {
          responder.Respond(std::string());
        } else {
          responder.Fail(Status::ServerError(
              (raise ? "fence" : "barrier") + std::string(" at etcd revision ") +
              std::to_string(rev) + " timed out"));
        }
      }).detach();
    };
  };
  KW_RETURN_IF_ERROR(messaging_->RegisterHandler(
      kFenceVerb, HandlerThread::kIoThread, handler(true)));
  return messaging_->RegisterHandler(kBarrierVerb, HandlerThread::kIoThread,
                                     handler(false));
}

Status ClusterNode::RegisterCounterLeader() {
  // The leader waits for its partition's lock and for other replicas: on a
  // fiber of its own, holding neither its loop nor a pool thread (which
  // the Paxos verbs and streams need meanwhile).
  return messaging_->RegisterHandler(
      kCounterLeaderVerb, HandlerThread::kFiber,
      [this](IncomingMessage message, Responder responder) {
        Result<std::shared_ptr<const void>> hold = replica_->Admit(message);
        Coordinator* coordinator = barrier_target_.load();
        if (!hold.ok() || coordinator == nullptr) {
          responder.Fail(hold.ok() ? Status::ServerError("Not joined yet")
                                   : hold.status());
          return;
        }
        Result<CounterLeaderRequest> request =
            DecodeCounterLeaderRequest(message.payload);
        Result<PartitionUpdate> update =
            request.ok() ? DecodePartitionUpdate(request->update,
                                                 replica_->Tables())
                         : Result<PartitionUpdate>(request.status());
        if (!update.ok()) {
          responder.Fail(update.status());
          return;
        }
        query::WriteOptions options;
        options.consistency = request->consistency;
        options.type = query::WriteType::kCounter;
        responder.Respond(EncodeCounterOutcome(
            coordinator->LeadCounters(std::move(update).value(), options)));
      });
}

Status ClusterNode::CatchUp() {
  return schema_->CatchUp();
}

Status ClusterNode::RunDdl(const std::function<Status()>& ddl) {
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    Status st = ddl();
    if (!query::IsSchemaConflict(st) || attempt == kAttempts) return st;
    query::BackOffAfterConflict(attempt);
    KW_RETURN_IF_ERROR(CatchUp());
  }
}

int ClusterNode::DataNodes(std::string_view dc) const {
  int n = 0;
  for (const NodeStatus* node : view()->topology->DataNodes()) {
    if (dc.empty() || node->info.dc == dc) ++n;
  }
  return n;
}

Result<Uuid> ClusterNode::AwaitReplaceable(
    const std::string& address, const Uuid& self,
    std::chrono::milliseconds wait) const {
  const auto end = std::chrono::steady_clock::now() + wait;
  while (true) {
    const ClusterViewPtr v = view();
    const NodeStatus* dead = nullptr;
    for (const NodeStatus& n : v->topology->nodes()) {
      if (n.info.listen_address == address) dead = &n;
    }
    if (dead == nullptr) {
      return Status::Invalid("Cannot replace " + address +
                             ": no node of the cluster has that address");
    }
    if (dead->info.host_id == self) {
      return Status::Invalid("Cannot replace " + address +
                             ": it is this node");
    }
    if (dead->info.state != NodeState::kNormal) {
      return Status::Invalid(
          "Cannot replace " + address + ": it is " +
          NodeStateName(dead->info.state) + ", not normal");
    }
    if (!dead->up) return dead->info.host_id;
    if (std::chrono::steady_clock::now() >= end) {
      return Status::Invalid("Cannot replace a live node " + address +
                             ": it is still up (stop it first)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

Status ClusterNode::MarkReplaced(const Uuid& dead, const std::string& address) {
  // The compare-and-set loses only to another write of the dead node's
  // record (an operator's): read it again.
  Status marked;
  for (int attempt = 0; attempt < 5; ++attempt) {
    marked = MarkNodeLeaving(etcd_, keys_, dead, address);
    if (marked.code() != ErrorCode::kServerError) break;
  }
  KW_RETURN_IF_ERROR(marked);
  LogInfo("cluster", "Replacing node " + address + " (" + dead.ToString() +
                         "): it is marked leaving, and its replicas move to "
                         "the nodes holding the fewest, this one first");
  return Status::OK();
}

std::set<std::string> ClusterNode::Datacenters() const {
  std::set<std::string> out{options_.self.dc};
  for (const NodeStatus& node : view()->topology->nodes()) {
    if (node.info.state != NodeState::kLeft) out.insert(node.info.dc);
  }
  return out;
}

Status ClusterNode::Truncate(const TableDef& table) {
  if (coordinator_ == nullptr) {
    return Status::ServerError("The node has not joined its cluster yet");
  }
  return coordinator_->TruncateEverywhere(table);
}

}  // namespace keywise::cluster

namespace keywise::cluster {

Status ClusterNode::ViewBuildBarrier(const TableDef& built) {
  return RecordViewBackfilled(etcd_, keys_, built, self().host_id,
                              *view()->topology);
}

}  // namespace keywise::cluster
