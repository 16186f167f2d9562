// ViewRouter: where the view updates of a base write go when the node is
// one replica of many (a cluster). Each base replica computes the view
// updates of the writes it applies from its own copy of the base
// partition (view_rows.h: index entries carry base timestamps, so the
// replicas' updates converge) and sends each one to the view replica
// paired with it (Cassandra's and ScyllaDB's pairing), applying it itself
// when that is this node.
//
// A base write's remote updates are journaled: Address returns rows of
// node-local tables that keep them until they are delivered, which the
// caller writes in the same atomic Engine::Apply as the base write, so a
// crash between that write and the sends loses none (Cassandra's local
// batchlog for view updates). Send then delivers them, and lets the base
// write be acknowledged without waiting for them unless the router says
// it must (a backlog past its limit, or an update that has to be seen as
// soon as the write is: view_routing.h).
//
// Contract: implementations are thread-safe. Route and Address are quick
// (no I/O). Send does not block: `done` runs once, on any thread.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "common/token.h"
#include "schema/table_def.h"
#include "storage/partition_update.h"

namespace keywise {

// A view update this node does not apply itself, with the base partition
// it came from (which decides its pairing).
struct RemoteViewUpdate {
  TableDefPtr base;
  Token base_token{0};
  PartitionUpdate update;
};

// The addressed remote updates of one write; what it holds is the
// router's.
class ViewDelivery {
 public:
  virtual ~ViewDelivery() = default;
};

class ViewRouter {
 public:
  virtual ~ViewRouter() = default;
  // Who applies `view_update`, caused by a write to the partition
  // `base_token` of `base`: this node (with its base write), other nodes
  // (through Send), or both.
  // `unknown`: this node does not know where the view is placed yet (its
  // schema arrived before its tablet map): the write is refused and
  // retried rather than losing the update.
  struct Targets {
    bool local = false;
    bool remote = false;
    bool unknown = false;
  };
  virtual Targets Route(const TableDef& base, Token base_token,
                        const PartitionUpdate& view_update) const = 0;
  // Addresses `updates` (those Route gave remote targets). With
  // `journal`, appends the rows that keep them durably on this node, to be
  // written with the base write; without (a backfill, which is repeated
  // after a crash anyway) nothing is kept. Never null. Dropping the result
  // without Send (the write failed) forgets the updates.
  virtual std::unique_ptr<ViewDelivery> Address(
      std::vector<RemoteViewUpdate> updates,
      std::vector<PartitionUpdate>* journal) = 0;
  // Delivers; call once the journal rows were written. `done` runs when
  // the base write may be acknowledged: for an unjournaled delivery, once
  // every update was applied by its replica or kept as a hint for it.
  virtual void Send(std::unique_ptr<ViewDelivery> delivery,
                    std::function<void()> done) = 0;
};

}  // namespace keywise
