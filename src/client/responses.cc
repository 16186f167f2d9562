#include "client/responses.h"

#include <algorithm>
#include <utility>

#include "protocol/body_reader.h"
#include "protocol/type_option.h"

namespace keywise::client {
namespace {

using protocol::BodyReader;

Status ReadColumnSpecs(BodyReader* in, int32_t count, bool global,
                       std::vector<ColumnSpec>* out) {
  if (count < 0 || static_cast<size_t>(count) > in->remaining()) {
    return Status::ProtocolError("Invalid column count " +
                                 std::to_string(count));
  }
  std::string keyspace, table;
  if (global) {
    KW_RETURN_IF_ERROR(in->ReadString(&keyspace));
    KW_RETURN_IF_ERROR(in->ReadString(&table));
  }
  out->reserve(count);
  for (int32_t i = 0; i < count; ++i) {
    ColumnSpec c;
    if (global) {
      c.keyspace = keyspace;
      c.table = table;
    } else {
      KW_RETURN_IF_ERROR(in->ReadString(&c.keyspace));
      KW_RETURN_IF_ERROR(in->ReadString(&c.table));
    }
    KW_RETURN_IF_ERROR(in->ReadString(&c.name));
    KW_ASSIGN_OR_RETURN(c.type, protocol::ReadTypeOption(in));
    out->push_back(std::move(c));
  }
  return Status::OK();
}

// <metadata> of a Rows result (and a Prepared result's result metadata).
Status ReadRowsMetadata(uint8_t version, BodyReader* in, QueryResult* r,
                        std::vector<ColumnSpec>* columns) {
  int32_t flags = 0, count = 0;
  KW_RETURN_IF_ERROR(in->ReadInt(&flags));
  KW_RETURN_IF_ERROR(in->ReadInt(&count));
  if (count < 0) return Status::ProtocolError("Negative column count");
  r->column_count = count;
  if (flags & protocol::kRowsHasMorePages) {
    std::optional<std::string_view> state;
    KW_RETURN_IF_ERROR(in->ReadBytes(&state));
    if (state) r->paging_state = std::string(*state);
  }
  if (version >= 5 && (flags & protocol::kRowsMetadataChanged)) {
    std::string_view id;
    KW_RETURN_IF_ERROR(in->ReadShortBytes(&id));
  }
  if (flags & protocol::kRowsNoMetadata) return Status::OK();
  return ReadColumnSpecs(in, count, flags & protocol::kRowsGlobalTablesSpec,
                         columns);
}

Status ReadRows(BodyReader* in, QueryResult* r) {
  int32_t rows = 0;
  KW_RETURN_IF_ERROR(in->ReadInt(&rows));
  // Each cell takes at least 4 bytes: bound the reservation by the body.
  // A row of no columns (which no server sends) counts as one cell, so
  // that a huge count of them is refused too instead of exhausting memory.
  const size_t cols = static_cast<size_t>(r->column_count);
  if (rows < 0 || static_cast<size_t>(rows) >
                      in->remaining() / (4 * std::max<size_t>(cols, 1))) {
    return Status::ProtocolError("Invalid row count");
  }
  r->rows.reserve(rows);
  for (int32_t i = 0; i < rows; ++i) {
    Row row;
    row.reserve(cols);
    for (size_t c = 0; c < cols; ++c) {
      std::optional<std::string_view> cell;
      KW_RETURN_IF_ERROR(in->ReadBytes(&cell));
      if (cell) {
        row.emplace_back(std::string(*cell));
      } else {
        row.emplace_back(std::nullopt);
      }
    }
    r->rows.push_back(std::move(row));
  }
  return Status::OK();
}

Status ReadPrepared(uint8_t version, BodyReader* in, QueryResult* r) {
  std::string_view id;
  KW_RETURN_IF_ERROR(in->ReadShortBytes(&id));
  r->prepared.id = std::string(id);
  if (version >= 5) {
    std::string_view metadata_id;
    KW_RETURN_IF_ERROR(in->ReadShortBytes(&metadata_id));
  }
  int32_t flags = 0, count = 0;
  KW_RETURN_IF_ERROR(in->ReadInt(&flags));
  KW_RETURN_IF_ERROR(in->ReadInt(&count));
  if (version >= 4) {
    int32_t pk_count = 0;
    KW_RETURN_IF_ERROR(in->ReadInt(&pk_count));
    if (pk_count < 0 || static_cast<size_t>(pk_count) > in->remaining() / 2) {
      return Status::ProtocolError("Invalid partition key count");
    }
    for (int32_t i = 0; i < pk_count; ++i) {
      uint16_t index = 0;
      KW_RETURN_IF_ERROR(in->ReadShort(&index));
      r->prepared.partition_key_indexes.push_back(index);
    }
  }
  KW_RETURN_IF_ERROR(ReadColumnSpecs(in, count,
                                     flags & protocol::kRowsGlobalTablesSpec,
                                     &r->prepared.bind_columns));
  QueryResult scratch;
  return ReadRowsMetadata(version, in, &scratch, &r->prepared.result_columns);
}

}  // namespace

Result<QueryResult> DecodeResult(uint8_t version, std::string_view body) {
  BodyReader in(body);
  int32_t kind = 0;
  KW_RETURN_IF_ERROR(in.ReadInt(&kind));
  QueryResult r;
  r.kind = static_cast<ResultKind>(kind);
  switch (r.kind) {
    case ResultKind::kVoid:
      break;
    case ResultKind::kRows:
      KW_RETURN_IF_ERROR(ReadRowsMetadata(version, &in, &r, &r.columns));
      KW_RETURN_IF_ERROR(ReadRows(&in, &r));
      break;
    case ResultKind::kSetKeyspace:
      KW_RETURN_IF_ERROR(in.ReadString(&r.keyspace));
      break;
    case ResultKind::kPrepared:
      KW_RETURN_IF_ERROR(ReadPrepared(version, &in, &r));
      break;
    case ResultKind::kSchemaChange:
      KW_RETURN_IF_ERROR(protocol::ReadSchemaChange(&in, &r.schema_change));
      break;
    default:
      return Status::ProtocolError("Unknown result kind " +
                                   std::to_string(kind));
  }
  return r;
}

Result<ServerError> DecodeError(uint8_t version, std::string_view body) {
  BodyReader in(body);
  int32_t code = 0;
  std::string_view message;
  KW_RETURN_IF_ERROR(in.ReadInt(&code));
  KW_RETURN_IF_ERROR(in.ReadString(&message));
  ServerError e;
  e.code = static_cast<ErrorCode>(code);
  e.message = std::string(message);
  // The extra fields are best effort: a short body still yields the message.
  Status extra = Status::OK();
  switch (e.code) {
    case ErrorCode::kUnavailable:
      extra = in.ReadConsistency(&e.consistency);
      if (extra.ok()) extra = in.ReadInt(&e.required);
      if (extra.ok()) extra = in.ReadInt(&e.alive);
      break;
    case ErrorCode::kCasWriteUnknown:
      extra = in.ReadConsistency(&e.consistency);
      if (extra.ok()) extra = in.ReadInt(&e.received);
      if (extra.ok()) extra = in.ReadInt(&e.required);
      break;
    case ErrorCode::kWriteTimeout:
    case ErrorCode::kReadTimeout:
    case ErrorCode::kReadFailure:
    case ErrorCode::kWriteFailure: {
      extra = in.ReadConsistency(&e.consistency);
      if (extra.ok()) extra = in.ReadInt(&e.received);
      if (extra.ok()) extra = in.ReadInt(&e.required);
      const bool failure = e.code == ErrorCode::kReadFailure ||
                           e.code == ErrorCode::kWriteFailure;
      if (extra.ok() && failure) {
        if (version >= 5) {
          uint16_t n = 0;
          extra = in.ReadInt(&e.failures);
          if (extra.ok()) extra = in.ReadShort(&n);
          (void)n;
        } else {
          extra = in.ReadInt(&e.failures);
        }
      }
      if (extra.ok() && (e.code == ErrorCode::kReadTimeout ||
                         e.code == ErrorCode::kReadFailure)) {
        uint8_t present = 0;
        extra = in.ReadByte(&present);
        e.data_present = present != 0;
      } else if (extra.ok()) {
        std::string_view wt;
        extra = in.ReadString(&wt);
        e.write_type = std::string(wt);
      }
      break;
    }
    case ErrorCode::kAlreadyExists:
      extra = in.ReadString(&e.keyspace);
      if (extra.ok()) extra = in.ReadString(&e.table);
      break;
    case ErrorCode::kFunctionFailure:
      extra = in.ReadString(&e.keyspace);
      if (extra.ok()) extra = in.ReadString(&e.function);
      if (extra.ok()) extra = in.ReadStringList(&e.arg_types);
      break;
    case ErrorCode::kUnprepared: {
      std::string_view id;
      extra = in.ReadShortBytes(&id);
      e.unprepared_id = std::string(id);
      break;
    }
    default:
      break;
  }
  (void)extra;
  return e;
}

Result<protocol::StringMultimap> DecodeSupported(std::string_view body) {
  BodyReader in(body);
  protocol::StringMultimap m;
  KW_RETURN_IF_ERROR(in.ReadStringMultimap(&m));
  return m;
}

Result<Event> DecodeEvent(std::string_view body) {
  BodyReader in(body);
  Event e;
  KW_RETURN_IF_ERROR(in.ReadString(&e.type));
  if (e.type == protocol::kSchemaChangeEvent) {
    KW_RETURN_IF_ERROR(protocol::ReadSchemaChange(&in, &e.schema_change));
  } else {
    KW_RETURN_IF_ERROR(in.ReadString(&e.change));
    KW_RETURN_IF_ERROR(in.ReadInet(&e.address));
  }
  return e;
}

}  // namespace keywise::client
