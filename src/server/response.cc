#include "server/response.h"

#include <algorithm>
#include <cassert>

#include "common/coding.h"
#include "protocol/body_writer.h"
#include "protocol/result.h"
#include "protocol/schema_change.h"
#include "protocol/type_option.h"
#include "server/md5.h"

namespace keywise::server {
namespace {

using protocol::kRowsGlobalTablesSpec;
using protocol::kRowsHasMorePages;
using protocol::kRowsMetadataChanged;
using protocol::kRowsNoMetadata;
using protocol::ResultKind;
using protocol::WriteTypeOption;

void PutInt(std::string* out, int32_t v) {
  PutFixed32BE(out, static_cast<uint32_t>(v));
}
void PutShort(std::string* out, uint16_t v) {
  PutFixed16BE(out, v);
}
// [string]: the one place every string of a response goes through, so none
// leaves the server that is not UTF-8. Drivers decode [string]s strictly
// and drop the whole connection when one is not UTF-8 (the DataStax Python
// driver marks it defunct, failing every request in flight on it), so
// ill-formed bytes, which no valid request should ever lead to, become
// U+FFFD; a string over 65535 bytes is cut at a character boundary.
void PutString(std::string* out, std::string_view v) {
  protocol::BodyWriter(out).WriteReplyString(v);
}
// [short bytes], truncated to 65535 bytes (binary: prepared ids).
void PutShortBytes(std::string* out, std::string_view v) {
  v = v.substr(0, std::min<size_t>(v.size(), 0xffff));
  PutShort(out, static_cast<uint16_t>(v.size()));
  out->append(v);
}
void PutBytes(std::string* out, std::string_view v) {
  PutInt(out, static_cast<int32_t>(v.size()));
  out->append(v);
}
void PutStringList(std::string* out, const std::vector<std::string>& v) {
  protocol::BodyWriter(out).WriteReplyStringList(v);
}

bool AllInOneTable(const std::vector<query::ColumnSpec>& columns) {
  if (columns.empty()) return false;
  for (const auto& c : columns) {
    if (c.keyspace != columns[0].keyspace || c.table != columns[0].table) {
      return false;
    }
  }
  return true;
}

// [global_table_spec]? followed by the column specs.
void PutColumnSpecs(uint8_t version, const std::vector<query::ColumnSpec>& cols,
                    bool global, std::string* out) {
  if (global) {
    PutString(out, cols[0].keyspace);
    PutString(out, cols[0].table);
  }
  for (const auto& c : cols) {
    if (!global) {
      PutString(out, c.keyspace);
      PutString(out, c.table);
    }
    PutString(out, c.name);
    WriteTypeOption(version, *c.type, out);
  }
}

// Rows-style metadata: used by Rows results and as a Prepared result's
// result metadata.
void PutRowsMetadata(uint8_t version,
                     const std::vector<query::ColumnSpec>& cols,
                     int32_t extra_flags,
                     const std::optional<std::string>& paging_state,
                     RowsMetadata mode, std::string_view new_metadata_id,
                     std::string* out) {
  const bool global = AllInOneTable(cols);
  int32_t flags = extra_flags;
  if (paging_state) flags |= kRowsHasMorePages;
  if (mode == RowsMetadata::kSkip) {
    flags |= kRowsNoMetadata;
  } else {
    if (mode == RowsMetadata::kChanged) flags |= kRowsMetadataChanged;
    if (global) flags |= kRowsGlobalTablesSpec;
  }
  PutInt(out, flags);
  PutInt(out, static_cast<int32_t>(cols.size()));
  if (paging_state) PutBytes(out, *paging_state);
  if (mode == RowsMetadata::kChanged) PutShortBytes(out, new_metadata_id);
  if (mode != RowsMetadata::kSkip) PutColumnSpecs(version, cols, global, out);
}

void PutSchemaChange(const query::SchemaChangeResult& change,
                     std::string* out) {
  protocol::BodyWriter w(out);
  protocol::WriteSchemaChange({change.change, change.target, change.keyspace,
                               change.name, change.arg_types},
                              &w);
}

// The text between the first pair of double quotes after `after`.
std::string QuotedAfter(std::string_view message, std::string_view after) {
  size_t at = message.find(after);
  if (at == std::string_view::npos) return "";
  size_t open = message.find('"', at + after.size());
  if (open == std::string_view::npos) return "";
  size_t close = message.find('"', open + 1);
  if (close == std::string_view::npos) return "";
  return std::string(message.substr(open + 1, close - open - 1));
}

}  // namespace

std::string ResultMetadataId(const std::vector<query::ColumnSpec>& columns) {
  std::string input;
  for (const auto& c : columns) {
    input += c.keyspace;
    input.push_back('\0');
    input += c.table;
    input.push_back('\0');
    input += c.name;
    input.push_back('\0');
    input += c.type->ToCql();
    input.push_back('\0');
  }
  return Md5(input);
}

std::string EncodeVoidResult() {
  std::string out;
  PutInt(&out, static_cast<int32_t>(ResultKind::kVoid));
  return out;
}

std::string EncodeSetKeyspaceResult(std::string_view keyspace) {
  std::string out;
  PutInt(&out, static_cast<int32_t>(ResultKind::kSetKeyspace));
  PutString(&out, keyspace);
  return out;
}

std::string EncodeSchemaChangeResult(const query::SchemaChangeResult& change) {
  std::string out;
  PutInt(&out, static_cast<int32_t>(ResultKind::kSchemaChange));
  PutSchemaChange(change, &out);
  return out;
}

std::string EncodeRowsResult(uint8_t version, const query::RowsResult& rows,
                             RowsMetadata metadata,
                             std::string_view new_metadata_id) {
  std::string out;
  out.reserve(64 + rows.data.size());
  PutInt(&out, static_cast<int32_t>(ResultKind::kRows));
  PutRowsMetadata(version, rows.columns, 0, rows.paging_state, metadata,
                  new_metadata_id, &out);
  PutInt(&out, static_cast<int32_t>(rows.row_count));
  out += rows.data;
  return out;
}

std::string EncodePreparedResult(uint8_t version, const PreparedInfo& info) {
  std::string out;
  PutInt(&out, static_cast<int32_t>(ResultKind::kPrepared));
  PutShortBytes(&out, info.id);
  if (version >= 5) PutShortBytes(&out, info.result_metadata_id);

  // Bind metadata: <flags><columns_count>[<pk_count><pk_index>...]<specs>.
  const auto& binds = *info.bind_specs;
  const bool global = AllInOneTable(binds);
  PutInt(&out, global ? kRowsGlobalTablesSpec : 0);
  PutInt(&out, static_cast<int32_t>(binds.size()));
  if (version >= 4) {
    const auto& pk = *info.partition_key_bind_indexes;
    PutInt(&out, static_cast<int32_t>(pk.size()));
    for (uint16_t index : pk) PutShort(&out, index);
  }
  PutColumnSpecs(version, binds, global, &out);

  // Result metadata: No_metadata when the statement returns no rows.
  const auto& cols = *info.result_columns;
  if (cols.empty()) {
    PutInt(&out, kRowsNoMetadata);
    PutInt(&out, 0);
  } else {
    PutRowsMetadata(version, cols, 0, std::nullopt, RowsMetadata::kFull, "",
                    &out);
  }
  return out;
}

std::string EncodeSchemaChangeEvent(const query::SchemaChangeResult& change) {
  std::string out;
  PutString(&out, protocol::kSchemaChangeEvent);
  PutSchemaChange(change, &out);
  return out;
}

std::string EncodeSupported(const protocol::StringMultimap& options) {
  std::string out;
  PutShort(&out, static_cast<uint16_t>(options.size()));
  for (const auto& [key, values] : options) {
    PutString(&out, key);
    PutStringList(&out, values);
  }
  return out;
}

std::string EncodeAuthenticate(std::string_view authenticator) {
  std::string out;
  PutString(&out, authenticator);
  return out;
}

std::string EncodeAuthSuccess() {
  std::string out;
  PutInt(&out, -1);
  return out;
}

std::string EncodeWarnings(const std::vector<std::string>& warnings) {
  std::string out;
  PutStringList(&out, warnings);
  return out;
}

std::string EncodeErrorBody(uint8_t version, const Status& status,
                            const ErrorDetails& details) {
  assert(!status.ok());
  // A replicated request's error knows its replica counts; the handler's
  // details fill in for errors raised here (timeouts of the transport).
  ErrorDetails d = details;
  if (const ReplicaCounts* c = status.counts()) {
    d.consistency = c->consistency;
    d.block_for = c->block_for;
    d.received = c->received;
    d.alive = c->received;
    d.data_present = c->data_present;
    d.write_type = c->write_type;
  }
  // CAS_WRITE_UNKNOWN exists from v5; before, it is a CAS write timeout.
  ErrorCode code = status.code();
  if (code == ErrorCode::kCasWriteUnknown && version < 5) {
    code = ErrorCode::kWriteTimeout;
    d.write_type = "CAS";
  }
  std::string out;
  PutInt(&out, static_cast<int32_t>(code));
  PutString(&out, status.message());
  switch (code) {
    case ErrorCode::kCasWriteUnknown:
      PutShort(&out, static_cast<uint16_t>(d.consistency));
      PutInt(&out, d.received);
      PutInt(&out, d.block_for);
      break;
    case ErrorCode::kUnavailable:
      PutShort(&out, static_cast<uint16_t>(d.consistency));
      PutInt(&out, d.block_for);
      PutInt(&out, d.alive);
      break;
    case ErrorCode::kWriteTimeout:
      PutShort(&out, static_cast<uint16_t>(d.consistency));
      PutInt(&out, d.received);
      PutInt(&out, d.block_for);
      PutString(&out, d.write_type);
      if (version >= 5 && d.write_type == "CAS") PutShort(&out, 0);
      break;
    case ErrorCode::kReadTimeout:
      PutShort(&out, static_cast<uint16_t>(d.consistency));
      PutInt(&out, d.received);
      PutInt(&out, d.block_for);
      out.push_back(d.data_present ? 1 : 0);
      break;
    case ErrorCode::kReadFailure:
    case ErrorCode::kWriteFailure:
      PutShort(&out, static_cast<uint16_t>(d.consistency));
      PutInt(&out, d.received);
      PutInt(&out, d.block_for);
      // v5: <reasonmap> (an [int] count of endpoint/reason pairs, here
      // none); v4: <numfailures>.
      PutInt(&out, version >= 5 ? 0 : 1);
      if (status.code() == ErrorCode::kReadFailure) {
        out.push_back(d.data_present ? 1 : 0);
      } else {
        PutString(&out, d.write_type);
      }
      break;
    case ErrorCode::kFunctionFailure:
      PutString(&out, "");
      PutString(&out, "");
      PutStringList(&out, {});
      break;
    case ErrorCode::kAlreadyExists: {
      const std::string& m = status.message();
      std::string keyspace = QuotedAfter(m, "to keyspace");
      std::string table;
      if (keyspace.empty()) {
        keyspace = QuotedAfter(m, "keyspace");
      } else {
        table = QuotedAfter(m, "table");
      }
      PutString(&out, keyspace);
      PutString(&out, table);
      break;
    }
    case ErrorCode::kUnprepared:
      PutShortBytes(&out, d.unprepared_id);
      break;
    default:
      break;
  }
  return out;
}

}  // namespace keywise::server
