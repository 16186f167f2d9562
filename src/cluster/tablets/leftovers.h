// Leftovers: copies of tablet data on a node that neither replicates nor
// receives the tablet. The mover deletes an old replica's copy at the end
// of a move, but not when the barrier before that cleanup failed, nor when
// the old replica was down then; a write or a hint may also reach an old
// replica late. LeftoverCleanup finds them by probing this node's storage
// in the token ranges its view gives it no part in, and deletes them
// (through the replica's drop guard, so a range the node receives again
// meanwhile is kept); load reports flag them (`keywise admin tablets`).
//
// Contract: RangesNotHeld is pure. HoldsAnything and RunOnce read this
// node's storage (a probe reads until one live row, so a range holding
// only tombstones is read whole). LeftoverCleanup::Start runs passes on
// its own thread until Stop; RunOnce runs one on the caller's (tests).
#pragma once

#include <chrono>
#include <vector>

#include "cluster/coordinator/coordinator.h"
#include "cluster/metadata/tablet_map.h"
#include "common/periodic_task.h"
#include "storage/engine.h"

namespace keywise::cluster {

// The maximal token ranges of `map` whose tablets `self` neither
// replicates nor receives (as a transition's pending replica).
std::vector<TokenInterval> RangesNotHeld(const TabletMap& map,
                                         const Uuid& self);

// Whether this node's storage holds any partition of `table` in `tokens`.
Result<bool> HoldsAnything(Engine& engine, const TableDefPtr& table,
                           TokenInterval tokens);

struct LeftoverCleanupOptions {
  // Between passes (the first runs one interval after Start).
  std::chrono::milliseconds interval{60000};
};

class LeftoverCleanup {
 public:
  // The coordinator must outlive the cleanup.
  LeftoverCleanup(Coordinator* coordinator, LeftoverCleanupOptions options)
      : coordinator_(coordinator), options_(options) {}

  void Start();
  void Stop() { passes_.Stop(); }
  // One pass over every table of the current view: returns how many
  // ranges it deleted; an error when some range could not be probed or
  // deleted (the others were).
  Result<size_t> RunOnce();

 private:
  Coordinator* const coordinator_;
  const LeftoverCleanupOptions options_;
  PeriodicTask passes_;
};

}  // namespace keywise::cluster
