// The traced verb: a request of another verb that belongs to a traced
// request (docs/tracing.md), so that the replica records its own events of
// it under the coordinator's session (Cassandra sends the session id in
// the message's header; here it wraps the message, which leaves every
// other verb's format alone).
//
//   kTraced  request: TracedRequest (below); answer: the inner verb's
//            answer. The replica joins the session (tracing/tracer.h),
//            records that the message arrived, what it did (rows read,
//            tombstones, the write applied) and that it answered, then
//            answers as the inner verb would.
//
// TracedRequest: 16-byte session id | bytes coordinator address | u16 BE
//   inner verb | the inner verb's payload to the end. bytes: varint
//   length | bytes.
//
// Only the verbs of a request's own work are traced (IsTracedVerb): reads,
// digests, scans, read repairs, mutations.
//
// Contract: as verbs.h: the number and format never change in place;
// decoding never trusts its input (ServerError "Malformed ...").
#pragma once

#include <string>
#include <string_view>

#include "cluster/messaging/message.h"
#include "common/status.h"
#include "common/uuid.h"

namespace keywise::cluster {

inline constexpr Verb kTracedVerb{23};

struct TracedRequest {
  Uuid session_id;
  std::string coordinator;  // the coordinator's address, for the events
  Verb verb{};
  std::string payload;
};
std::string EncodeTracedRequest(const Uuid& session_id,
                                std::string_view coordinator, Verb verb,
                                std::string_view payload);
Result<TracedRequest> DecodeTracedRequest(std::string_view bytes);

// Whether requests of `verb` travel as kTraced when their request is.
bool IsTracedVerb(Verb verb);
// "READ_RAW", "READ_DIGEST", "SCAN_RAW", "REPAIR", "MUTATION"; "VERB <n>"
// for the others.
std::string VerbName(Verb verb);

}  // namespace keywise::cluster
