#include "bench_tool/workload.h"

#include <algorithm>

namespace keywise::bench {

Workload::Workload(const BenchOptions& options)
    : options_(options),
      total_rows_(std::max<uint64_t>(1, options.partitions) *
                  std::max<uint64_t>(1, options.rows_per_partition)) {
  options_.partitions = std::max<uint64_t>(1, options.partitions);
  options_.rows_per_partition =
      std::max<uint64_t>(1, options.rows_per_partition);
  rows_ = MakeDistribution(options.distribution, total_rows_,
                           options.zipf_exponent);
  partitions_ = MakeDistribution(options.distribution, options_.partitions,
                                 options.zipf_exponent);
  next_time_.store(static_cast<int64_t>(options_.rows_per_partition));
}

Op Workload::RowOp(OpKind kind, uint64_t row) const {
  Op op;
  op.kind = kind;
  op.pk = static_cast<int64_t>(row / options_.rows_per_partition);
  op.ck = static_cast<int64_t>(row % options_.rows_per_partition);
  return op;
}

Op Workload::LoadRow(uint64_t index) const {
  return RowOp(OpKind::kInsert, index);
}

Op Workload::Next(Rng& rng) {
  switch (options_.workload) {
    case WorkloadKind::kWrite:
      return RowOp(OpKind::kInsert, rows_->Next(rng));
    case WorkloadKind::kRead:
      return RowOp(OpKind::kRead, rows_->Next(rng));
    case WorkloadKind::kMixed: {
      double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      OpKind kind = u < options_.read_ratio ? OpKind::kRead : OpKind::kInsert;
      return RowOp(kind, rows_->Next(rng));
    }
    case WorkloadKind::kScan: {
      Op op;
      op.kind = OpKind::kScan;
      op.pk = static_cast<int64_t>(partitions_->Next(rng));
      uint64_t rpp = options_.rows_per_partition;
      uint64_t span =
          rpp > options_.scan_rows ? rpp - options_.scan_rows + 1 : 1;
      uint64_t start = rng() % span;
      // DESC reads the same rows from their highest key down.
      if (options_.order == ScanOrder::kDesc) {
        start = std::min<uint64_t>(start + options_.scan_rows - 1, rpp - 1);
      }
      op.ck = static_cast<int64_t>(start);
      return op;
    }
    case WorkloadKind::kLwtInsert:
      return RowOp(OpKind::kCasInsert, rows_->Next(rng));
    case WorkloadKind::kCas:
      return RowOp(OpKind::kCasUpdate, rows_->Next(rng));
    case WorkloadKind::kCounter:
      return RowOp(OpKind::kCounter, rows_->Next(rng));
    case WorkloadKind::kTimeseries: {
      Op op;
      op.kind = OpKind::kInsert;
      op.pk = static_cast<int64_t>(partitions_->Next(rng));
      op.ck = next_time_.fetch_add(1, std::memory_order_relaxed);
      return op;
    }
  }
  return Op{};
}

std::string Workload::SchemaKeyspaceCql(int replication_factor) {
  return std::string("CREATE KEYSPACE IF NOT EXISTS ") + kKeyspace +
         " WITH replication = {'class': 'SimpleStrategy', "
         "'replication_factor': " +
         std::to_string(replication_factor) + "}";
}

std::string Workload::SchemaTableCql() {
  return std::string("CREATE TABLE IF NOT EXISTS ") + kKeyspace + "." + kTable +
         " (pk bigint, ck bigint, v blob, PRIMARY KEY (pk, ck))";
}

std::string Workload::SchemaCounterTableCql() {
  return std::string("CREATE TABLE IF NOT EXISTS ") + kKeyspace + "." +
         kCounterTable +
         " (pk bigint, ck bigint, n counter, PRIMARY KEY (pk, ck))";
}

std::string Workload::StatementCql(OpKind kind) const {
  std::string table = std::string(kKeyspace) + "." + kTable;
  switch (kind) {
    case OpKind::kCasInsert:
      return "INSERT INTO " + table +
             " (pk, ck, v) VALUES (?, ?, ?) IF NOT EXISTS";
    case OpKind::kCasUpdate:  // binds v first
      return "UPDATE " + table +
             " SET v = ? WHERE pk = ? AND ck = ? IF EXISTS";
    case OpKind::kCounter:
      return std::string("UPDATE ") + kKeyspace + "." + kCounterTable +
             " SET n = n + 1 WHERE pk = ? AND ck = ?";
    case OpKind::kInsert:
      return "INSERT INTO " + table + " (pk, ck, v) VALUES (?, ?, ?)";
    case OpKind::kRead:
      return "SELECT v FROM " + table + " WHERE pk = ? AND ck = ?";
    case OpKind::kScan:
      if (options_.order == ScanOrder::kDesc) {
        return "SELECT ck, v FROM " + table +
               " WHERE pk = ? AND ck <= ? ORDER BY ck DESC LIMIT " +
               std::to_string(options_.scan_rows);
      }
      return "SELECT ck, v FROM " + table + " WHERE pk = ? AND ck >= ? LIMIT " +
             std::to_string(options_.scan_rows);
  }
  return {};
}

}  // namespace keywise::bench
