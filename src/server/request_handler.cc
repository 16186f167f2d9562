#include "server/request_handler.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <type_traits>
#include <utility>
#include <variant>

#include "common/coding.h"
#include "protocol/tablet_route.h"
#include "protocol/write_type.h"
#include "server/request.h"
#include "server/response_prefix.h"
#include "server/trace_parameters.h"

namespace keywise::server {
namespace {

// Largest body a compressed v3/v4 frame may expand to (the largest
// native_transport_max_frame_size_in_mb the config accepts).
constexpr size_t kMaxDecompressedBody = size_t{256} << 20;

TimeoutKind KindOf(const query::PreparedStatement& statement) {
  switch (statement.kind) {
    case query::StatementKind::kSelect:
      return TimeoutKind::kRead;
    case query::StatementKind::kModification:
    case query::StatementKind::kBatch:
      return TimeoutKind::kWrite;
    case query::StatementKind::kSchema:
    case query::StatementKind::kUse:
    case query::StatementKind::kExplain:  // ANALYZE may run long
      return TimeoutKind::kOther;
  }
  return TimeoutKind::kOther;
}

using protocol::WriteType;

WriteType BatchWriteType(cql::BatchType type) {
  switch (type) {
    case cql::BatchType::kLogged:
      return WriteType::kBatch;
    case cql::BatchType::kUnlogged:
      return WriteType::kUnloggedBatch;
    case cql::BatchType::kCounter:
      return WriteType::kCounter;
  }
  return WriteType::kBatch;
}

// The write type of a BATCH given as CQL text (QUERY or EXECUTE): the word
// after BEGIN, past blanks and comments. The statement is known to be a
// batch already; anything unexpected counts as a logged batch.
WriteType TextBatchWriteType(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size() && words.size() < 2) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (text.compare(i, 2, "--") == 0 || text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      std::string word;
      while (i < text.size() &&
             std::isalpha(static_cast<unsigned char>(text[i]))) {
        word.push_back(static_cast<char>(
            std::toupper(static_cast<unsigned char>(text[i++]))));
      }
      words.push_back(std::move(word));
    } else {
      break;
    }
  }
  if (words.size() == 2 && words[1] == "UNLOGGED") {
    return WriteType::kUnloggedBatch;
  }
  if (words.size() == 2 && words[1] == "COUNTER") return WriteType::kCounter;
  return WriteType::kBatch;
}

bool SameColumns(const std::vector<query::ColumnSpec>& a,
                 const std::vector<query::ColumnSpec>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const query::ColumnSpec& x, const query::ColumnSpec& y) {
                      return x.name == y.name && x.table == y.table &&
                             x.keyspace == y.keyspace &&
                             (x.type == y.type || x.type->Equals(*y.type));
                    });
}

Status UnpreparedError(const std::string& id) {
  return Status(ErrorCode::kUnprepared,
                "Prepared query with ID " + BytesToHex(id) +
                    " not found (either the query was not prepared on this "
                    "host (maybe the host has been restarted?) or you have "
                    "prepared too many queries and it has been evicted from "
                    "the internal cache)");
}

}  // namespace

Status TimeoutError(TimeoutKind kind) {
  const std::string message =
      "Operation timed out - received only 0 responses.";
  return Status(kind == TimeoutKind::kRead ? ErrorCode::kReadTimeout
                                           : ErrorCode::kWriteTimeout,
                message);
}

// One request being handled: the decoded pieces and the error details.
class RequestHandler::Execution {
 public:
  Execution(RequestHandler* handler, const HandlerRequest& request,
            RequestState* state, HandlerScope scope)
      : h_(handler),
        request_(request),
        frame_(request.frame),
        version_(frame_.header.version),
        state_(state),
        quick_only_(scope == HandlerScope::kQuickOnly),
        trace_(state->trace.get()) {}

  HandlerResponse Run() {
    // Test hooks may block: then everything runs on workers.
    if (quick_only_ && h_->before_execute_) return Deferred();
    Result<std::string> body = Body();
    if (!body.ok()) return Error(body.status());
    switch (frame_.header.opcode) {
      case protocol::Opcode::kQuery:
        return Query(*body);
      case protocol::Opcode::kPrepare:
        return Prepare(*body);
      case protocol::Opcode::kExecute:
        return Execute(*body);
      case protocol::Opcode::kBatch:
        return Batch(*body);
      default:
        return Error(Status::ProtocolError(std::string("Unexpected message ") +
                                           OpcodeName(frame_.header.opcode)));
    }
  }

  HandlerResponse Error(const Status& status) {
    if (trace_ != nullptr) outcome_ = ErrorOutcome(status);
    HandlerResponse response;
    response.error = status.code();
    response.envelope = ErrorEnvelope(frame_, request_.compression, status,
                                      details_, TracingId());
    return response;
  }

  // What the response says, for the trace's last event.
  const std::string& outcome() const { return outcome_; }

 private:
  // The body after decompression (v3/v4) and the custom payload.
  Result<std::string> Body() {
    std::string body = frame_.body;
    const uint8_t flags = frame_.header.flags;
    if (version_ < 5 && (flags & protocol::kFlagCompression)) {
      switch (request_.compression) {
        case protocol::Compression::kNone:
          return Status::ProtocolError(
              "Received a compressed frame but no compression was "
              "negotiated in STARTUP");
        case protocol::Compression::kLz4: {
          KW_ASSIGN_OR_RETURN(
              body, protocol::DecompressLz4Body(body, kMaxDecompressedBody));
          break;
        }
        case protocol::Compression::kSnappy: {
          KW_ASSIGN_OR_RETURN(
              body, protocol::DecompressSnappyBody(body, kMaxDecompressedBody));
          break;
        }
      }
    }
    if (flags & protocol::kFlagCustomPayload) {
      std::string_view rest = body;
      KW_RETURN_IF_ERROR(SkipCustomPayload(version_, &rest));
      body = std::string(rest);
    }
    return body;
  }

  // The session state this request runs with (v5 may name a keyspace).
  query::ClientState Client(const QueryParameters& params) const {
    query::ClientState client = request_.client;
    if (params.keyspace) client.keyspace = *params.keyspace;
    return client;
  }

  // Publishes the kind, with the consistency and write type a timeout
  // answered by the I/O thread reports (stored first; the kind is the
  // release point).
  void NoteKind(TimeoutKind kind) {
    state_->consistency.store(details_.consistency, std::memory_order_relaxed);
    state_->write_type.store(static_cast<uint8_t>(write_type_),
                             std::memory_order_relaxed);
    state_->timeout_kind.store(kind);
  }

  void SetWriteType(WriteType type) {
    write_type_ = type;
    details_.write_type = std::string(protocol::WriteTypeName(type));
  }

  // In kQuickOnly scope: whether `statement` must go to a worker.
  bool Defers(const query::PreparedStatement& statement,
              const query::QueryOptions& options) const {
    return quick_only_ && !statement.IsQuick(options);
  }
  static HandlerResponse Deferred() {
    HandlerResponse response;
    response.deferred = true;
    return response;
  }

  void Hook(std::string_view query) {
    if (h_->before_execute_) h_->before_execute_(query);
  }
  // False when a timeout was answered already: skip the work.
  bool StillWanted() const { return !state_->answered.load(); }

  HandlerResponse Query(std::string_view body) {
    Result<QueryRequest> decoded = DecodeQuery(version_, body);
    if (!decoded.ok()) return Error(decoded.status());
    QueryRequest& q = *decoded;
    details_.consistency = q.params.options.consistency;
    query::ClientState client = Client(q.params);
    if (trace_ != nullptr) {
      trace_->Begin(std::string(kQueryRequestName), client.address,
                    QueryTraceParameters(q.query, q.params.options));
    }
    Hook(q.query);
    Result<query::PreparedPtr> prepared =
        h_->processor_->Prepare(q.query, client, trace_);
    if (!prepared.ok()) return Error(prepared.status());
    if ((*prepared)->kind == query::StatementKind::kBatch) {
      SetWriteType(TextBatchWriteType(q.query));
    }
    NoteKind(KindOf(**prepared));  // also for a deferred statement's deadline
    if (Defers(**prepared, q.params.options)) return Deferred();
    if (!StillWanted()) return {};
    Result<query::QueryResult> result = h_->processor_->Execute(
        *prepared, q.params.options, &client, trace_);
    if (!result.ok()) return Error(result.status());
    return Success(
        std::move(result).value(),
        q.params.skip_metadata ? RowsMetadata::kSkip : RowsMetadata::kFull, "");
  }

  HandlerResponse Prepare(std::string_view body) {
    Result<PrepareRequest> decoded = DecodePrepare(version_, body);
    if (!decoded.ok()) return Error(decoded.status());
    NoteKind(TimeoutKind::kOther);
    query::ClientState client = request_.client;
    if (decoded->keyspace) client.keyspace = *decoded->keyspace;
    if (trace_ != nullptr) {
      trace_->Begin(std::string(kPrepareRequestName), client.address,
                    {{"query", decoded->query}});
    }
    Result<query::PreparedPtr> prepared =
        h_->processor_->Prepare(decoded->query, client, trace_);
    if (!prepared.ok()) return Error(prepared.status());
    const query::PreparedStatement& statement = **prepared;
    const std::string id =
        PreparedCache::ComputeId(client.keyspace, decoded->query);
    CachedStatement entry{*prepared,
                          ResultMetadataId(statement.result_columns)};
    PreparedInfo info;
    info.id = id;
    info.result_metadata_id = entry.result_metadata_id;
    info.bind_specs = &statement.bind_specs;
    info.partition_key_bind_indexes = &statement.partition_key_bind_indexes;
    info.result_columns = &statement.result_columns;
    std::string result = EncodePreparedResult(version_, info);
    h_->cache_->Put(id, std::move(entry));
    if (trace_ != nullptr) outcome_ = "RESULT Prepared";
    return Reply(protocol::Opcode::kResult, result, {});
  }

  HandlerResponse Execute(std::string_view body) {
    Result<ExecuteRequest> decoded = DecodeExecute(version_, body);
    if (!decoded.ok()) return Error(decoded.status());
    ExecuteRequest& e = *decoded;
    details_.consistency = e.params.options.consistency;
    CachedStatement cached;
    if (!h_->cache_->Get(e.id, &cached) ||
        h_->processor_->ColumnsChanged(*cached.statement)) {
      // Evicted, or its table's columns changed since PREPARE: the client
      // prepares again and gets the new metadata (as Cassandra evicts on
      // ALTER; a driver that skips result metadata would misread rows).
      if (cached.statement != nullptr)
        h_->cache_->Evict(e.id, cached.statement);
      details_.unprepared_id = e.id;
      return Error(UnpreparedError(e.id));
    }
    if (cached.statement->kind == query::StatementKind::kBatch) {
      SetWriteType(TextBatchWriteType(cached.statement->query_text));
    }
    if (trace_ != nullptr) {
      trace_->Begin(std::string(kExecuteRequestName), request_.client.address,
                    ExecuteTraceParameters(*cached.statement, e.params.options));
    }
    NoteKind(KindOf(*cached.statement));
    if (Defers(*cached.statement, e.params.options)) return Deferred();
    Hook(cached.statement->query_text);
    if (!StillWanted()) return {};
    query::ClientState client = Client(e.params);
    Result<query::QueryResult> result = h_->processor_->Execute(
        cached.statement, e.params.options, &client, trace_);
    if (!result.ok()) return Error(result.status());

    RowsMetadata mode = RowsMetadata::kFull;
    std::string new_id;
    if (const auto* rows = std::get_if<query::RowsResult>(&result->result)) {
      // Usually the columns the statement was prepared with: skip the MD5.
      new_id = SameColumns(rows->columns, cached.statement->result_columns)
                   ? cached.result_metadata_id
                   : ResultMetadataId(rows->columns);
      if (version_ >= 5) {
        if (new_id != e.result_metadata_id) {
          mode = RowsMetadata::kChanged;
        } else if (e.params.skip_metadata) {
          mode = RowsMetadata::kSkip;
        }
      } else if (e.params.skip_metadata &&
                 new_id == cached.result_metadata_id) {
        // The client decodes rows with the metadata it got from PREPARE;
        // when the table changed since, send the new metadata instead.
        mode = RowsMetadata::kSkip;
      }
    }
    return Success(std::move(result).value(), mode, new_id);
  }

  HandlerResponse Batch(std::string_view body) {
    Result<BatchRequest> decoded = DecodeBatch(version_, body);
    if (!decoded.ok()) return Error(decoded.status());
    BatchRequest& b = *decoded;
    details_.consistency = b.params.options.consistency;
    SetWriteType(BatchWriteType(b.type));
    if (trace_ != nullptr) {
      trace_->Begin(std::string(kBatchRequestName), request_.client.address,
                    BatchTraceParameters(b.params.options));
    }
    NoteKind(TimeoutKind::kWrite);
    if (quick_only_ && b.entries.size() > query::kQuickBatchStatements) {
      return Deferred();
    }
    query::ClientState client = Client(b.params);
    std::vector<query::QueryProcessor::BatchEntry> entries;
    entries.reserve(b.entries.size());
    for (BatchRequest::Entry& entry : b.entries) {
      query::PreparedPtr statement;
      if (entry.is_prepared) {
        CachedStatement cached;
        if (!h_->cache_->Get(entry.query_or_id, &cached) ||
            h_->processor_->ColumnsChanged(*cached.statement)) {
          if (cached.statement != nullptr) {
            h_->cache_->Evict(entry.query_or_id, cached.statement);
          }
          details_.unprepared_id = entry.query_or_id;
          return Error(UnpreparedError(entry.query_or_id));
        }
        statement = cached.statement;
      } else {
        Result<query::PreparedPtr> prepared =
            h_->processor_->Prepare(entry.query_or_id, client, trace_);
        if (!prepared.ok()) return Error(prepared.status());
        statement = *prepared;
      }
      entries.push_back({std::move(statement), std::move(entry.values)});
    }
    Hook("BATCH");
    if (!StillWanted()) return {};
    Result<query::QueryResult> result = h_->processor_->ExecuteBatch(
        b.type, entries, b.params.options, &client, trace_);
    if (!result.ok()) return Error(result.status());
    return Success(std::move(result).value(), RowsMetadata::kFull, "");
  }

  HandlerResponse Success(query::QueryResult result, RowsMetadata mode,
                          std::string_view new_metadata_id) {
    HandlerResponse response;
    std::string body = std::visit(
        [&](const auto& r) -> std::string {
          using T = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<T, query::VoidResult>) {
            if (trace_ != nullptr) outcome_ = "RESULT Void";
            return EncodeVoidResult();
          } else if constexpr (std::is_same_v<T, query::RowsResult>) {
            if (trace_ != nullptr) {
              outcome_ = "RESULT Rows (" + std::to_string(r.row_count) +
                         " rows" +
                         (r.paging_state ? ", more pages)" : ")");
            }
            return EncodeRowsResult(version_, r, mode, new_metadata_id);
          } else if constexpr (std::is_same_v<T, query::SetKeyspaceResult>) {
            if (trace_ != nullptr) outcome_ = "RESULT Set_keyspace";
            response.new_keyspace = r.keyspace;
            return EncodeSetKeyspaceResult(r.keyspace);
          } else {
            if (trace_ != nullptr) outcome_ = "RESULT Schema_change";
            response.schema_change = r;
            return EncodeSchemaChangeResult(r);
          }
        },
        result.result);
    response.envelope = Reply(protocol::Opcode::kResult, body, result.warnings,
                              result.tablet_route)
                            .envelope;
    return response;
  }

  // The session id a traced request's response starts with, when the
  // client asked for tracing.
  std::optional<Uuid> TracingId() const {
    if (!state_->trace_requested || state_->trace == nullptr) {
      return std::nullopt;
    }
    return state_->trace->session_id();
  }

  // A response envelope, with the tracing id, warnings and then a tablet
  // route's custom payload (v4+) ahead of the body, in the spec's order.
  HandlerResponse Reply(
      protocol::Opcode opcode, std::string_view body,
      const std::vector<std::string>& warnings,
      const std::optional<query::TabletRoute>& route = std::nullopt) {
    HandlerResponse response;
    uint8_t flags = 0;
    std::string prefixed;
    if (!warnings.empty() || route || state_->trace_requested) {
      ResponsePrefix prefix;
      prefix.tracing_id = TracingId();
      prefix.warnings = warnings;
      if (route) {
        prefix.custom_payload = protocol::EncodeTabletRoutePayload(*route);
      }
      flags = AppendResponsePrefix(version_, prefix, &prefixed);
    }
    if (flags != 0) {
      prefixed.append(body);
      body = prefixed;
    }
    response.envelope = EncodeEnvelope(version_, flags, frame_.header.stream,
                                       opcode, body, request_.compression);
    return response;
  }

  RequestHandler* h_;
  const HandlerRequest& request_;
  const RequestFrame& frame_;
  const uint8_t version_;
  RequestState* state_;
  const bool quick_only_;
  tracing::TraceState* const trace_;  // null: not traced
  std::string outcome_;               // traced only
  ErrorDetails details_;
  WriteType write_type_ = WriteType::kSimple;  // details_.write_type's
};

RequestHandler::RequestHandler(query::QueryProcessor* processor,
                               PreparedCache* cache,
                               BeforeExecute before_execute,
                               tracing::Tracer* tracer)
    : processor_(processor),
      cache_(cache),
      before_execute_(std::move(before_execute)),
      tracer_(tracer) {}

void RequestHandler::StartTrace(const RequestFrame& frame,
                                RequestState* state) {
  state->trace = tracer_->StartSession();
  state->trace_requested = state->trace != nullptr &&
                           (frame.header.flags & protocol::kFlagTracing) != 0;
}

namespace {

std::string_view RequestName(protocol::Opcode opcode) {
  switch (opcode) {
    case protocol::Opcode::kPrepare:
      return kPrepareRequestName;
    case protocol::Opcode::kExecute:
      return kExecuteRequestName;
    case protocol::Opcode::kBatch:
      return kBatchRequestName;
    default:
      return kQueryRequestName;
  }
}

}  // namespace

HandlerResponse RequestHandler::Handle(const HandlerRequest& request,
                                       RequestState* state,
                                       HandlerScope scope) {
  // What an untraced request pays: these tests (the sampler's is one
  // relaxed load of 0), no call, no allocation.
  if (tracer_ != nullptr && !state->trace_decided) {
    state->trace_decided = true;
    if ((request.frame.header.flags & protocol::kFlagTracing) != 0 ||
        tracer_->sampler().Sample()) [[unlikely]] {
      StartTrace(request.frame, state);
    }
  }
  if (state->trace != nullptr) {
    tracing::SetThreadRole(scope == HandlerScope::kQuickOnly
                               ? "native-transport-io"
                               : "native-transport-worker");
  }
  Execution execution(this, request, state, scope);
  HandlerResponse response;
  try {
    response = execution.Run();
  } catch (const std::exception& e) {
    response = execution.Error(
        Status::ServerError(std::string("Unexpected error: ") + e.what()));
  }
  if (state->trace != nullptr) {
    tracing::TraceState& trace = *state->trace;
    if (response.deferred) {
      trace.Trace("Not a quick statement: handed to a worker thread");
    } else {
      // A request that failed before saying what it was still has a row.
      trace.Begin(std::string(RequestName(request.frame.header.opcode)),
                  request.client.address, {});
      trace.Trace(response.envelope.empty()
                      ? std::string("No response: a timeout was answered "
                                    "already")
                      : ResponseActivity(execution.outcome(),
                                         response.envelope.size()));
      trace.Finish();
    }
  }
  return response;
}

std::string RequestHandler::ErrorEnvelope(
    const RequestFrame& frame, protocol::Compression compression,
    const Status& status, const ErrorDetails& details,
    const std::optional<Uuid>& tracing_id) {
  const uint8_t version = frame.header.version;
  std::string body;
  ResponsePrefix prefix;
  prefix.tracing_id = tracing_id;
  const uint8_t flags = AppendResponsePrefix(version, prefix, &body);
  body.append(EncodeErrorBody(version, status, details));
  return EncodeEnvelope(version, flags, frame.header.stream,
                        protocol::Opcode::kError, body, compression);
}

}  // namespace keywise::server
