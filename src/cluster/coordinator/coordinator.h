// Coordinator: the node's read and write paths when it is a member of a
// cluster (query::ReadPath and query::WritePath), as Cassandra's
// StorageProxy: any node coordinates any request.
//
//   Writes: each partition update goes to every replica of its tablet (this
//   node's own storage directly, the others through the kMutation verb);
//   the write is acknowledged once every update reached its consistency
//   level, checked for Unavailable before anything is sent; a replica that
//   is down or does not answer gets a hint (hint_store.h). WriteTimeout
//   after write_request_timeout_in_ms.
//   Reads: the replicas the level needs answer with their raw data
//   (kReadRaw/kScanRaw) in batches; the answers are merged by the storage
//   merge rules, stale replicas are repaired (kRepair) before the rows are
//   returned (blocking read repair), and the merged rows feed the query
//   layer's operators through the ordinary PartitionReader/TableScanner.
//   A read at ONE (or LOCAL_ONE) that this node can serve itself reads its
//   own storage directly. ReadTimeout after read_request_timeout_in_ms.
//   Node-local tables (LocalStrategy keyspaces: system.*) are read and
//   written on this node only. system_traces' tables are written by each
//   node for itself (its own trace events) and read from every live node,
//   their answers merged (coordinator_gather.cc, docs/tracing.md).
//   Traced requests (Placement::trace) record each replica asked and each
//   answer, and send their replica requests as kTraced (traced_message.h).
//   Counter increments (query::CounterPath, coordinator_counters.cc): a
//   live replica of the partition leads them (this node when it is one),
//   writing its shard's next values and sending them to the other replicas
//   as a write at the level asked (docs/counters.md).
//   Conditional writes (query::CasPath, coordinator_paxos.cc): a round of
//   Cassandra 4's Paxos among the partition's replicas (and its pending
//   one), with a quorum of the serial level at each step; reads at SERIAL
//   or LOCAL_SERIAL first finish any round left in progress
//   (docs/lwt.md).
//
// Contract: thread-safe; calls wait until the answers needed arrived or
// the timeout passed through net::Completion: a statement fiber is
// suspended (its I/O loop goes on), any other thread blocks. The view
// function returns the current ClusterView.
#pragma once

#include <atomic>
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>

#include "cluster/coordinator/batch_log.h"
#include "cluster/metadata/cluster_view.h"
#include "cluster/coordinator/consistency.h"
#include "cluster/coordinator/hint_store.h"
#include "cluster/coordinator/load_sampler.h"
#include "cluster/messaging/messaging_service.h"
#include "cluster/coordinator/replica_service.h"
#include "cluster/metadata/replication.h"
#include "cluster/coordinator/request_fence.h"
#include "cluster/coordinator/speculative_retry.h"
#include "cluster/coordinator/verbs.h"
#include "net/key_locks.h"
#include "query/exec/cas_path.h"
#include "query/exec/counter_path.h"
#include "query/exec/read_path.h"
#include "query/exec/write_path.h"
#include "storage/engine.h"
#include "tracing/trace_state.h"

namespace keywise::cluster {

struct CoordinatorOptions {
  std::chrono::milliseconds write_timeout{2000};
  std::chrono::milliseconds read_timeout{5000};
  // Rows a replica returns per raw read or scan batch.
  size_t batch_rows = 1000;
  // Reads of one partition from several replicas take data from one and
  // digests from the others, and speculative retry applies (off: data
  // from all, as repair does, and no speculative retry).
  bool digest_reads = true;

  // How long a barrier waits, at least `floor`: a write holds its view's
  // fence ticket up to the write timeout (request_fence.h).
  std::chrono::milliseconds BarrierWait(std::chrono::milliseconds floor) const {
    return std::max<std::chrono::milliseconds>(
        floor, write_timeout + std::chrono::seconds(5));
  }
};

class Coordinator final : public query::ReadPath,
                          public query::WritePath,
                          public query::CasPath,
                          public query::CounterPath {
 public:
  using ViewFn = std::function<ClusterViewPtr()>;

  // Everything must outlive the coordinator.
  Coordinator(Engine* engine, MessagingService* messaging,
              ReplicaService* replica, HintStore* hints, ViewFn view,
              CoordinatorOptions options);

  // query::WritePath
  Status Apply(const std::vector<PartitionUpdate>& updates,
               const query::WriteOptions& options) override;
  std::optional<query::TabletRoute> RouteIfRemote(
      const TableDef& table,
      const std::vector<std::string>& partition_key) const override;

  // query::ReadPath
  Status GetRow(const TableDef& table,
                const std::vector<std::string>& partition_key,
                const std::vector<std::string>& clustering,
                const query::ReadCall& call, LiveRow* row, bool* found,
                std::vector<Cell>* static_cells) override;
  Result<std::unique_ptr<PartitionReader>> ReadPartition(
      const TableDef& table, const std::vector<std::string>& partition_key,
      const ClusteringBound& start, const ClusteringBound& end,
      const query::ReadCall& call) override;
  Result<std::unique_ptr<TableScanner>> ScanTable(
      const TableDef& table, Token start_token, const ClusteringBound& start,
      const ClusteringBound& end, const query::ReadCall& call) override;

  // query::CasPath
  Result<query::CasOutcome> Execute(const query::CasRequest& request,
                                    const query::WriteOptions& options) override;

  // query::CounterPath: each partition's increments led by a live replica
  // (this node when it is one; else one picked in turn, through
  // kCounterLeader, counter_messages.h).
  Status ApplyCounters(const std::vector<PartitionUpdate>& updates,
                       const query::WriteOptions& options) override;
  // Leads the increments of one partition as its replica: under the
  // partition's counter lock, reads this node's shards and writes their
  // next values here, then sends them to the other replicas; returns once
  // the level is met, all within the write timeout (the lock's wait
  // included). Invalid for a table without counters; ServerError
  // kNotCounterReplica when this node is not a replica of the partition in
  // its view (the coordinator's view was older: nothing was written).
  Status LeadCounters(PartitionUpdate update,
                      const query::WriteOptions& options);

  // Writes raw partitions (a restore's load, backup/snapshot_loader.h) to
  // every replica of each one's tablet, a pending one included, as read
  // repairs (kRepair: views and indexes maintained), waiting for all:
  // Unavailable before anything is sent when a replica is down,
  // ReadTimeout when one does not acknowledge a partition within the write
  // timeout.
  // Node-local tables are written here only.
  Status WriteRaw(const std::vector<RawPartition>& partitions);

  // Sends `table`'s truncation to every node (Unavailable when one is
  // down) and truncates this node's data.
  Status TruncateEverywhere(const TableDef& table);

  // ---- for the read helpers (coordinator_reads.cc, coordinator_scan.cc)
  struct Placement {
    ReplicationSpec spec;
    TableDefPtr table;     // this node's definition
    TabletMapPtr tablets;  // nullptr for node-local tables
    ClusterViewPtr view;
    // Holds `view` in the fence while the request uses it.
    RequestFence::Ticket ticket;
    // The request's trace session (docs/tracing.md); null: not traced.
    tracing::TracePtr trace;
  };
  // Where `table` lives in the current view (a ticket taken); errors for
  // an unknown table or a missing map.
  Result<Placement> Place(const TableDef& table) const;
  // The same in `view`, held by `ticket`.
  Result<Placement> PlaceIn(const TableDef& table, ClusterViewPtr view,
                            RequestFence::Ticket ticket) const;
  // The views requests use; the node publishes each new one here.
  RequestFence& fence() { return fence_; }
  Engine* engine() const { return engine_; }
  ClusterViewPtr view() const { return view_(); }
  MessagingService* messaging() const { return messaging_; }
  ReplicaService* replica() const { return replica_; }
  const CoordinatorOptions& options() const { return options_; }
  // Logged batches over several partitions go through `log` (batch_log.h);
  // without one they are applied like unlogged batches. Set before use.
  void SetBatchLog(BatchLog* log) { batchlog_ = log; }
  HintStore* hints() const { return hints_; }

  // Partitions this node coordinated a single-partition read or a write of,
  // and how many of them it is itself a replica of (the share a
  // token-aware client sends straight to a replica).
  struct RoutingStats {
    uint64_t partitions = 0;
    uint64_t local_replica = 0;
  };
  RoutingStats routing() const {
    return {routed_.load(std::memory_order_relaxed),
            routed_local_.load(std::memory_order_relaxed)};
  }
  // The partitions this node coordinated single-partition reads and
  // writes of, per table, with their tokens (load reports).
  LoadSampler& load() const { return load_; }
  // The messaging endpoint of `node`; nullopt when unknown.
  std::optional<Endpoint> EndpointOf(const Topology& topology,
                                     const Uuid& node) const;

  // The replicas a read at `cl` of the partition with `token` asks (this
  // node alone when it can answer a ONE/LOCAL_ONE read itself: `local`
  // set). Unavailable when too few are up.
  Result<std::vector<Uuid>> Contacts(const Placement& p, Token token,
                                     Consistency cl) const;
  // Raw reads of one partition from `contacts`, merged, with stale
  // contacts repaired before returning: (with options.digest_reads) data
  // from the first and digests from the rest, one more replica asked when
  // the table's speculative_retry delay passes first, full data from all
  // only when the digests differ or a contact failed. ReadTimeout when
  // too few answer (or a repair is not acknowledged) before `deadline`.
  Result<RawPartition> ReadMerged(
      const Placement& p, const std::vector<Uuid>& contacts,
      const ReadRawRequest& request, Consistency cl,
      std::chrono::steady_clock::time_point deadline);
  // A raw scan of `request.tokens` from `contacts`, merged partition by
  // partition up to where every contact answered; stale contacts repaired
  // (adding the number of partition repairs sent to *repaired if given).
  Result<RawScan> ScanMerged(const Placement& p,
                             const std::vector<Uuid>& contacts,
                             const ScanRawRequest& request, Consistency cl,
                             std::chrono::steady_clock::time_point deadline,
                             size_t* repaired = nullptr);
  // Writes each contact's repair (empty ones skipped); ReadTimeout when
  // one is not acknowledged before `deadline`.
  Status Repair(const Placement& p, const std::vector<Uuid>& contacts,
                const std::vector<RawPartition>& repairs, Consistency cl,
                std::chrono::steady_clock::time_point deadline);
  // Digest reads whose digests differed from their data (the full read
  // and repair followed).
  uint64_t digest_mismatches() const { return digest_mismatches_.load(); }
  // Reads that asked one more replica because the contacts were slower
  // than the table's speculative_retry delay (speculative_retry.h).
  uint64_t speculative_retries() const { return speculative_retries_.load(); }
  // Drops what the coordinator keeps per table (read latencies) for a table
  // that was dropped.
  void ForgetTable(const Uuid& table_id) { latencies_.Forget(table_id); }

 private:
  // The first round of a read at one or more contacts: data from the
  // first, digests from the others and, once the table's speculative
  // retry delay passed without every answer, data from one more replica.
  // `data` is set when as many replicas as contacts answered and agreed;
  // `answered` lists who answered, in the order asked.
  struct AgreedRead {
    std::optional<RawPartition> data;
    std::vector<Uuid> answered;
  };
  AgreedRead ReadAgreed(const Placement& p, const std::vector<Uuid>& contacts,
                        const ReadRawRequest& request,
                        std::chrono::steady_clock::time_point deadline);
  // The contacts of a single-partition read at `cl` (the key serialized
  // into *pk); empty when this node answers a ONE/LOCAL_ONE read from its
  // own storage.
  Result<std::vector<Uuid>> ReadContactsOf(
      const Placement& p, const TableDef& table,
      const std::vector<std::string>& partition_key, Consistency cl,
      std::string* pk) const;
  // ReadMerged without recording its latency.
  Result<RawPartition> ReadFromContacts(
      const Placement& p, std::vector<Uuid> contacts,
      const ReadRawRequest& request, Consistency cl,
      std::chrono::steady_clock::time_point deadline);

  // A SERIAL/LOCAL_SERIAL read of one partition: Paxos rounds until one
  // is promised by a quorum with no earlier round left to finish
  // (coordinator_paxos.cc).
  Status SerialBarrier(const TableDef& table,
                       const std::vector<std::string>& partition_key,
                       Consistency serial);
  // The level a single-partition read at `cl` reads with: a SERIAL or
  // LOCAL_SERIAL read first passes the SerialBarrier, then reads at QUORUM
  // or LOCAL_QUORUM; other levels are unchanged.
  Result<Consistency> SerialRead(const TableDef& table,
                                 const std::vector<std::string>& partition_key,
                                 Consistency cl);
  // ---- system_traces (coordinator_gather.cc): whether `table` is read
  // from every live node, and those reads.
  static bool GathersEverywhere(const TableDef& table);
  Status GatherRow(const TableDef& table,
                   const std::vector<std::string>& partition_key,
                   const std::vector<std::string>& clustering,
                   const query::ReadCall& call, LiveRow* row, bool* found,
                   std::vector<Cell>* static_cells);
  Result<std::unique_ptr<PartitionReader>> GatherPartition(
      const TableDef& table, const std::vector<std::string>& partition_key,
      const ClusteringBound& start, const ClusteringBound& end,
      const query::ReadCall& call);
  Result<std::unique_ptr<TableScanner>> GatherScan(
      const TableDef& table, Token start_token, const ClusteringBound& start,
      const ClusteringBound& end, const query::ReadCall& call);
  // Gives `p` the request's trace and records who a read of the partition
  // `pk` asks (none: this node reads its own storage).
  void TraceContacts(Placement& p, tracing::TraceState* trace,
                     const std::string& pk, const std::vector<Uuid>& contacts,
                     Consistency cl) const;
  // A ballot above `above` and above every ballot this node made.
  Uuid NextBallot(const Uuid& above);
  // Apply, waiting for the level until `deadline`. With `held` (a counter
  // leader's lock), this node's own share is applied first and `held`
  // released before the others are sent theirs.
  Status Write(const std::vector<PartitionUpdate>& updates,
               const query::WriteOptions& options,
               std::chrono::steady_clock::time_point deadline,
               std::optional<net::KeyLocks::Guard> held);
  // One partition's increments led by a replica (coordinator_counters.cc):
  // `leader` asked through kCounterLeader, waiting for its outcome.
  Status AskCounterLeader(const Placement& p, const Uuid& leader,
                          const PartitionUpdate& update,
                          const query::WriteOptions& options, int block_for);


  Engine* const engine_;
  MessagingService* const messaging_;
  ReplicaService* const replica_;
  HintStore* const hints_;
  const ViewFn view_;
  const CoordinatorOptions options_;
  mutable RequestFence fence_;
  // Counts for routing(); `replicas` of one partition this node coordinates.
  void NoteRouting(const Topology& topology,
                   const std::vector<Uuid>& replicas) const;
  BatchLog* batchlog_ = nullptr;
  mutable std::atomic<uint64_t> routed_{0};
  mutable std::atomic<uint64_t> routed_local_{0};
  std::atomic<uint64_t> digest_mismatches_{0};
  std::atomic<uint64_t> speculative_retries_{0};
  // Single-partition read latencies per table: speculative retry delays.
  ReadLatencies latencies_;
  mutable LoadSampler load_;
  std::atomic<int64_t> last_ballot_micros_{0};
  // Counter increments this node leads, by partition (LeadCounters), and
  // the clock of their shards.
  net::KeyLocks counter_locks_;
  TimestampGenerator counter_clock_;
  // Turns for picking a remote counter leader among live replicas.
  std::atomic<uint64_t> leader_turn_{0};
};

}  // namespace keywise::cluster
