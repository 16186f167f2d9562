#include "system/trace_tables.h"

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"

namespace keywise::system {
namespace {

// The cells of one row, all written at one time with one TTL.
class TraceRow {
 public:
  TraceRow(const TableDef& table, const TraceWriteTime& at)
      : table_(table), at_(at) {}

  void Set(std::string_view column, std::string value) {
    if (const ColumnDef* c = table_.FindColumn(column)) {
      cells_.push_back(LiveCell(c->id, std::move(value), at_.timestamp,
                                at_.ttl_seconds, at_.now_seconds));
    }
  }
  void SetInet(std::string_view column, const std::string& address) {
    if (Result<std::string> bytes = EncodeInet(address); bytes.ok()) {
      Set(column, *std::move(bytes));
    }
  }
  // A non-frozen map<text, text>: one cell per entry, keyed by its path.
  void SetMap(std::string_view column,
              const std::map<std::string, std::string>& entries) {
    const ColumnDef* c = table_.FindColumn(column);
    if (c == nullptr) return;
    for (const auto& [key, value] : entries) {
      Cell cell = LiveCell(c->id, EncodeText(value), at_.timestamp,
                           at_.ttl_seconds, at_.now_seconds);
      cell.path = EncodeText(key);
      cells_.push_back(std::move(cell));
    }
  }

  PartitionUpdate Take(const TableDefPtr& table, const Uuid& session_id,
                       std::vector<std::string> clustering, bool marker) {
    PartitionUpdate u;
    u.table = table;
    u.partition_key = {EncodeUuid(session_id)};
    RowWrite w;
    w.clustering = std::move(clustering);
    if (marker) {
      w.fragment.liveness =
          RowMarker(at_.timestamp, at_.ttl_seconds, at_.now_seconds);
    }
    w.fragment.cells = std::move(cells_);
    u.rows.push_back(std::move(w));
    return u;
  }

 private:
  const TableDef& table_;
  const TraceWriteTime at_;
  std::vector<Cell> cells_;
};

}  // namespace

Result<TraceTables> FindTraceTables(const SchemaSnapshot& schema) {
  TraceTables t;
  t.sessions = schema.FindTable(kTracesKeyspaceName, "sessions");
  t.events = schema.FindTable(kTracesKeyspaceName, "events");
  if (t.sessions == nullptr || t.events == nullptr) {
    return Status::ServerError("The system_traces tables are missing");
  }
  return t;
}

PartitionUpdate SessionStartedUpdate(const TraceTables& tables,
                                     const tracing::SessionStarted& s,
                                     const TraceWriteTime& at) {
  TraceRow row(*tables.sessions, at);
  row.Set("command", EncodeText(s.command));
  row.SetInet("client", s.client);
  row.SetInet("coordinator", s.coordinator.address);
  row.Set("coordinator_port", EncodeInt(s.coordinator.port));
  row.SetMap("parameters", s.parameters);
  row.Set("request", EncodeText(s.request));
  row.Set("started_at", EncodeTimestamp(s.started_at_millis));
  return row.Take(tables.sessions, s.session_id, {}, /*marker=*/true);
}

PartitionUpdate SessionFinishedUpdate(const TraceTables& tables,
                                      const tracing::SessionFinished& s,
                                      const TraceWriteTime& at) {
  TraceRow row(*tables.sessions, at);
  row.Set("duration", EncodeInt(s.duration_micros));
  return row.Take(tables.sessions, s.session_id, {}, /*marker=*/false);
}

PartitionUpdate TraceEventUpdate(const TraceTables& tables,
                                 const tracing::TraceEvent& e,
                                 const TraceWriteTime& at) {
  TraceRow row(*tables.events, at);
  row.Set("activity", EncodeText(e.activity));
  row.SetInet("source", e.source.address);
  row.Set("source_port", EncodeInt(e.source.port));
  row.Set("source_elapsed", EncodeInt(e.source_elapsed_micros));
  row.Set("thread", EncodeText(e.thread));
  return row.Take(tables.events, e.session_id, {EncodeUuid(e.event_id)},
                  /*marker=*/true);
}

PartitionUpdate TraceRecordUpdate(const TraceTables& tables,
                                  const tracing::TraceRecord& record,
                                  const TraceWriteTime& at) {
  return std::visit(
      [&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, tracing::SessionStarted>) {
          return SessionStartedUpdate(tables, r, at);
        } else if constexpr (std::is_same_v<T, tracing::SessionFinished>) {
          return SessionFinishedUpdate(tables, r, at);
        } else {
          return TraceEventUpdate(tables, r, at);
        }
      },
      record);
}

}  // namespace keywise::system
