#include "advisor/node_stats.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "common/coding.h"
#include "common/latency_buckets.h"

namespace keywise::advisor {
namespace {

constexpr uint8_t kVersion = 2;
// The fewest bytes a shape takes on the wire (a table id, two empty
// strings, five varints), and the most shapes one answer may hold: a
// decoded shape holds a whole latency histogram (about 1 KB).
constexpr size_t kMinShapeBytes = 16 + 2 + 5;
constexpr uint64_t kMaxShapes = 1 << 16;
// Heatmap buckets start at a time in seconds since the epoch, within
// this (so milliseconds of it fit in 64 bits).
constexpr int64_t kMaxBucketStart = int64_t{1} << 40;

Status Malformed() {
  return Status::ServerError("Malformed workload statistics");
}

// A reader that fails once and stays failed.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && in_.empty(); }
  uint64_t Varint() {
    uint64_t v = 0;
    ok_ = ok_ && GetVarint64(&in_, &v);
    return v;
  }
  int64_t Svarint() {
    int64_t v = 0;
    ok_ = ok_ && GetVarsint64(&in_, &v);
    return v;
  }
  uint8_t Byte() {
    uint8_t v = 0;
    ok_ = ok_ && GetByte(&in_, &v);
    return v;
  }
  std::string Bytes() {
    std::string_view v;
    ok_ = ok_ && GetLengthPrefixed(&in_, &v);
    return std::string(v);
  }
  Uuid Id() {
    if (!ok_ || in_.size() < 16) {
      ok_ = false;
      return Uuid();
    }
    auto id = Uuid::FromBytes(in_.substr(0, 16));
    in_.remove_prefix(16);
    ok_ = id.has_value();
    return id.value_or(Uuid());
  }
  // A list's length: at most `max`, and entries of `min_bytes` each must
  // fit in what is left, so a forged count cannot make decoding allocate
  // much more than the input's size.
  size_t Count(size_t min_bytes = 1, uint64_t max = UINT64_MAX) {
    const uint64_t n = Varint();
    ok_ = ok_ && n <= max && n <= in_.size() / min_bytes;
    return ok_ ? static_cast<size_t>(n) : 0;
  }

 private:
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace

NodeStats LocalNodeStats(const WorkloadStats* stats, Engine& engine) {
  NodeStats out;
  if (stats != nullptr) {
    out.top = stats->Top();
    out.shapes = stats->shapes().All();
    out.heatmap = stats->Heatmap();
  }
  for (LargePartition& p : engine.LargePartitions()) {
    const TableDefPtr table = engine.catalog().GetTableByStorageId(p.table);
    if (table == nullptr) continue;
    out.large.push_back(
        PartitionSize{table->id, std::move(p.serialized_pk), p.bytes, p.rows});
  }
  return out;
}

void ResetStats(WorkloadStats& stats, StatsKind kind) {
  switch (kind) {
    case StatsKind::kTop:
      stats.ResetTop();
      break;
    case StatsKind::kHeatmap:
      stats.ResetHeatmap();
      break;
    case StatsKind::kShapes:
      stats.shapes().Reset();
      break;
  }
}

std::string EncodeNodeStats(const NodeStats& s) {
  std::string out(1, static_cast<char>(kVersion));
  PutVarint64(&out, s.top.size());
  for (const TopPartition& t : s.top) {
    out.append(t.table.bytes_view());
    out.push_back(static_cast<char>(t.op));
    PutLengthPrefixed(&out, t.partition_key);
    PutVarint64(&out, t.count);
    PutVarint64(&out, t.error);
    PutVarint64(&out, t.table_total);
  }
  PutVarint64(&out, s.shapes.size());
  for (const ShapeStats& x : s.shapes) {
    out.append(x.table.bytes_view());
    PutLengthPrefixed(&out, x.shape);
    PutLengthPrefixed(&out, x.access);
    PutVarint64(&out, x.executions);
    PutVarint64(&out, x.rows_read);
    PutVarint64(&out, x.rows_returned);
    PutVarint64(&out, x.total_micros);
    const auto used = std::count_if(x.latency.begin(), x.latency.end(),
                                    [](uint64_t c) { return c > 0; });
    PutVarint64(&out, static_cast<uint64_t>(used));
    for (int b = 0; b < kLatencyBuckets; ++b) {
      if (x.latency[b] == 0) continue;
      PutVarint64(&out, static_cast<uint64_t>(b));
      PutVarint64(&out, x.latency[b]);
    }
  }
  PutVarint64(&out, s.heatmap.size());
  for (const KeyHeatmap::Cell& c : s.heatmap) {
    out.append(c.table.bytes_view());
    PutVarsint64(&out, c.bucket_start);
    PutVarint64(&out, static_cast<uint64_t>(c.range));
    PutVarint64(&out, c.reads);
    PutVarint64(&out, c.writes);
    PutVarint64(&out, c.bytes_written);
  }
  PutVarint64(&out, s.large.size());
  for (const PartitionSize& p : s.large) {
    out.append(p.table.bytes_view());
    PutLengthPrefixed(&out, p.partition_key);
    PutVarint64(&out, p.bytes);
    PutVarint64(&out, p.rows);
  }
  return out;
}

Result<NodeStats> DecodeNodeStats(std::string_view bytes) {
  Reader in(bytes);
  if (in.Byte() != kVersion) return Malformed();
  NodeStats s;
  for (size_t i = 0, n = in.Count(); in.ok() && i < n; ++i) {
    TopPartition t;
    t.table = in.Id();
    const uint8_t op = in.Byte();
    if (op > static_cast<uint8_t>(KeyOp::kWrite)) return Malformed();
    t.op = static_cast<KeyOp>(op);
    t.partition_key = in.Bytes();
    t.count = in.Varint();
    t.error = in.Varint();
    t.table_total = in.Varint();
    s.top.push_back(std::move(t));
  }
  for (size_t i = 0, n = in.Count(kMinShapeBytes, kMaxShapes); in.ok() && i < n;
       ++i) {
    ShapeStats x;
    x.table = in.Id();
    x.shape = in.Bytes();
    x.access = in.Bytes();
    x.executions = in.Varint();
    x.rows_read = in.Varint();
    x.rows_returned = in.Varint();
    x.total_micros = in.Varint();
    for (size_t k = 0, used = in.Count(); in.ok() && k < used; ++k) {
      const uint64_t b = in.Varint();
      const uint64_t count = in.Varint();
      if (b >= static_cast<uint64_t>(kLatencyBuckets)) return Malformed();
      x.latency[b] = count;
    }
    s.shapes.push_back(std::move(x));
  }
  for (size_t i = 0, n = in.Count(); in.ok() && i < n; ++i) {
    KeyHeatmap::Cell c;
    c.table = in.Id();
    c.bucket_start = in.Svarint();
    if (c.bucket_start < -kMaxBucketStart || c.bucket_start > kMaxBucketStart) {
      return Malformed();
    }
    const uint64_t range = in.Varint();
    if (range >= static_cast<uint64_t>(KeyHeatmap::kRanges)) return Malformed();
    c.range = static_cast<int>(range);
    c.reads = in.Varint();
    c.writes = in.Varint();
    c.bytes_written = in.Varint();
    s.heatmap.push_back(c);
  }
  for (size_t i = 0, n = in.Count(); in.ok() && i < n; ++i) {
    PartitionSize p;
    p.table = in.Id();
    p.partition_key = in.Bytes();
    p.bytes = in.Varint();
    p.rows = in.Varint();
    s.large.push_back(std::move(p));
  }
  if (!in.done()) return Malformed();
  for (ShapeStats& x : s.shapes) {
    x.p50_micros = LatencyAtQuantile(x.latency, x.executions, 0.5);
    x.p99_micros = LatencyAtQuantile(x.latency, x.executions, 0.99);
  }
  return s;
}

NodeStats MergeNodeStats(const std::vector<NodeStats>& nodes) {
  NodeStats out;
  // Top partitions, per table and kind.
  using Sketch = std::pair<Uuid, KeyOp>;
  std::map<Sketch, std::map<std::string, TopPartition>> top;
  std::map<Sketch, uint64_t> totals;
  for (const NodeStats& node : nodes) {
    std::map<Sketch, std::vector<const TopPartition*>> mine;
    for (const TopPartition& t : node.top) mine[{t.table, t.op}].push_back(&t);
    for (const auto& [sketch, list] : mine) {
      totals[sketch] += list.front()->table_total;
      std::map<std::string, TopPartition>& merged = top[sketch];
      for (const TopPartition* t : list) {
        TopPartition& m = merged[t->partition_key];
        m.table = t->table;
        m.op = t->op;
        m.partition_key = t->partition_key;
      }
    }
  }
  // Each node adds, to every merged partition, its count or, when its full
  // sketch does not list it, its smallest count (an unlisted partition
  // may have had that many there).
  for (const NodeStats& node : nodes) {
    std::map<Sketch, std::map<std::string_view, const TopPartition*>> mine;
    for (const TopPartition& t : node.top) {
      mine[{t.table, t.op}][t.partition_key] = &t;
    }
    for (auto& [sketch, merged] : top) {
      auto it = mine.find(sketch);
      uint64_t floor = 0;
      if (it != mine.end() && it->second.size() >= WorkloadStats::kCounters) {
        floor = UINT64_MAX;
        for (const auto& [pk, t] : it->second) floor = std::min(floor, t->count);
      }
      for (auto& [pk, m] : merged) {
        const TopPartition* t = nullptr;
        if (it != mine.end()) {
          auto found = it->second.find(pk);
          if (found != it->second.end()) t = found->second;
        }
        m.count += t != nullptr ? t->count : floor;
        m.error += t != nullptr ? t->error : floor;
      }
    }
  }
  for (auto& [sketch, merged] : top) {
    std::vector<TopPartition> list;
    for (auto& [pk, m] : merged) list.push_back(std::move(m));
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return std::tie(b.count, a.partition_key) < std::tie(a.count, b.partition_key);
    });
    if (list.size() > WorkloadStats::kCounters) list.resize(WorkloadStats::kCounters);
    int rank = 0;
    for (TopPartition& t : list) {
      t.rank = ++rank;
      t.table_total = totals[sketch];
      out.top.push_back(std::move(t));
    }
  }
  // Query shapes.
  std::map<std::pair<Uuid, std::string>, ShapeStats> shapes;
  for (const NodeStats& node : nodes) {
    for (const ShapeStats& x : node.shapes) {
      auto [it, added] = shapes.try_emplace({x.table, x.shape}, x);
      if (added) continue;
      ShapeStats& m = it->second;
      m.executions += x.executions;
      m.rows_read += x.rows_read;
      m.rows_returned += x.rows_returned;
      m.total_micros += x.total_micros;
      for (int b = 0; b < kLatencyBuckets; ++b) m.latency[b] += x.latency[b];
    }
  }
  for (auto& [key, m] : shapes) {
    m.p50_micros = LatencyAtQuantile(m.latency, m.executions, 0.5);
    m.p99_micros = LatencyAtQuantile(m.latency, m.executions, 0.99);
    out.shapes.push_back(std::move(m));
  }
  // Heatmap cells, by table, then time, then range (as KeyHeatmap::Cells).
  std::map<std::tuple<Uuid, int64_t, int>, KeyHeatmap::Cell> cells;
  for (const NodeStats& node : nodes) {
    for (const KeyHeatmap::Cell& c : node.heatmap) {
      auto [it, added] = cells.try_emplace({c.table, c.bucket_start, c.range}, c);
      if (added) continue;
      it->second.reads += c.reads;
      it->second.writes += c.writes;
      it->second.bytes_written += c.bytes_written;
    }
  }
  for (auto& [key, c] : cells) out.heatmap.push_back(c);
  // Large partitions: the largest copy.
  std::map<std::pair<Uuid, std::string>, PartitionSize> large;
  for (const NodeStats& node : nodes) {
    for (const PartitionSize& p : node.large) {
      auto [it, added] = large.try_emplace({p.table, p.partition_key}, p);
      if (!added && p.bytes > it->second.bytes) it->second = p;
    }
  }
  for (auto& [key, p] : large) out.large.push_back(std::move(p));
  return out;
}

}  // namespace keywise::advisor
