// Workload: the schema `keywise bench` uses and the operation it sends next.
//
// Table keywise_bench.kv (pk bigint, ck bigint, v blob, PRIMARY KEY (pk, ck)).
// Row index r in [0, partitions * rows_per_partition) is the row
// (pk = r / rows_per_partition, ck = r % rows_per_partition); the load phase
// writes every row once, in that order.
//
//   write       INSERT one row; the distribution picks the row index;
//   read        SELECT one row by its full primary key;
//   scan        SELECT scan_rows rows of one partition from a random start
//               (ck >= start ASC, or ck <= start ORDER BY ck DESC); the
//               distribution picks the partition;
//   mixed       read with probability read_ratio, otherwise write;
//   timeseries  INSERT into a partition the distribution picks, at a
//               clustering key above every one written before (one shared
//               counter), i.e. appends at the end of each partition.
//   lwt-insert  INSERT ... IF NOT EXISTS of the row the distribution picks
//               (applied the first time, a compare-and-set round each time);
//   cas         UPDATE ... SET v = ? IF EXISTS of a loaded row (applies);
//   counter     UPDATE keywise_bench.counters SET n = n + 1 of the row the
//               distribution picks (a read-modify-write round each time).
//
// Contract: Next() may be called from several threads at once, each with its
// own Rng.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "bench_tool/bench_options.h"
#include "bench_tool/key_distribution.h"

namespace keywise::bench {

inline constexpr const char* kKeyspace = "keywise_bench";
inline constexpr const char* kTable = "kv";
inline constexpr const char* kCounterTable = "counters";

enum class OpKind : uint8_t {
  kInsert = 0,
  kRead = 1,
  kScan = 2,
  kCasInsert = 3,
  kCasUpdate = 4,
  kCounter = 5,
};
inline constexpr int kOpKinds = 6;

struct Op {
  OpKind kind = OpKind::kInsert;
  int64_t pk = 0;
  int64_t ck = 0;
};

class Workload {
 public:
  explicit Workload(const BenchOptions& options);

  Op Next(Rng& rng);
  // The load phase's row `index`.
  Op LoadRow(uint64_t index) const;
  uint64_t total_rows() const { return total_rows_; }

  // CQL text of each statement, by OpKind.
  static std::string SchemaKeyspaceCql(int replication_factor = 1);
  static std::string SchemaTableCql();
  static std::string SchemaCounterTableCql();
  std::string StatementCql(OpKind kind) const;

 private:
  Op RowOp(OpKind kind, uint64_t row) const;

  BenchOptions options_;
  uint64_t total_rows_;
  std::unique_ptr<KeyDistribution> rows_;
  std::unique_ptr<KeyDistribution> partitions_;
  std::atomic<int64_t> next_time_{0};
};

}  // namespace keywise::bench
