// PairedViewRouter: the cluster's views/view_router.h. A base replica
// sends each view update to one view replica, its pair, as Cassandra and
// ScyllaDB do: the nodes that replicate both the base and the view tablet
// keep their own view rows; the remaining base replicas and the remaining
// view replicas, each in tablet order, are paired by position. A view
// tablet's pending replica (a move in progress) gets every update too. A
// pair that is down, or does not answer within the write timeout, gets a
// hint (hint_store.h), as any replica of a write does.
//
// With QUORUM base writes, a quorum of base replicas applied the write and
// sent its view updates to a quorum of distinct view replicas before the
// write was acknowledged (ReplicaService answers after Send's `done`), so
// a QUORUM read of the view sees it. A base replica that crashes between
// applying a write and sending its view updates loses those updates for
// its pair (the other pairs have them); repair brings them back.
//
// Contract: thread-safe; `coordinator` outlives the router.
#pragma once

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

class PairedViewRouter final : public ViewRouter {
 public:
  explicit PairedViewRouter(Coordinator* coordinator)
      : coordinator_(coordinator) {}
  Targets Route(const TableDef& base, Token base_token,
                const PartitionUpdate& view_update) const override;
  void Send(std::vector<RemoteViewUpdate> updates,
            std::function<void()> done) override;

 private:
  Coordinator* const coordinator_;
};

}  // namespace keywise::cluster
