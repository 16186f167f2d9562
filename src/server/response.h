// Response bodies of the CQL native protocol (native_protocol_v4.spec
// section 4.2, v5 section 4.2): RESULT kinds, ERROR with each code's extra
// fields, SUPPORTED and EVENT.
//
// Contract: pure functions, thread-safe. Each Encode* returns a complete
// body (without the frame header). Strings longer than the protocol allows
// are truncated (at a character boundary) rather than failing, since a
// reply must always go out. Every [string] written is well-formed UTF-8:
// ill-formed sequences, should a message or name carry one, are replaced by
// U+FFFD, because drivers close the connection on a string they cannot
// decode (all strings go through PutString, i.e.
// protocol::BodyWriter::WriteReplyString). The codes, flags and the
// type-option codec are protocol/'s (result.h, type_option.h), shared with
// the client.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/consistency.h"
#include "common/status.h"
#include "protocol/notation.h"
#include "query/expr/result.h"

namespace keywise::server {

// How a Rows result carries its metadata.
enum class RowsMetadata : uint8_t {
  kFull,     // column specs included
  kSkip,     // No_metadata: the client asked to skip them (EXECUTE)
  kChanged,  // v5 Metadata_changed: new result metadata id + full specs
};

// The v5 result metadata id of these result columns (MD5 over names and
// types); the id of no columns is MD5 of nothing, like Cassandra's EMPTY.
std::string ResultMetadataId(const std::vector<query::ColumnSpec>& columns);

std::string EncodeVoidResult();
std::string EncodeSetKeyspaceResult(std::string_view keyspace);
std::string EncodeSchemaChangeResult(const query::SchemaChangeResult& change);
// `new_metadata_id` is used only with RowsMetadata::kChanged.
std::string EncodeRowsResult(uint8_t version, const query::RowsResult& rows,
                             RowsMetadata metadata,
                             std::string_view new_metadata_id);
struct PreparedInfo {
  std::string id;
  std::string result_metadata_id;
  const std::vector<query::ColumnSpec>* bind_specs = nullptr;
  const std::vector<uint16_t>* partition_key_bind_indexes = nullptr;
  const std::vector<query::ColumnSpec>* result_columns = nullptr;
};
std::string EncodePreparedResult(uint8_t version, const PreparedInfo& info);

// EVENT body for a SCHEMA_CHANGE push.
std::string EncodeSchemaChangeEvent(const query::SchemaChangeResult& change);

std::string EncodeSupported(const protocol::StringMultimap& options);

// AUTHENTICATE: the authenticator's class name, as a [string].
std::string EncodeAuthenticate(std::string_view authenticator);
// AUTH_SUCCESS with a null token ([bytes] of length -1).
std::string EncodeAuthSuccess();

// The [string list] of warnings a response with the warning flag (v4+)
// starts with; at most 65535 of them.
std::string EncodeWarnings(const std::vector<std::string>& warnings);

// The extra fields of ERROR codes that carry more than a message, for errors
// the transport raises itself (its timeouts: one node, block_for 1, the
// request's consistency). A Status with ReplicaCounts (a replicated
// request's Unavailable or timeout) overrides them.
struct ErrorDetails {
  Consistency consistency = Consistency::kOne;
  int32_t received = 0;
  int32_t block_for = 1;
  int32_t alive = 0;
  bool data_present = false;
  std::string write_type = "SIMPLE";
  std::string unprepared_id;  // Unprepared: the unknown id
};

// ERROR body for `status` (REQUIRES: !status.ok()). AlreadyExists takes its
// keyspace and table from the catalog's message ("... keyspace \"k\"" or
// "... table \"t\" to keyspace \"k\"").
std::string EncodeErrorBody(uint8_t version, const Status& status,
                            const ErrorDetails& details);

}  // namespace keywise::server
