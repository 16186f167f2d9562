// Request bodies of the CQL native protocol (native_protocol_v4.spec section
// 4.1, v5 section 4.1), decoded into owned values the query layer takes.
//
// Contract: pure functions, thread-safe, safe on untrusted input. Each
// Decode* takes the body after decompression and after the custom payload
// (which requests may carry and Keywise ignores; see SkipCustomPayload).
// Malformed or truncated bodies are ProtocolError, as Cassandra's codecs
// report them; trailing bytes after a complete body are ignored, as Cassandra
// does. `version` is the frame's protocol version (3..5): it decides the
// width of the query flags (byte before v5, int from v5), whether [value]
// -2 means unset (v4+) or null (v3), and the v5-only fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "cql/ast_dml.h"
#include "protocol/notation.h"
#include "query/expr/query_options.h"
#include "query/expr/value.h"

namespace keywise::server {

// <query_parameters> of QUERY and EXECUTE, and BATCH's trailing options.
struct QueryParameters {
  query::QueryOptions options;
  bool skip_metadata = false;
  // v5 keyspace flag: run as if this keyspace were the session's.
  std::optional<std::string> keyspace;
};

struct QueryRequest {
  std::string query;
  QueryParameters params;
};

struct PrepareRequest {
  std::string query;
  std::optional<std::string> keyspace;  // v5 only
};

struct ExecuteRequest {
  std::string id;
  std::string result_metadata_id;  // v5 only
  QueryParameters params;
};

struct BatchRequest {
  struct Entry {
    bool is_prepared = false;
    std::string query_or_id;  // query text, or prepared id when is_prepared
    std::vector<query::Value> values;
  };
  cql::BatchType type = cql::BatchType::kLogged;
  std::vector<Entry> entries;
  QueryParameters params;  // params.options.values stays empty
};

// Consumes the [bytes map] a request with the custom payload flag starts
// with. ProtocolError before v4, where the flag does not exist.
Status SkipCustomPayload(uint8_t version, std::string_view* body);

Result<protocol::StringMap> DecodeStartup(std::string_view body);
Result<std::vector<std::string>> DecodeRegister(std::string_view body);
// AUTH_RESPONSE: its [bytes] token (a null token reads as empty).
Result<std::string> DecodeAuthResponse(std::string_view body);
Result<QueryRequest> DecodeQuery(uint8_t version, std::string_view body);
Result<PrepareRequest> DecodePrepare(uint8_t version, std::string_view body);
Result<ExecuteRequest> DecodeExecute(uint8_t version, std::string_view body);
Result<BatchRequest> DecodeBatch(uint8_t version, std::string_view body);

}  // namespace keywise::server
