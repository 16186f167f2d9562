// PaxosStore: a replica's side of lightweight transactions (Cassandra 4's
// PaxosState): per partition, the highest ballot it promised, the proposal
// it accepted last, and the last commit it learned, kept durably in the
// node-local table system.paxos (row_key = serialized partition key,
// cf_id = table id), written before the answer is sent.
//
//   Prepare(b): promises b when b is above every ballot promised so far,
//     and answers with what it accepted and committed (both in any case).
//   Propose(p): accepts p unless a higher ballot was promised since.
//   Commit(p): records p as the last commit when it is newer, and forgets
//     an accepted proposal it supersedes. The caller applies p's updates
//     to the data before (replica_service.h).
//
// A tablet move hands the state of its range to the new replica
// (tablets/paxos_handoff.h), so that a round accepted or promised by a
// quorum that included the leaving replica is still seen by every quorum
// after the move:
//   Export: the state of the partitions of table `range.table_id` whose
//     token (the table's, not system.paxos's) lies in `range.tokens`, in
//     system.paxos's order, from the one after partition key `after`
//     (empty: the first), at most `limit`; `complete` when none is left.
//   Merge(key, s): keeps, per field, the newer of this replica's state and
//     `s`: the higher promise, the newer accepted proposal (none when a
//     commit at least as new is known), the newer commit. A commit newer
//     than this replica's is first passed to `apply` (its updates reach the
//     data before the record, as for Commit).
//
// Contract: thread-safe; the steps of one partition run one at a time
// (net/key_locks.h, so a statement fiber may call them). A step that
// cannot get its partition in time fails with ServerError, which the
// coordinator counts as a missing answer.
#pragma once

#include <atomic>
#include <functional>
#include <string_view>

#include "cluster/coordinator/paxos_messages.h"
#include "common/clock.h"
#include "net/key_locks.h"
#include "storage/engine.h"

namespace keywise::cluster {

class PaxosStore {
 public:
  // `engine` must outlive the store.
  explicit PaxosStore(Engine* engine)
      : engine_(engine), clock_(engine->clock()) {}

  Result<PaxosPromise> Prepare(const PaxosKey& key, const Uuid& ballot);
  Result<bool> Propose(const PaxosKey& key, const PaxosProposal& proposal);
  Status Commit(const PaxosKey& key, const PaxosProposal& proposal);

  Result<PaxosExport> Export(const TabletRange& range, std::string_view after,
                             size_t limit);
  Status Merge(const PaxosKey& key, const PaxosState& state,
               const std::function<Status(const PaxosProposal&)>& apply);

 private:
  struct State : PaxosState {
    // The newest timestamp of the stored row: a save writes above it even
    // if the clock stepped back (a save below it would be hidden).
    int64_t stamped = 0;
  };
  // The state a system.paxos row holds.
  static Result<State> FromRow(const TableDef& paxos, const LiveRow& row);
  Result<net::KeyLocks::Guard> LockKey(const PaxosKey& key);
  Result<State> Load(const PaxosKey& key);
  Status Save(const PaxosKey& key, const State& state);

  Engine* const engine_;
  TimestampGenerator clock_;  // state cells: the last save wins
  net::KeyLocks locks_;
};

}  // namespace keywise::cluster
