// Response bodies a client receives (native_protocol_v4.spec section 4.2):
// RESULT of every kind, ERROR with its extra fields, SUPPORTED and EVENT.
//
// Contract: pure functions, thread-safe, safe on untrusted input; malformed
// bodies are ProtocolError. Decoded values own their bytes, so a result
// outlives the frame it came from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "protocol/notation.h"
#include "protocol/result.h"
#include "protocol/schema_change.h"
#include "schema/cql_type.h"

namespace keywise::client {

struct ColumnSpec {
  std::string keyspace;
  std::string table;
  std::string name;
  CqlTypePtr type;
};

// A row: one serialized value per column, nullopt for null.
using Row = std::vector<std::optional<std::string>>;

using protocol::ResultKind;
using protocol::SchemaChange;

struct Prepared {
  std::string id;
  std::vector<ColumnSpec> bind_columns;
  std::vector<uint16_t> partition_key_indexes;  // v4+
  std::vector<ColumnSpec> result_columns;
};

// A decoded RESULT (plus the frame's warnings and tracing id, filled in by
// the connection).
struct QueryResult {
  ResultKind kind = ResultKind::kVoid;
  // kRows: the columns (empty when the request asked to skip metadata) and
  // this page's rows; paging_state is set when more pages follow.
  std::vector<ColumnSpec> columns;
  int32_t column_count = 0;
  std::vector<Row> rows;
  std::optional<std::string> paging_state;
  std::string keyspace;  // kSetKeyspace
  SchemaChange schema_change;  // kSchemaChange
  Prepared prepared;           // kPrepared
  std::vector<std::string> warnings;
  std::optional<std::string> tracing_id;  // 16 bytes
  protocol::BytesMap custom_payload;  // empty unless the server sent one
};

// An ERROR body's code, message and the fields some codes add.
struct ServerError {
  ErrorCode code = ErrorCode::kServerError;
  std::string message;
  // Unavailable / timeouts / failures.
  Consistency consistency = Consistency::kOne;
  int32_t required = 0;
  int32_t received = 0;
  int32_t alive = 0;
  int32_t failures = 0;
  bool data_present = false;
  std::string write_type;
  // AlreadyExists: keyspace and (empty for a keyspace) table.
  std::string keyspace;
  std::string table;
  // FunctionFailure: keyspace, function, argument types.
  std::string function;
  std::vector<std::string> arg_types;
  std::string unprepared_id;  // Unprepared

  Status ToStatus() const { return Status(code, message); }
};

struct Event {
  std::string type;  // TOPOLOGY_CHANGE, STATUS_CHANGE, SCHEMA_CHANGE
  std::string change;  // NEW_NODE, UP, ... (topology/status)
  protocol::Inet address;  // topology/status
  SchemaChange schema_change;
};

// `version` is the frame's protocol version (3..5).
Result<QueryResult> DecodeResult(uint8_t version, std::string_view body);
Result<ServerError> DecodeError(uint8_t version, std::string_view body);
Result<protocol::StringMultimap> DecodeSupported(std::string_view body);
Result<Event> DecodeEvent(std::string_view body);

}  // namespace keywise::client
