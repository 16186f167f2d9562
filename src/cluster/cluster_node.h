// ClusterNode: everything that makes a Keywise node a member of a cluster,
// wired around the node's Engine: the etcd client, the metadata mirror and
// the ClusterView it publishes, the schema sync, membership, and (in the
// files that add them) messaging, the coordinator, hints and the system
// peers tables. docs/cluster.md describes the design.
//
// Contract: Start (reads etcd: the node's catalog becomes the cluster's
// schema; DDL goes through etcd from then on), then the node installs its
// system keyspaces, then Join (registers the node: others see it up), then
// it serves; Stop (also run by the destructor) leaves and stops everything.
// view() and the accessors are thread-safe after Start.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/admin_service.h"
#include "cluster/tablets/balancer.h"
#include "cluster/metadata/cluster_keys.h"
#include "cluster/metadata/cluster_view.h"
#include "cluster/metadata/failure_detector.h"
#include "cluster/coordinator/coordinator.h"
#include "cluster/coordinator/view_routing.h"
#include "cluster/view_backlog_table.h"
#include "common/periodic_task.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/tablets/leftovers.h"
#include "cluster/tablets/load_reporter.h"
#include "cluster/metadata/membership.h"
#include "cluster/metadata/metadata_mirror.h"
#include "cluster/metadata/peer_tables.h"
#include "cluster/metadata/schema_sync.h"
#include "cluster/metadata/tablets_table_sync.h"
#include "cluster/stats_service.h"
#include "cluster/trace_copy_service.h"
#include "cluster/tablets/tablet_mover.h"
#include "query/exec/schema_service.h"
#include "storage/engine.h"
#include "views/view_maintainer.h"

namespace keywise::cluster {

struct ClusterNodeOptions {
  std::string cluster_name = "Test Cluster";
  // This node (its host_id comes with Join); listen_address and
  // storage_port are where its messaging listens (storage_port 0: any free
  // port, for tests; the record then holds the port chosen).
  NodeInfo self;
  std::chrono::seconds lease_ttl{3};
  int initial_tablets = 0;
  CoordinatorOptions coordinator;
  TabletMoverOptions mover;
  BalancerOptions balancer;
  // Whether this node takes part in running the balancer (tests turn it
  // off to drive moves themselves).
  bool run_balancer = true;
  LoadReportOptions load_reports;
  // Whether this node writes load reports on its own (tests turn it off
  // to write them when they choose, with load_reporter()).
  bool report_load = true;
  HintOptions hints;
  // Past this many bytes of view updates in flight, base writes wait for
  // their own (view_routing.h); 0: they always do.
  int64_t view_update_backlog_limit_bytes = int64_t{10} << 20;
  // How often the etcd records of finished view builds are swept.
  std::chrono::milliseconds build_records_sweep_interval{60000};
  BatchLogOptions batchlog;
  // Messaging's settings; its listen_address, port and node_id are the
  // node's own (set by Join).
  MessagingOptions messaging;
  // Deletes copies of tablets this node no longer holds (leftovers.h).
  LeftoverCleanupOptions cleanup;
  bool run_cleanup = true;
  // The node's I/O loops, shared with its native transport (not owned;
  // running from before Start until after Stop), or nullptr: messaging
  // then runs loops of its own (tests).
  net::LoopGroup* loops = nullptr;
  // Receives TOPOLOGY_CHANGE / STATUS_CHANGE events for drivers (may be
  // empty); called on the metadata watch's thread.
  PeerTables::EventSink node_events;
  // Receives the SCHEMA_CHANGE events of schemas other nodes committed,
  // once applied here (may be empty).
  std::function<void(const query::SchemaChangeResult&)> schema_events;
  // Answers `keywise admin reloadssl` (AdminService); may be empty.
  AdminService::ReloadTls reload_tls;
  // This node's workload statistics, which other nodes ask for
  // (stats_service.h; null: statistics off), and how long a node waits
  // for theirs.
  advisor::WorkloadStats* workload = nullptr;
  std::chrono::milliseconds stats_timeout{1500};
  // Traces this node's part of traced requests other nodes coordinate
  // (docs/tracing.md); null: untraced. Outlives the node.
  tracing::Tracer* tracer = nullptr;
};

class ClusterNode : public query::SchemaService {
 public:
  // `etcd` and `engine` must outlive the node.
  ClusterNode(ClusterNodeOptions options, EtcdClient* etcd, Engine* engine);
  ~ClusterNode() override;

  // Mirrors etcd and makes the catalog the cluster's schema.
  Status Start();
  // Starts messaging, the replica service, hints and the coordinator, then
  // registers this node (`host_id`: its id from system.local) as normal.
  Status Join(const Uuid& host_id);
  void Stop();

  // Where statements read and write once joined.
  query::ReadPath* reads() { return coordinator_.get(); }
  query::WritePath* writes() { return coordinator_.get(); }
  Coordinator* coordinator() { return coordinator_.get(); }
  // This node's view maintenance: the query processor's writes and the
  // replica service's share it (query::QueryProcessor's `views`).
  ViewMaintainer* views() { return &views_; }
  // The view builder's barrier (views/view_builder.h): records in etcd
  // that this node backfilled `view`; OK once every data node has.
  Status ViewBuildBarrier(const TableDef& view);
  HintStore* hints() { return hints_.get(); }
  // Null before Join.
  PairedViewRouter* view_router() { return view_router_.get(); }
  BatchLog* batchlog() { return batchlog_.get(); }
  TabletMover* mover() { return mover_.get(); }
  Balancer* balancer() { return balancer_.get(); }
  LoadReporter* load_reporter() { return load_reporter_.get(); }
  LeftoverCleanup* cleanup() { return cleanup_.get(); }
  // The other nodes' workload statistics (after Join).
  advisor::PeerStats* peer_stats() { return stats_.get(); }
  // Where the node's TraceWriter sends the copies of its trace rows
  // (after Join; trace_copy_service.h).
  system::TraceCopySender* trace_copies() { return trace_copies_.get(); }
  // This node's record as registered (after Join).
  NodeInfo self() const;

  ClusterViewPtr view() const;
  // Called with each newly published view (after the schema applied),
  // on the metadata watch's thread.
  using ViewListener =
      std::function<void(const ClusterView& before, const ClusterView& after)>;
  void AddViewListener(ViewListener listener);

  // Runs `ddl` (catalog changes made by the node itself, such as installing
  // its system keyspaces) until it does not lose a race with another
  // node's DDL, catching up in between.
  Status RunDdl(const std::function<Status()>& ddl);

  // Replacing a dead node (replace_address_first_boot), in two steps.
  // Before Join: the node at `address` must be another node, normal, and
  // down (waits up to `wait` for its lease to run out); its host id.
  Result<Uuid> AwaitReplaceable(const std::string& address, const Uuid& self,
                                std::chrono::milliseconds wait) const;
  // After Join: marks it leaving, as removenode does, so the balancer moves
  // its replicas away: to the node holding fewest, this new one first.
  Status MarkReplaced(const Uuid& dead, const std::string& address);

  // query::SchemaService
  Status CatchUp() override;
  Status Truncate(const TableDef& table) override;
  int DataNodes(std::string_view dc) const override;
  std::set<std::string> Datacenters() const override;

 private:
  // Answers kBarrier (tablet_mover.h) from the coordinator's fence, and
  // kFence by raising it.
  Status RegisterBarrier();
  // Answers kCounterLeader (counter_messages.h) by leading the increments
  // through the coordinator, once it exists.
  Status RegisterCounterLeader();
  // The replica's drop guard: this node (`self`) deletes a range (a tablet
  // moved away, or one about to be streamed in) only while, in the view
  // its requests take, it neither holds nor receives any of it; the ticket
  // returned makes a barrier for a newer view wait until the deletion is
  // done (docs/cluster.md, "Moving a tablet").
  Result<std::shared_ptr<const void>> MayDrop(const Uuid& self,
                                              const TabletRange& range) const;
  // The replica's sender guard (fencing, docs/cluster.md): a peer this
  // node's view shows down (its lease ran out: it may have lost etcd and
  // kept serving on an old map) or left gets no answer, nor does a request
  // stamped with an epoch below the fence (RequestFence::fence()): its
  // sender missed a barrier of a tablet move, so its map may send it to a
  // replica the move has emptied. The ticket makes a later barrier wait
  // for the request.
  Result<std::shared_ptr<const void>> MayServe(const Uuid& from,
                                               int64_t epoch) const;
  void OnMetadata(const MetadataCopy& copy, int64_t revision);
  // The messaging connection listener: feeds the failure detector and
  // has the view republished when a verdict changes.
  void OnConnectionEvent(const ConnectionEvent& event);
  void Republish();  // republisher_'s loop
  // Publishes `view` with this node's own recent tablet-map writes laid
  // over it when the watch has not caught up with them, and the peers the
  // failure detector convicted shown down; a view older than the current
  // one is ignored.
  void Publish(ClusterViewPtr view);
  void OnOwnSchemaChange(int64_t revision, std::vector<TabletMapPtr> created,
                         std::vector<Uuid> dropped);

  const ClusterNodeOptions options_;
  const ClusterKeys keys_;
  EtcdClient* const etcd_;
  Engine* const engine_;
  ViewMaintainer views_;
  std::unique_ptr<MetadataMirror> mirror_;
  std::unique_ptr<SchemaSync> schema_;
  std::unique_ptr<Membership> membership_;
  std::unique_ptr<MessagingService> messaging_;
  std::unique_ptr<ReplicaService> replica_;
  std::unique_ptr<AdminService> admin_;
  std::unique_ptr<StatsService> stats_;
  std::unique_ptr<TraceCopyService> trace_copies_;
  std::unique_ptr<HintStore> hints_;
  std::unique_ptr<Coordinator> coordinator_;
  std::unique_ptr<PairedViewRouter> view_router_;
  std::unique_ptr<ViewBacklogTable> view_backlog_table_;
  // Sweeps the etcd build records of views built or dropped
  // (view_build_records.h).
  PeriodicTask build_records_sweep_;
  std::unique_ptr<BatchLog> batchlog_;
  std::unique_ptr<TabletMover> mover_;
  std::unique_ptr<Balancer> balancer_;
  std::unique_ptr<LoadReporter> load_reporter_;
  std::unique_ptr<LeftoverCleanup> cleanup_;
  // What kBarrier requests wait on, kFence raises and kCounterLeader
  // leads through; set once the coordinator exists.
  std::atomic<Coordinator*> barrier_target_{nullptr};
  std::unique_ptr<PeerTables> peer_tables_;
  std::unique_ptr<TabletsTableSync> tablets_table_;
  // What the catalog listener reaches; cut by Stop.
  struct SchemaHook {
    std::mutex mu;
    Membership* membership = nullptr;  // guarded by mu
  };
  const std::shared_ptr<SchemaHook> schema_hook_ =
      std::make_shared<SchemaHook>();

  // The fence each refused sender was last logged for (MayServe).
  mutable std::mutex fenced_mu_;
  mutable std::map<Uuid, int64_t> fenced_logged_;  // guarded by fenced_mu_
  // Peers convicted by their connections (failure_detector.h), laid over
  // every view this node publishes. A changed verdict republishes the
  // watch's latest view on republisher_, off the messaging loops.
  FailureDetector detector_;
  std::mutex republish_mu_;
  std::condition_variable republish_cv_;
  bool republish_ = false;       // guarded by republish_mu_
  bool republish_stop_ = false;  // guarded by republish_mu_
  std::thread republisher_;
  // Serializes Publish, listeners included: the watch thread, DDL and the
  // messaging loops (the detector) all publish.
  std::mutex publish_mu_;
  mutable std::mutex view_mu_;
  ClusterViewPtr view_;                        // guarded by view_mu_
  ClusterViewPtr watched_;                     // the watch's latest; view_mu_
  int64_t overlay_revision_ = 0;               // guarded by view_mu_
  std::vector<TabletMapPtr> overlay_created_;  // guarded by view_mu_
  std::vector<Uuid> overlay_dropped_;          // guarded by view_mu_
  std::vector<ViewListener> listeners_;        // guarded by view_mu_
  Uuid local_;                                 // guarded by view_mu_
  bool stopped_ = false;
};

}  // namespace keywise::cluster
