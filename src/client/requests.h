// Request bodies a client sends (native_protocol_v4.spec section 4.1):
// STARTUP, AUTH_RESPONSE, REGISTER, QUERY, PREPARE, EXECUTE, BATCH.
//
// Contract: pure functions, thread-safe. Each Encode* appends one complete
// body (without the frame header) to *out and returns ProtocolError, with
// *out unspecified, if a value does not fit the protocol's length prefixes.
// `version` is 3 or 4: it decides whether an unset value may be sent (v4)
// and nothing else for these requests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "protocol/notation.h"
#include "protocol/query_flags.h"

namespace keywise::client {

// A bound value: bytes, null, or (v4+) unset. Owns its bytes.
struct BoundValue {
  enum class Kind : uint8_t { kSet, kNull, kUnset };
  Kind kind = Kind::kNull;
  std::string bytes;

  static BoundValue Of(std::string b) { return {Kind::kSet, std::move(b)}; }
  static BoundValue Null() { return {Kind::kNull, {}}; }
  static BoundValue Unset() { return {Kind::kUnset, {}}; }
};

// <query_parameters> of QUERY and EXECUTE.
struct QueryParams {
  Consistency consistency = Consistency::kOne;
  std::vector<BoundValue> values;
  bool skip_metadata = false;
  // <= 0: no paging (the whole result in one page).
  int32_t page_size = 0;
  std::optional<std::string> paging_state;
  std::optional<Consistency> serial_consistency;
  std::optional<int64_t> default_timestamp;  // microseconds
};

using protocol::BatchType;

struct BatchEntry {
  bool is_prepared = false;
  std::string query_or_id;  // query text, or the prepared id
  std::vector<BoundValue> values;
};

struct BatchParams {
  BatchType type = BatchType::kLogged;
  Consistency consistency = Consistency::kOne;
  std::optional<Consistency> serial_consistency;
  std::optional<int64_t> default_timestamp;
};

Status EncodeStartup(const protocol::StringMap& options, std::string* out);
// PLAIN SASL token: "\0user\0password".
Status EncodePlainAuthResponse(std::string_view user, std::string_view password,
                               std::string* out);
Status EncodeRegister(const std::vector<std::string>& events, std::string* out);
Status EncodeQuery(uint8_t version, std::string_view query,
                   const QueryParams& params, std::string* out);
Status EncodePrepare(std::string_view query, std::string* out);
Status EncodeExecute(uint8_t version, std::string_view id,
                     const QueryParams& params, std::string* out);
Status EncodeBatch(uint8_t version, const std::vector<BatchEntry>& entries,
                   const BatchParams& params, std::string* out);

}  // namespace keywise::client
