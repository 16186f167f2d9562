// ViewMaintainer: one node's writes to tables with materialized views or
// secondary indexes, applied together with the view updates they cause,
// and the backfill of a new view from the rows its base already holds.
//
// Contract: thread-safe. Apply reads the current schema; for each base
// partition with views it takes that partition's lock (a fixed set of
// striped mutexes, taken in address order, so concurrent writes to one
// partition are serialized and never deadlock), reads the partition's
// stored state within the slice the write touches (Engine::ReadRaw: one
// point read for a one-row write, the whole partition for a partition or
// range deletion), merges the write into it in memory (RawOfUpdate,
// MergeRawPartitions), and applies the base updates and the view updates
// (view_rows.h) in one atomic Engine::Apply. Writes to tables without
// views go straight to Engine::Apply.
//
// View rows carry their base rows' timestamps (view_rows.h): no clock
// of this object's is in them.
//
// Backfill must be called after the view is in the published schema: it
// first waits for writes that read the schema before the view existed,
// then reads base partitions in groups of 8, each group under its
// partitions' locks, and writes their view rows in one Apply; after each
// group it sleeps as long as the group took, so a backfill takes at most
// half of the machine from foreground requests (measured: bigger groups
// and no pause made a concurrent workload's p99 go from 4 ms to 600 ms;
// docs/performance.md).
// It is idempotent, so an interrupted backfill is simply run again. With a
// router, the view rows of this node's base partitions that the router
// does not apply here are sent (and waited for) after each group.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "views/view_router.h"

namespace keywise {

// Apply refuses updates of a table that is no longer in the schema (dropped,
// or replaced by a primary key change since the statement was prepared):
// nothing is written, and the QueryProcessor prepares the statement again
// and retries it. The message reaches a client only if that keeps failing.
inline constexpr std::string_view kTableChangedMessage =
    "The table changed while the statement ran; run it again";
bool IsTableChanged(const Status& status);

class ViewMaintainer {
 public:
  // `engine` must outlive the maintainer.
  explicit ViewMaintainer(Engine* engine);

  // Where view updates go in a cluster (view_router.h); without one (a
  // single node) every view update is applied here. Call before use;
  // `router` must outlive the maintainer.
  void SetRouter(ViewRouter* router);

  // Engine::Apply's contract, plus the view updates; kTableChangedMessage
  // (above) when an update's table is gone. With a router and `delivery`,
  // the view updates the router does not apply here are journaled in the
  // same atomic write (ViewRouter::Address) and `*delivery` is set (null
  // when there are none) for the caller to Send after this returns OK.
  Status Apply(const std::vector<PartitionUpdate>& updates,
               std::unique_ptr<ViewDelivery>* delivery = nullptr);
  // Engine::ApplyRaw (a read repair) with the view updates it causes, the
  // same way; the local view updates and the journal are written just
  // before the base data, not atomically with it.
  Status ApplyRaw(const std::vector<RawPartition>& partitions,
                  std::unique_ptr<ViewDelivery>* delivery);

  // Runs `change` (a schema change that replaces tables) while no Apply is
  // between its schema read and its write, so no write lands in a table
  // the change removes.
  Status Exclusive(const std::function<Status()>& change);

  // Fills `view` from its base's current rows. `stop` is polled between
  // partitions (Aborted when it returns true). `progress` (may be null) is
  // called after each partition with the token reached.
  Status Backfill(const TableDefPtr& view, const std::function<bool()>& stop,
                  const std::function<void(Token)>& progress);

 private:
  static constexpr size_t kStripes = 256;
  // ServerError when the router does not know where a view is placed yet:
  // the write (or backfill group) is refused rather than losing its view
  // updates, and is retried.
  Status Route(const TableDefPtr& base, Token base_token,
               std::vector<PartitionUpdate>* view_updates,
               std::vector<PartitionUpdate>* local,
               std::vector<RemoteViewUpdate>* remote) const;
  std::mutex* Stripe(const TableDef& table, const std::string& serialized_pk);
  int32_t NowSeconds() const;

  Engine* const engine_;
  std::atomic<ViewRouter*> router_{nullptr};
  // Held shared by every Apply from its schema read to its write, and
  // taken exclusively by Backfill once before it starts.
  std::shared_mutex schema_gate_;
  std::array<std::mutex, kStripes> stripes_;
};

}  // namespace keywise
