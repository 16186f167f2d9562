// ReplicaService's part of traced requests (docs/tracing.md): kTraced
// messages (traced_message.h) run their inner verb with this node's events
// of it, under the coordinator's session and this node's own source:
// the message arriving, the storage read and what it found, the write
// applied, the answer going back.
#include <memory>
#include <string>
#include <utility>

#include "cluster/coordinator/raw_digest.h"
#include "cluster/coordinator/replica_service.h"
#include "cluster/coordinator/traced_message.h"
#include "cluster/coordinator/verbs.h"
#include "storage/partition_update_codec.h"
#include "storage/raw_partition_codec.h"

namespace keywise::cluster {
namespace {

std::string Plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string ReadSummary(const ReadStats& stats) {
  const uint64_t live = stats.rows_scanned - stats.dead_rows;
  return "Read " + Plural(live, "live row", "live rows") + " and " +
         Plural(stats.dead_rows, "tombstone", "tombstones") +
         " (deleted or expired rows)";
}

std::string TableName(const TableDef& table) {
  return table.keyspace + "." + table.name;
}

}  // namespace

Result<RawPartition> ReplicaService::TracedReadRaw(
    const TableDefPtr& table, const std::vector<std::string>& pk,
    const ReadRawRequest& r, tracing::TraceState& trace) {
  trace.Trace("Executing single-partition query on " + TableName(*table));
  ReadStats stats;
  ReadOptions options = ReplicaReadOptions(r.now_seconds, r.reversed);
  options.stats = &stats;
  Result<RawPartition> raw =
      engine_->ReadRaw(table, pk, r.slice, r.row_limit, options);
  trace.Trace(raw.ok() ? ReadSummary(stats)
                       : "Read failed: " + raw.status().ToString());
  return raw;
}

Result<std::string> ReplicaService::TracedScanRaw(const std::string& payload,
                                                  tracing::TraceState& trace) {
  KW_ASSIGN_OR_RETURN(ScanRawRequest r, DecodeScanRawRequest(payload));
  TableDefPtr table = Tables()(r.table_id);
  if (table == nullptr) {
    return Status::ServerError("Unknown table id " + r.table_id.ToString());
  }
  trace.Trace("Executing range scan of " + TableName(*table) + " tokens " +
              std::to_string(r.tokens.start.value) + " to " +
              std::to_string(r.tokens.end.value));
  ReadStats stats;
  ReadOptions options = ReplicaReadOptions(r.now_seconds, false);
  options.stats = &stats;
  KW_ASSIGN_OR_RETURN(
      RawScan scan,
      engine_->ScanRaw(table, r.tokens, r.slice,
                       r.has_after ? &r.after : nullptr, r.row_limit,
                       options));
  trace.Trace(ReadSummary(stats) + " in " +
              Plural(scan.partitions.size(), "partition", "partitions") +
              (scan.complete ? "" : " (a batch: the scan goes on)"));
  return EncodeRawScan(scan);
}

void ReplicaService::OnTraced(IncomingMessage message, Responder responder) {
  Result<std::shared_ptr<const void>> hold = Admit(message);
  if (!hold.ok()) {
    responder.Fail(hold.status());
    return;
  }
  Result<TracedRequest> request = DecodeTracedRequest(message.payload);
  if (!request.ok()) {
    responder.Fail(request.status());
    return;
  }
  tracing::Tracer* tracer = tracer_.load();
  tracing::TracePtr trace =
      tracer != nullptr ? tracer->JoinSession(request->session_id) : nullptr;
  const std::string from = "/" + request->coordinator;
  const std::string verb = VerbName(request->verb);
  tracing::ScopedThreadRole role("replica");
  if (trace != nullptr) trace->Trace(verb + " message received from " + from);
  // Answers once, recording it; keeps the sender's hold until then.
  auto shared = std::make_shared<Responder>(std::move(responder));
  auto answer = [shared, trace, from, held = std::move(hold).value()](
                    Result<std::string> result) {
    if (trace != nullptr) {
      tracing::ScopedThreadRole role("replica");
      trace->Trace(result.ok() ? "Enqueuing response to " + from + " (" +
                                     std::to_string(result->size()) + " bytes)"
                               : "Failed, answering " + from + ": " +
                                     result.status().ToString());
    }
    if (result.ok()) {
      shared->Respond(std::move(result).value());
    } else {
      shared->Fail(result.status());
    }
  };
  tracing::TraceState* t = trace.get();
  const std::string& payload = request->payload;
  const Verb inner = request->verb;
  if (inner == kReadRawVerb || inner == kReadDigestVerb) {
    Result<std::string> out = [&]() -> Result<std::string> {
      KW_ASSIGN_OR_RETURN(ReadRawRequest r, DecodeReadRawRequest(payload));
      KW_ASSIGN_OR_RETURN(RawPartition raw, ReadRaw(r, t));
      if (inner == kReadDigestVerb) return RawDigest(raw);
      std::string bytes;
      EncodeRawPartition(raw, &bytes);
      return bytes;
    }();
    answer(std::move(out));
  } else if (inner == kScanRawVerb) {
    answer(t != nullptr ? TracedScanRaw(payload, *t) : OnScanRaw(payload));
  } else if (inner == kRepairVerb) {
    Result<std::string> out = [&]() -> Result<std::string> {
      KW_ASSIGN_OR_RETURN(RawPartition raw,
                          DecodeRawPartition(payload, Tables()));
      if (t != nullptr) {
        t->Trace("Applying read repair of " + TableName(*raw.table) + ": " +
                 Plural(raw.rows.size(), "row", "rows"));
      }
      KW_RETURN_IF_ERROR(ApplyRepair(raw));
      if (t != nullptr) t->Trace("Read repair applied");
      return std::string();
    }();
    answer(std::move(out));
  } else {  // kMutationVerb (DecodeTracedRequest let no other through)
    Result<PartitionUpdate> update = DecodePartitionUpdate(payload, Tables());
    if (!update.ok()) {
      answer(update.status());
      return;
    }
    std::vector<PartitionUpdate> updates;
    updates.push_back(std::move(update).value());
    auto once = std::make_shared<decltype(answer)>(std::move(answer));
    Status st = ApplyMutations(
        std::move(updates), [once] { (*once)(std::string()); }, t);
    if (!st.ok()) (*once)(st);
  }
}

}  // namespace keywise::cluster
