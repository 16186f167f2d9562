#include "shell/trace_printer.h"

#include <ctime>
#include <thread>

#include "schema/value_codec.h"
#include "shell/result_printer.h"

namespace keywise::shell {
namespace {

// The value of column `name` in `row`, or nullopt.
const std::optional<std::string>* Column(const client::QueryResult& result,
                                         const client::Row& row,
                                         std::string_view name) {
  for (size_t i = 0; i < result.columns.size() && i < row.size(); ++i) {
    if (result.columns[i].name == name) return &row[i];
  }
  return nullptr;
}

template <typename T, typename Decode>
T Get(const client::QueryResult& result, const client::Row& row,
      std::string_view name, Decode decode, T fallback) {
  const std::optional<std::string>* v = Column(result, row, name);
  if (v == nullptr || !v->has_value()) return fallback;
  auto decoded = decode(**v);
  return decoded.ok() ? T(*decoded) : fallback;
}

Result<client::QueryResult> Run(client::Session* session,
                                const std::string& cql,
                                Consistency consistency) {
  client::QueryParams params;
  params.consistency = consistency;
  client::Reply reply = session->Query(cql, params);
  if (!reply.ok()) return reply.status;
  return std::move(reply.result);
}

// "2024-05-01 12:00:00.123456" in local time.
std::string LocalTime(int64_t unix_micros) {
  const std::time_t secs = static_cast<std::time_t>(
      unix_micros >= 0 ? unix_micros / 1000000
                       : (unix_micros - 999999) / 1000000);
  const int64_t micros = unix_micros - int64_t{secs} * 1000000;
  std::tm tm{};
  localtime_r(&secs, &tm);
  char text[64];
  const size_t n = std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &tm);
  std::snprintf(text + n, sizeof(text) - n, ".%06lld",
                static_cast<long long>(micros));
  return text;
}

int64_t UuidMicros(const Uuid& id) {
  return (static_cast<int64_t>(id.Timestamp100ns()) - kUuidEpochOffset100ns) /
         10;
}

}  // namespace

Result<TraceSessionRow> FetchTrace(client::Session* session, const Uuid& id,
                                   Consistency consistency,
                                   std::chrono::milliseconds max_wait,
                                   bool* complete) {
  const std::string key = id.ToString();
  const auto deadline = std::chrono::steady_clock::now() + max_wait;
  auto pause = std::chrono::milliseconds(3);
  TraceSessionRow out;
  out.id = id;
  *complete = false;
  while (true) {
    KW_ASSIGN_OR_RETURN(
        client::QueryResult sessions,
        Run(session,
            "SELECT * FROM system_traces.sessions WHERE session_id = " + key,
            consistency));
    if (!sessions.rows.empty()) {
      const client::Row& row = sessions.rows[0];
      out.request = Get<std::string>(sessions, row, "request", DecodeText, "");
      out.coordinator =
          Get<std::string>(sessions, row, "coordinator", DecodeInet, "");
      out.client = Get<std::string>(sessions, row, "client", DecodeInet, "");
      out.started_at_millis =
          Get<int64_t>(sessions, row, "started_at", DecodeTimestamp, 0);
      const std::optional<std::string>* d = Column(sessions, row, "duration");
      if (d != nullptr && d->has_value()) {
        if (Result<int32_t> v = DecodeInt(**d); v.ok()) out.duration = *v;
      }
    }
    if (out.duration) {
      *complete = true;
      break;
    }
    if (std::chrono::steady_clock::now() + pause > deadline) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
  KW_ASSIGN_OR_RETURN(
      client::QueryResult events,
      Run(session,
          "SELECT * FROM system_traces.events WHERE session_id = " + key,
          consistency));
  for (const client::Row& row : events.rows) {
    TraceEventRow e;
    e.activity = Get<std::string>(events, row, "activity", DecodeText, "");
    e.thread = Get<std::string>(events, row, "thread", DecodeText, "");
    e.source = Get<std::string>(events, row, "source", DecodeInet, "");
    e.source_elapsed =
        Get<int32_t>(events, row, "source_elapsed", DecodeInt, 0);
    const Uuid event_id = Get<Uuid>(events, row, "event_id", DecodeUuid, Uuid());
    e.unix_micros = UuidMicros(event_id);
    out.events.push_back(std::move(e));
  }
  return out;
}

std::string RenderTrace(const TraceSessionRow& t) {
  const CqlTypePtr text = CqlType::Of(TypeKind::kVarchar);
  const CqlTypePtr integer = CqlType::Of(TypeKind::kInt);
  std::vector<client::ColumnSpec> columns = {
      {"", "", "activity", text},
      {"", "", "timestamp", text},
      {"", "", "source", text},
      {"", "", "source_elapsed", integer},
      {"", "", "client", text}};
  std::vector<client::Row> rows;
  auto add = [&](const std::string& activity, int64_t micros,
                 const std::string& source, int32_t elapsed) {
    rows.push_back({EncodeText(activity), EncodeText(LocalTime(micros)),
                    EncodeText(source), EncodeInt(elapsed),
                    EncodeText(t.client)});
  };
  const int64_t started = t.started_at_millis * 1000;
  add(t.request, started, t.coordinator, 0);
  for (const TraceEventRow& e : t.events) {
    add(e.activity + " [" + e.thread + "]", e.unix_micros, e.source,
        e.source_elapsed);
  }
  if (t.duration) {
    add("Request complete", started + *t.duration, t.coordinator, *t.duration);
  }
  return "\nTracing session: " + t.id.ToString() + "\n\n" +
         RenderRows(columns, rows, true, false, 0) + "\n";
}

}  // namespace keywise::shell
