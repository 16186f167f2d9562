// PairedViewRouter: the cluster's views/view_router.h. A base replica
// sends each view update to one view replica, its pair, as Cassandra and
// ScyllaDB do: the nodes that replicate both the base and the view tablet
// keep their own view rows; the remaining base replicas and the remaining
// view replicas, each in tablet order, are paired by position. A view
// tablet's pending replica (a move in progress) gets every update too. A
// pair that is down, or does not answer within the write timeout, gets a
// hint (hint_store.h), as any replica of a write does.
//
// Each remote update is journaled as a hint for its target (hint_store.h)
// in the base write's own atomic write: a crash before it is delivered
// leaves a hint, which replay delivers. A target that is down gets it as a
// plain hint there and then; an up one gets it at once, and the hint is
// deleted when the target acknowledges (or left to replay when it fails or
// does not answer within the write timeout).
//
// The base write is acknowledged without waiting for its view updates
// (ScyllaDB's asynchronous view updates), so a view or index read may
// briefly miss a write its base already shows. Two exceptions wait for
// them, as every write did before the journal:
// - the backlog (bytes of view updates sent and not yet answered on this
//   node) is past `backlog_limit_bytes`: base writes are slowed to the
//   pace at which view replicas apply, never dropped (0: always wait);
// - an update of a key-change table (ALTER TABLE ... WITH PRIMARY KEY),
//   which becomes the table at its switch and must hold every
//   acknowledged write then.
//
// Contract: thread-safe; `coordinator` outlives the router.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "cluster/coordinator/coordinator.h"
#include "views/view_router.h"

namespace keywise::cluster {

// The view replica paired with base replica `local` (see above), or
// nullopt when it has none (it is no base replica, or there are more base
// replicas than view replicas).
std::optional<Uuid> PairedViewReplica(const Uuid& local,
                                      const std::vector<Uuid>& base_replicas,
                                      const std::vector<Uuid>& view_replicas);

// What a node's view updates wait on (for system_views.view_backlog).
struct ViewBacklog {
  int64_t updates = 0;  // sent, not yet answered
  int64_t bytes = 0;
  int64_t slowed_writes = 0;  // base writes that waited for the backlog
  int64_t limit_bytes = 0;
};

class PairedViewRouter final : public ViewRouter {
 public:
  PairedViewRouter(Coordinator* coordinator, int64_t backlog_limit_bytes)
      : coordinator_(coordinator), limit_bytes_(backlog_limit_bytes) {}
  Targets Route(const TableDef& base, Token base_token,
                const PartitionUpdate& view_update) const override;
  std::unique_ptr<ViewDelivery> Address(
      std::vector<RemoteViewUpdate> updates,
      std::vector<PartitionUpdate>* journal) override;
  void Send(std::unique_ptr<ViewDelivery> delivery,
            std::function<void()> done) override;

  ViewBacklog backlog() const;

  struct Counters {  // shared with the callbacks of sends
    std::atomic<int64_t> updates{0};
    std::atomic<int64_t> bytes{0};
    std::atomic<int64_t> slowed_writes{0};
  };

 private:
  Coordinator* const coordinator_;
  const int64_t limit_bytes_;
  const std::shared_ptr<Counters> counters_ = std::make_shared<Counters>();
};

}  // namespace keywise::cluster
