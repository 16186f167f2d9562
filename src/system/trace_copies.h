// Trace copies: in a cluster, each node's trace rows are also kept by one
// other node, so that a trace stays complete while any one node is down
// (Cassandra keeps system_traces at replication factor 2; docs/tracing.md,
// "In a cluster").
//
//   TraceCopySender  what the TraceWriter (trace_writer.h) sends its copies
//                    through: the cluster implements it (cluster/
//                    trace_copy_service.h); a single node has none.
//   TraceCopyNode    which node keeps the copy of a session's rows: a
//                    pure, deterministic choice from the session id and
//                    the live members.
//   EncodeTraceRows / DecodeTraceRows
//                    the payload of the message that carries the copies.
//                    Decoding validates that the rows are writes to
//                    system_traces.sessions or system_traces.events and
//                    nothing else: a peer cannot write another table, nor
//                    delete anything, through it.
//
// Payload (stored on the wire between nodes: DO NOT CHANGE in place):
//   varint n | n x (varint length | an encoded PartitionUpdate, storage's
//   partition_update_codec.h, format 0x20)
//
// Contract: TraceCopyNode and the codec are pure functions, safe from any
// thread; decoding never trusts its input (ServerError, never a crash).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/uuid.h"
#include "storage/partition_update.h"
#include "system/trace_tables.h"

namespace keywise::system {

class TraceCopySender {
 public:
  virtual ~TraceCopySender() = default;

  struct Members {
    Uuid self;               // this node
    std::vector<Uuid> live;  // every live member, this node included,
                             // sorted, each once
  };
  // The members a copy may go to now. Thread-safe.
  virtual Members LiveMembers() = 0;

  // Sends `updates` (rows of system_traces) to `node`, which applies them
  // to its own storage. Never blocks; calls `done` exactly once, from any
  // thread (possibly inline), within a bounded time (its timeout): OK once
  // `node` applied them, else why not. Thread-safe.
  virtual void Send(const Uuid& node, std::vector<PartitionUpdate> updates,
                    std::function<void(const Status&)> done) = 0;
};

// The node that keeps the copy of the rows `self` writes for
// `session_id`: the live members sorted by host id, the one at the
// session's Murmur3 token (that of its system_traces partition) modulo
// their count, or the next one when that is `self`. Every node picks the
// same for a session while they see the same members, so one node ends
// up with the whole session (and its own rows go to the node after it).
// nullopt when no other node is live. REQUIRES: `live` sorted, each once
// (as Members::live).
std::optional<Uuid> TraceCopyNode(const Uuid& session_id, const Uuid& self,
                                  const std::vector<Uuid>& live);

std::string EncodeTraceRows(const std::vector<PartitionUpdate>& updates);

// The updates of `bytes`, of `tables`' two tables. ServerError "Malformed
// trace rows: ..." for bytes that do not decode; ServerError "Refused
// trace rows: ..." for an update of another table, or one that deletes
// (a partition, range or row deletion, a tombstone or expired marker).
Result<std::vector<PartitionUpdate>> DecodeTraceRows(
    std::string_view bytes, const TraceTables& tables);

}  // namespace keywise::system
