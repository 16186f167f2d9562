#include "system/metrics_tables.h"

#include <array>
#include <vector>

#include "schema/value_codec.h"

namespace keywise::system {
namespace {

constexpr std::array<std::pair<std::string_view, metrics::TableOp>, 3>
    kLatencyTables = {{
        {"coordinator_read_latency", metrics::TableOp::kRead},
        {"coordinator_scan_latency", metrics::TableOp::kRange},
        {"coordinator_write_latency", metrics::TableOp::kWrite},
    }};

}  // namespace

MetricsTables::MetricsTables(Engine* engine, const metrics::Registry* registry,
                             metrics::TableMetrics* tables,
                             std::chrono::milliseconds min_interval)
    : engine_(engine),
      registry_(registry),
      tables_(tables),
      min_interval_(min_interval) {}

bool MetricsTables::Handles(std::string_view table) {
  if (table == "metrics" || table == "disk_usage") return true;
  for (const auto& [name, op] : kLatencyTables) {
    if (name == table) return true;
  }
  return false;
}

Status MetricsTables::Refresh(std::string_view table) {
  if (!Handles(table)) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  Published& p = published_[std::string(table)];
  const auto now = std::chrono::steady_clock::now();
  if (p.table != nullptr && now - p.at < min_interval_) return Status::OK();
  // A write stall would hold the write (and the reader) until it ends:
  // the table keeps what it had.
  if (engine_->ReadFigures().writes_stopped) return Status::OK();
  if (p.table == nullptr) {
    p.table = std::make_unique<StatsTable>(engine_, std::string(table));
  }
  p.at = now;
  return Write(table, p.table.get());
}

Status MetricsTables::Write(std::string_view name, StatsTable* table) {
  std::map<std::string, std::vector<SchemaRow>> rows;
  if (name == "metrics") {
    for (const metrics::MetricSample& s : registry_->Samples()) {
      SchemaRow row;
      row.clustering = {EncodeText(metrics::RenderLabels(s.labels))};
      row.cells = {{"value", EncodeDouble(s.value)}};
      rows[s.name].push_back(std::move(row));
    }
    return table->Publish(rows);
  }
  if (tables_ == nullptr) return table->Publish(rows);
  const metrics::TableMetrics::Live live = tables_->ReadLive();
  const auto& figures = live.figures;
  if (name == "disk_usage") {
    for (const metrics::TableMetrics::TableInfo& t : live.tables) {
      SchemaRow row;
      row.clustering = {EncodeText(t.table)};
      const uint64_t mib = (t.disk_bytes + (1u << 20) - 1) >> 20;
      row.cells = {{"mebibytes", EncodeBigint(static_cast<int64_t>(mib))}};
      rows[t.keyspace].push_back(std::move(row));
    }
    return table->Publish(rows);
  }
  for (const auto& [latency_table, op] : kLatencyTables) {
    if (latency_table != name) continue;
    const auto now = std::chrono::steady_clock::now();
    for (const auto& [id, f] : figures) {
      const metrics::DurationHistogram::Snapshot& h =
          f.ops[static_cast<size_t>(op)];
      RateBase& base = rates_[{id, static_cast<int>(op)}];
      if (base.at == std::chrono::steady_clock::time_point() ||
          h.count < base.count) {
        base.at = now;  // first sight (or counted anew): no rate yet
        base.count = h.count;
        base.per_second = 0;
      } else if (now - base.at >= std::chrono::seconds(1)) {
        base.per_second =
            static_cast<double>(h.count - base.count) /
            std::chrono::duration<double>(now - base.at).count();
        base.at = now;
        base.count = h.count;
      }
      SchemaRow row;
      row.clustering = {EncodeText(f.table)};
      row.cells = {
          {"count", EncodeBigint(static_cast<int64_t>(h.count))},
          {"p50th_ms", EncodeDouble(metrics::QuantileMicros(h, 0.5) / 1000)},
          {"p99th_ms", EncodeDouble(metrics::QuantileMicros(h, 0.99) / 1000)},
          {"max_ms", EncodeDouble(metrics::MaxMicros(h) / 1000)},
          {"per_second", EncodeDouble(base.per_second)}};
      rows[f.keyspace].push_back(std::move(row));
    }
  }
  return table->Publish(rows);
}

}  // namespace keywise::system
