#include "metrics/table_metrics.h"

#include <iterator>
#include <mutex>
#include <utility>
#include <vector>

namespace keywise::metrics {

std::string_view TableOpName(TableOp op) {
  switch (op) {
    case TableOp::kRead:
      return "read";
    case TableOp::kRange:
      return "range";
    case TableOp::kWrite:
      break;
  }
  return "write";
}

TableMetrics::TableMetrics(Registry* registry, TableLister list)
    : list_(std::move(list)),
      collector_(registry, [this](TextWriter& out) { Collect(out); }) {}

void TableMetrics::Record(const Uuid& table, std::string_view keyspace,
                          std::string_view name, TableOp op, uint64_t micros) {
  const size_t o = static_cast<size_t>(op);
  if (o >= kTableOps) return;
  Shard& shard = shards_[ThreadShard()];
  {
    std::lock_guard<std::mutex> shard_lock(shard.mu);
    auto it = shard.tables.find(table);
    if (it != shard.tables.end()) {
      it->second->ops[o].ObserveMicros(micros);
      return;
    }
  }
  // The table's first request on this shard: its series (made if new)
  // joins the shard's map. Locks in ReadLive's order: mu_, then a shard's.
  std::unique_lock<std::shared_mutex> lock(mu_);
  std::unique_ptr<Series>& s = tables_[table];
  if (s == nullptr) {
    s = std::make_unique<Series>();
    s->keyspace = std::string(keyspace);
    s->name = std::string(name);
  }
  std::lock_guard<std::mutex> shard_lock(shard.mu);
  shard.tables.emplace(table, s.get());
  s->ops[o].ObserveMicros(micros);
}

std::map<Uuid, TableMetrics::Figures> TableMetrics::Read() const {
  std::map<Uuid, Figures> out;
  std::shared_lock<std::shared_mutex> lock(mu_);
  for (const auto& [id, s] : tables_) {
    Figures& f = out[id];
    f.keyspace = s->keyspace;
    f.table = s->name;
    for (size_t o = 0; o < kTableOps; ++o) f.ops[o] = s->ops[o].Read();
  }
  return out;
}

TableMetrics::Live TableMetrics::ReadLive() {
  // The tables counted before the lister runs: only those can be known
  // dropped when it does not list them (one created meanwhile is not).
  std::vector<Uuid> counted;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (const auto& [id, s] : tables_) counted.push_back(id);
  }
  // The lister reads the catalog and the storage: outside the lock.
  Live live;
  live.tables = list_ ? list_() : std::vector<TableInfo>();
  std::map<Uuid, const TableInfo*> by_id;
  for (const TableInfo& t : live.tables) by_id[t.id] = &t;
  {
    std::vector<Uuid> gone;
    for (const Uuid& id : counted) {
      if (by_id.count(id) == 0) gone.push_back(id);
    }
    if (!gone.empty()) {
      // Out of every shard's map first (a Record using a series holds its
      // shard's mutex), then destroyed.
      std::unique_lock<std::shared_mutex> lock(mu_);
      for (Shard& shard : shards_) {
        std::lock_guard<std::mutex> shard_lock(shard.mu);
        for (const Uuid& id : gone) shard.tables.erase(id);
      }
      for (const Uuid& id : gone) tables_.erase(id);
    }
  }
  for (auto& [id, f] : Read()) {
    auto t = by_id.find(id);
    if (t == by_id.end()) continue;  // first seen since the lister ran
    f.keyspace = t->second->keyspace;
    f.table = t->second->table;
    live.figures.emplace(id, std::move(f));
  }
  return live;
}

void TableMetrics::Collect(TextWriter& out) {
  const Live live = ReadLive();
  out.Family("keywise_table_request_duration_seconds",
             "Requests this node coordinated, per table and operation (read: "
             "named partitions, range: a token range or an index, write), "
             "from the start of their execution to their answer.",
             MetricType::kHistogram);
  for (const auto& [id, f] : live.figures) {
    for (size_t o = 0; o < kTableOps; ++o) {
      out.Histogram({{"keyspace", f.keyspace},
                     {"table", f.table},
                     {"op", std::string(TableOpName(static_cast<TableOp>(o)))}},
                    f.ops[o]);
    }
  }
  out.Family("keywise_table_disk_bytes",
             "Estimated bytes a table takes on this node: its table files "
             "and memtables.",
             MetricType::kGauge);
  for (const TableInfo& t : live.tables) {
    out.Sample({{"keyspace", t.keyspace}, {"table", t.table}},
               static_cast<double>(t.disk_bytes));
  }
}

}  // namespace keywise::metrics
