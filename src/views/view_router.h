// ViewRouter: where the view updates of a base write go when the node is
// one replica of many (a cluster). Each base replica computes the view
// updates of the writes it applies from its own copy of the base
// partition (view_rows.h: index entries carry base timestamps, so the
// replicas' updates converge) and sends each one to the view replica
// paired with it (Cassandra's and ScyllaDB's pairing), applying it itself
// when that is this node.
//
// Contract: implementations are thread-safe. Route() is quick (no I/O).
// Send() does not block: `done` runs once, on any thread, when every
// update was applied by its replica or kept as a hint for it.
#pragma once

#include <functional>
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
  // Sends updates Route gave remote targets to those nodes.
  virtual void Send(std::vector<RemoteViewUpdate> updates,
                    std::function<void()> done) = 0;
};

}  // namespace keywise
