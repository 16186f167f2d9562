#include "cluster/coordinator/traced_message.h"

#include "cluster/coordinator/verbs.h"
#include "common/coding.h"

namespace keywise::cluster {

std::string EncodeTracedRequest(const Uuid& session_id,
                                std::string_view coordinator, Verb verb,
                                std::string_view payload) {
  std::string out;
  out.reserve(16 + 1 + coordinator.size() + 2 + payload.size());
  out.append(session_id.bytes_view());
  PutLengthPrefixed(&out, coordinator);
  PutFixed16BE(&out, VerbValue(verb));
  out.append(payload);
  return out;
}

Result<TracedRequest> DecodeTracedRequest(std::string_view bytes) {
  const Status bad = Status::ServerError("Malformed traced request");
  TracedRequest r;
  std::string_view coordinator;
  if (!Uuid::Consume(&bytes, &r.session_id) ||
      !GetLengthPrefixed(&bytes, &coordinator) || bytes.size() < 2) {
    return bad;
  }
  r.coordinator = std::string(coordinator);
  r.verb = Verb{DecodeFixed16BE(bytes.data())};
  bytes.remove_prefix(2);
  if (!IsTracedVerb(r.verb)) return bad;
  r.payload = std::string(bytes);
  return r;
}

bool IsTracedVerb(Verb verb) {
  return verb == kReadRawVerb || verb == kReadDigestVerb ||
         verb == kScanRawVerb || verb == kRepairVerb || verb == kMutationVerb;
}

std::string VerbName(Verb verb) {
  if (verb == kReadRawVerb) return "READ_RAW";
  if (verb == kReadDigestVerb) return "READ_DIGEST";
  if (verb == kScanRawVerb) return "SCAN_RAW";
  if (verb == kRepairVerb) return "REPAIR";
  if (verb == kMutationVerb) return "MUTATION";
  return "VERB " + std::to_string(VerbValue(verb));
}

}  // namespace keywise::cluster
