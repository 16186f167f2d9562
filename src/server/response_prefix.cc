#include "server/response_prefix.h"

#include "protocol/frame.h"
#include "server/response.h"

namespace keywise::server {

uint8_t AppendResponsePrefix(uint8_t version, const ResponsePrefix& prefix,
                             std::string* out) {
  uint8_t flags = 0;
  if (prefix.tracing_id) {
    flags |= protocol::kFlagTracing;
    out->append(prefix.tracing_id->bytes_view());
  }
  if (version < 4) return flags;
  if (!prefix.warnings.empty()) {
    flags |= protocol::kFlagWarning;
    out->append(EncodeWarnings(prefix.warnings));
  }
  if (!prefix.custom_payload.empty()) {
    flags |= protocol::kFlagCustomPayload;
    out->append(prefix.custom_payload);
  }
  return flags;
}

}  // namespace keywise::server
