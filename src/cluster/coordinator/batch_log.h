// BatchLog: Cassandra's batch log, which makes a LOGGED BATCH that spans
// partitions all-or-eventually-all. Before the coordinator applies such a
// batch it stores the whole batch (its partition updates) on up to two
// other live nodes of its datacenter (kBatchStore, kept in the node-local
// system.batches); once the batch met its consistency level it removes
// those copies (kBatchRemove). Every node replays the batches it holds that
// are older than `replay_after` (their coordinator died, or never removed
// them) through its own coordinator, then deletes them, so every partition
// of the batch is written even when the coordinator crashed midway. A
// partition update older than its table's gc_grace_seconds is left out of
// the replay (replay_age.h): it could bring back rows deleted since.
//
// Contract: thread-safe. Register before messaging starts; Start/Stop the
// replay thread (Stop also runs in the destructor). Store blocks for the
// copies' acknowledgements (or the timeout).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "cluster/messaging/messaging_service.h"
#include "cluster/metadata/replication.h"
#include "cluster/coordinator/verbs.h"
#include "storage/engine.h"
#include "storage/table_lookup.h"

namespace keywise::cluster {

struct BatchLogOptions {
  // A batch this old that is still in the log is replayed (Cassandra: twice
  // the write timeout).
  std::chrono::milliseconds replay_after{4000};
  std::chrono::milliseconds replay_interval{1000};
  std::chrono::milliseconds store_timeout{2000};
};

class BatchLog {
 public:
  using ViewFn = std::function<ClusterViewPtr()>;
  using TablesFn = std::function<TableLookup()>;
  // Applies a replayed batch's updates (the coordinator, at ONE).
  using ApplyFn = std::function<Status(const std::vector<PartitionUpdate>&)>;

  // Everything must outlive the log.
  BatchLog(Engine* engine, MessagingService* messaging, ViewFn view,
           TablesFn tables, BatchLogOptions options);
  ~BatchLog();

  Status Register();
  void Start(ApplyFn apply);
  void Stop();

  // Stores the batch `id` (encoded partition updates) on the batch log
  // nodes chosen for it, which it returns. Unavailable when no node can
  // keep it; WriteTimeout (write type BATCH_LOG) when one did not answer.
  Result<std::vector<Uuid>> Store(const Uuid& id,
                                  const std::vector<std::string>& mutations,
                                  Consistency consistency);
  // Removes the batch from `nodes` (does not wait).
  void Remove(const Uuid& id, const std::vector<Uuid>& nodes);

  // Batches this node keeps now, and has been given to keep since it
  // started (tests, admin).
  int64_t Pending() const;
  int64_t kept_total() const { return kept_total_.load(); }

 private:
  Status Keep(const BatchLogEntry& entry);
  Status Drop(const Uuid& id);
  void Run();
  void ReplayDue();

  Engine* const engine_;
  MessagingService* const messaging_;
  const ViewFn view_;
  const TablesFn tables_;
  const BatchLogOptions options_;
  ApplyFn apply_;
  std::atomic<int64_t> kept_total_{0};

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace keywise::cluster
