// Speculative retry (Cassandra's `speculative_retry` table option): when
// the replicas a read asked have not all answered after a delay, the
// coordinator asks one more replica, so that one slow (paused, compacting,
// overloaded) replica does not set the latency of every read it is asked.
//
//   RetryPolicy     the option parsed: NONE, ALWAYS (ask the extra replica
//                   at once), 'Xms' (a fixed delay), 'Np' / 'NPERCENTILE'
//                   (the Nth percentile of the table's recent coordinator
//                   read latency), MIN(a, b) / MAX(a, b) of two of these.
//   ReadLatencies   the recent read latencies of each table and the delay
//                   its policy gives now.
//
// Contract: RetryPolicy is a value. ReadLatencies is thread-safe; Record
// costs one relaxed atomic increment (and, once per update interval, the
// recomputation of the table's percentiles by the thread that records).
// Percentiles come from a log-scale histogram (common/latency_buckets.h:
// four buckets per power of two of microseconds, within 25% above the
// true value), recomputed at most once per update interval; once it holds
// 1000 reads its counts are
// halved at each update, so that recent reads dominate. A percentile is
// unknown until the table has 100 reads, and until then the policy does
// not speculate (a fixed delay in MIN/MAX still applies).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <map>

#include "common/latency_buckets.h"
#include "common/status.h"
#include "common/uuid.h"
#include "schema/table_def.h"

namespace keywise::cluster {

struct RetryPolicy {
  enum class Kind : uint8_t { kNever, kAlways, kFixed, kPercentile, kMin, kMax };
  struct Part {
    bool percentile = false;  // else a fixed delay
    double value = 0;         // percentile (0-100) or milliseconds
  };
  Kind kind = Kind::kNever;
  Part a, b;  // kFixed / kPercentile use `a`; kMin / kMax both
};

// Parses the option's text, quoted or not, any case ("'99p'", "50ms",
// "99PERCENTILE", "ALWAYS", "NONE", "min(99p,50ms)"); Invalid otherwise.
Result<RetryPolicy> ParseRetryPolicy(std::string_view text);
// The policy `table` asks for: its speculative_retry option, else
// Cassandra's default (99p). An option that does not parse (the query
// layer validates it) speculates never.
RetryPolicy TableRetryPolicy(const TableDef& table);

class ReadLatencies {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kBuckets = kLatencyBuckets;
  static constexpr uint64_t kMinSamples = 100;
  static constexpr uint64_t kDecayAt = 1000;

  explicit ReadLatencies(
      std::chrono::milliseconds update_interval = std::chrono::milliseconds(500))
      : update_interval_(update_interval) {}

  // A read of `table` that took `elapsed`.
  void Record(const TableDef& table, Clock::duration elapsed);
  // How long a read of `table` waits before asking one more replica;
  // nullopt: it does not speculate.
  std::optional<Clock::duration> Delay(const TableDef& table);
  // Drops what is kept for a table that was dropped (a read of it after
  // this starts afresh).
  void Forget(const Uuid& table_id);
  // Tables with latencies kept (for tests).
  size_t TablesKept();

 private:
  struct Table {
    std::array<std::atomic<uint64_t>, kBuckets> counts{};
    std::atomic<int64_t> next_update_ns{0};
    // Percentiles cached at the last update, per policy part: microseconds,
    // -1 when unknown.
    std::atomic<int64_t> part_a_us{-1};
    std::atomic<int64_t> part_b_us{-1};
    // The policy, parsed from the option text `parsed_text` (an ALTER
    // changes it).
    std::mutex mu;
    bool parsed = false;
    std::string parsed_text;
    RetryPolicy policy;
  };

  // Shared: a Forget may come while a read still records.
  std::shared_ptr<Table> Of(const TableDef& table);
  // The policy of `t` for `table`, parsed again when the table changed.
  RetryPolicy PolicyOf(Table& t, const TableDef& table);
  void MaybeUpdate(Table& t, const RetryPolicy& policy);

  const std::chrono::milliseconds update_interval_;
  std::mutex mu_;
  std::map<Uuid, std::shared_ptr<Table>> tables_;  // guarded by mu_
};

}  // namespace keywise::cluster
