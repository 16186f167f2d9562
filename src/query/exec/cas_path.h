// CasPath: where a conditional write (a lightweight transaction) runs its
// round on one partition: read the rows its IF conditions name, decide
// from them, and write only if they hold, with no other round on the
// partition in between (compare-and-set). On one node LocalCasPath
// serializes the rounds of each partition with a lock; in a cluster the
// coordinator runs Paxos among the partition's replicas
// (cluster/coordinator/coordinator_paxos.cc, docs/lwt.md).
//
// Contract: Execute is thread-safe. `decide` sees the current state and
// returns whether to write; `build` is called when `decide` said yes, with
// the attempt's write timestamp, which is above that of every earlier
// round on the partition. A cluster may start a new attempt (a higher
// ballot after a refusal), calling `decide` and `build` again; only the
// last attempt's updates are written. They are applied through the node's
// write path (views and indexes included) before Execute returns; none is
// applied when `decide` or `build` fails.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "net/key_locks.h"
#include "query/exec/read_path.h"
#include "query/exec/write_path.h"
#include "storage/engine.h"
#include "storage/partition_update.h"

namespace keywise::query {

// The current state of what a round reads.
struct CasSnapshot {
  std::vector<Cell> statics;                 // live static cells
  std::vector<std::optional<LiveRow>> rows;  // parallel to CasRequest::rows
  std::optional<LiveRow> first_row;          // when CasRequest::first_row
};

struct CasRequest {
  const TableDef* table = nullptr;
  std::vector<std::string> partition_key;
  // Full clusterings of the rows the conditions read (none for a table
  // without clustering columns: one empty clustering).
  std::vector<std::vector<std::string>> rows;
  bool first_row = false;  // also read the partition's first live row
  int32_t now_seconds = 0;  // TTL expiry of what is read
  Consistency serial = Consistency::kSerial;  // the round's (SERIAL levels)
  std::function<Result<bool>(const CasSnapshot&)> decide;
  std::function<Result<std::vector<PartitionUpdate>>(int64_t timestamp)> build;
};

struct CasOutcome {
  bool applied = false;
  CasSnapshot current;                    // what `decide` saw
  std::vector<PartitionUpdate> written;   // when applied
};

// Reads what `request` names (its rows, the static row, and its first row
// when asked) through `reads` with `call`: the snapshot `decide` sees.
Status ReadCasSnapshot(ReadPath& reads, const CasRequest& request,
                       const ReadCall& call, CasSnapshot* out);

class CasPath {
 public:
  virtual ~CasPath() = default;
  virtual Result<CasOutcome> Execute(const CasRequest& request,
                                     const WriteOptions& options) = 0;
};

// One node: rounds on one partition run one at a time (a lock per
// partition that a statement's fiber may hold across its group-committed
// write, net/key_locks.h); a round that waits longer than
// `contention_timeout` for the partition fails with a CAS write timeout.
// Plain writes are not ordered against rounds, as in Cassandra, where
// mixing LWT and plain writes on a partition is not linearizable either.
class LocalCasPath final : public CasPath {
 public:
  // All three must outlive the path.
  LocalCasPath(Engine* engine, WritePath* writes, TimestampGenerator* clock)
      : reads_(engine), writes_(writes), clock_(clock) {}
  // Cassandra's cas_contention_timeout_in_ms (1000).
  std::chrono::milliseconds contention_timeout{1000};
  Result<CasOutcome> Execute(const CasRequest& request,
                             const WriteOptions& options) override;

 private:
  LocalReadPath reads_;
  WritePath* writes_;
  TimestampGenerator* clock_;
  net::KeyLocks locks_;  // by table and partition key
};

}  // namespace keywise::query
