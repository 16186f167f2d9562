// The counter leader verb (coordinator_counters.cc): a coordinator that is
// not a live replica of a partition asks one to lead its increments.
//
//   kCounterLeader request: CounterLeaderRequest (below); answer: a
//                  CounterOutcome. The replica shards the increments
//                  (query/exec/counter_path.h) and writes them to the
//                  partition's replicas at the request's level.
//
// CounterLeaderRequest: u16 BE consistency | the PartitionUpdate
//   (storage's partition_update_codec.h) to the end.
// CounterOutcome: empty when the write met its level; else svarint error
//   code | bytes message | u8 has_counts [| svarint block_for | svarint
//   received], so a timeout or unavailable error reaches the client with
//   the leader's replica counts.
//
// Contract: as verbs.h: formats never change in place; decoding never
// trusts its input (ServerError "Malformed ...").
#pragma once

#include <string>
#include <string_view>

#include "cluster/messaging/message.h"
#include "common/consistency.h"
#include "common/status.h"

namespace keywise::cluster {

inline constexpr Verb kCounterLeaderVerb{22};

// The leader's ServerError when it is not a replica of the partition in its
// view (it wrote nothing): the coordinator places the update again.
inline constexpr std::string_view kNotCounterReplica =
    "Cannot lead the counter update: this node is not a replica of the "
    "partition";

struct CounterLeaderRequest {
  Consistency consistency = Consistency::kOne;
  std::string update;  // an encoded PartitionUpdate
};
std::string EncodeCounterLeaderRequest(const CounterLeaderRequest& request);
Result<CounterLeaderRequest> DecodeCounterLeaderRequest(std::string_view bytes);

// Whether a counter write may fail with `code` (WriteTimeout,
// Unavailable, Overloaded, WriteFailure, Invalid, ServerError): a peer's
// other codes are not passed on to a client.
bool IsCounterWriteError(ErrorCode code);

// The leader's result as an answer, and back. Decoding gives the status
// the leader had (only the codes a write may fail with are kept; others
// read as ServerError), its counts for a write of level `consistency`.
std::string EncodeCounterOutcome(const Status& outcome);
Status DecodeCounterOutcome(std::string_view bytes, Consistency consistency);

}  // namespace keywise::cluster
