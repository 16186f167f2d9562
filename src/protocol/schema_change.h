// The schema change a RESULT of kind SchemaChange and a SCHEMA_CHANGE EVENT
// carry (native_protocol_v4.spec 4.2.5.5 and 4.2.6), and the event type
// names REGISTER and EVENT use.
//
// Layout: <change_type><target><keyspace>, then <name> unless the target is
// KEYSPACE, then the argument types ([string list]) for FUNCTION and
// AGGREGATE. Every field is a [string].
//
// Contract: pure functions, thread-safe. WriteSchemaChange always succeeds
// (strings go through BodyWriter::WriteReplyString); ReadSchemaChange
// returns ProtocolError on truncated or malformed input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "protocol/body_reader.h"
#include "protocol/body_writer.h"

namespace keywise::protocol {

// Event types (REGISTER, EVENT).
inline constexpr std::string_view kTopologyChangeEvent = "TOPOLOGY_CHANGE";
inline constexpr std::string_view kStatusChangeEvent = "STATUS_CHANGE";
inline constexpr std::string_view kSchemaChangeEvent = "SCHEMA_CHANGE";

struct SchemaChange {
  std::string change;  // CREATED, UPDATED, DROPPED
  std::string target;  // KEYSPACE, TABLE, TYPE, FUNCTION, AGGREGATE
  std::string keyspace;
  std::string name;                    // empty for KEYSPACE
  std::vector<std::string> arg_types;  // FUNCTION and AGGREGATE only
};

void WriteSchemaChange(const SchemaChange& change, BodyWriter* out);
Status ReadSchemaChange(BodyReader* in, SchemaChange* change);

}  // namespace keywise::protocol
