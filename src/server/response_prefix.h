// What a response body carries ahead of its message, and the frame flags
// that announce it (native_protocol_v4.spec section 2.2; v5 section 2.2
// and the body layout of section 4):
//
//   [<tracing id>][<warnings>][<custom payload>]<message>
//
//   tracing id      [uuid], flag 0x02: the request had the tracing flag
//                   (every version; a request traced because of
//                   trace_probability gets none, as in Cassandra);
//   warnings        [string list], flag 0x08, v4 and later;
//   custom payload  [bytes map], flag 0x04, v4 and later.
//
// ERROR responses carry the tracing id too when the request asked for it
// (Cassandra sets it on whatever response the traced execution returns).
//
// Contract: pure function, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/uuid.h"

namespace keywise::server {

struct ResponsePrefix {
  std::optional<Uuid> tracing_id;
  std::vector<std::string> warnings;  // empty: none
  std::string custom_payload;         // an encoded [bytes map]; empty: none
};

// Appends the prefix for `version` to *out (parts the version cannot carry
// are left out) and returns the flags to set in the frame header.
uint8_t AppendResponsePrefix(uint8_t version, const ResponsePrefix& prefix,
                             std::string* out);

}  // namespace keywise::server
