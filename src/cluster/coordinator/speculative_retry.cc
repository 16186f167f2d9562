#include "cluster/coordinator/speculative_retry.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "system/table_params.h"

namespace keywise::cluster {
namespace {

std::string Upper(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != ' ') out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

std::optional<double> Number(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !(v >= 0)) {
    return std::nullopt;
  }
  return v;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<RetryPolicy::Part> ParsePart(std::string_view u) {
  RetryPolicy::Part part;
  std::optional<double> v;
  if (EndsWith(u, "MS")) {
    v = Number(u.substr(0, u.size() - 2));
  } else if (EndsWith(u, "PERCENTILE")) {
    part.percentile = true;
    v = Number(u.substr(0, u.size() - 10));
  } else if (EndsWith(u, "P")) {
    part.percentile = true;
    v = Number(u.substr(0, u.size() - 1));
  }
  if (!v || (part.percentile && *v > 100)) return std::nullopt;
  part.value = *v;
  return part;
}

}  // namespace

Result<RetryPolicy> ParseRetryPolicy(std::string_view text) {
  const std::string u = Upper(system::UnquoteOption(text));
  RetryPolicy policy;
  if (u == "NONE" || u == "NEVER") return policy;
  if (u == "ALWAYS") {
    policy.kind = RetryPolicy::Kind::kAlways;
    return policy;
  }
  const bool min = u.starts_with("MIN(");
  if ((min || u.starts_with("MAX(")) && u.back() == ')') {
    const std::string_view inner =
        std::string_view(u).substr(4, u.size() - 5);
    const size_t comma = inner.find(',');
    if (comma != std::string_view::npos) {
      auto a = ParsePart(inner.substr(0, comma));
      auto b = ParsePart(inner.substr(comma + 1));
      if (a && b) {
        policy.kind = min ? RetryPolicy::Kind::kMin : RetryPolicy::Kind::kMax;
        policy.a = *a;
        policy.b = *b;
        return policy;
      }
    }
  } else if (auto a = ParsePart(u)) {
    policy.kind = a->percentile ? RetryPolicy::Kind::kPercentile
                                : RetryPolicy::Kind::kFixed;
    policy.a = *a;
    return policy;
  }
  return Status::Invalid("Invalid speculative_retry policy " +
                         std::string(text));
}

RetryPolicy TableRetryPolicy(const TableDef& table) {
  auto it = table.options.extra.find("speculative_retry");
  if (it == table.options.extra.end()) {
    RetryPolicy policy;
    policy.kind = RetryPolicy::Kind::kPercentile;
    policy.a = {true, 99};
    return policy;
  }
  Result<RetryPolicy> parsed = ParseRetryPolicy(it->second);
  return parsed.ok() ? *parsed : RetryPolicy();
}

std::shared_ptr<ReadLatencies::Table> ReadLatencies::Of(
    const TableDef& table) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Table>& t = tables_[table.id];
  if (t == nullptr) t = std::make_shared<Table>();
  return t;
}

void ReadLatencies::Forget(const Uuid& table_id) {
  std::lock_guard<std::mutex> lock(mu_);
  tables_.erase(table_id);
}

size_t ReadLatencies::TablesKept() {
  std::lock_guard<std::mutex> lock(mu_);
  return tables_.size();
}

RetryPolicy ReadLatencies::PolicyOf(Table& t, const TableDef& table) {
  auto it = table.options.extra.find("speculative_retry");
  const std::string_view text =
      it == table.options.extra.end() ? std::string_view() : it->second;
  std::lock_guard<std::mutex> lock(t.mu);
  if (!t.parsed || t.parsed_text != text) {
    t.policy = TableRetryPolicy(table);
    t.parsed_text = text;
    t.parsed = true;
  }
  return t.policy;
}

void ReadLatencies::Record(const TableDef& table, Clock::duration elapsed) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
  const std::shared_ptr<Table> held = Of(table);
  Table& t = *held;
  t.counts[static_cast<size_t>(LatencyBucket(
               static_cast<uint64_t>(std::max<int64_t>(0, micros))))]
      .fetch_add(1, std::memory_order_relaxed);
  MaybeUpdate(t, PolicyOf(t, table));
}

void ReadLatencies::MaybeUpdate(Table& t, const RetryPolicy& policy) {
  const int64_t now = Clock::now().time_since_epoch().count();
  int64_t next = t.next_update_ns.load(std::memory_order_relaxed);
  if (now < next ||
      !t.next_update_ns.compare_exchange_strong(
          next,
          now + std::chrono::duration_cast<std::chrono::nanoseconds>(
                    update_interval_)
                    .count())) {
    return;  // not due, or another thread updates
  }
  std::array<uint64_t, kBuckets> counts;
  uint64_t total = 0;
  for (int i = 0; i < kBuckets; ++i) {
    const size_t b = static_cast<size_t>(i);
    counts[b] = t.counts[b].load(std::memory_order_relaxed);
    total += counts[b];
  }
  if (total < kMinSamples) return;  // keep what is known
  if (total >= kDecayAt) {
    for (size_t b = 0; b < counts.size(); ++b) {
      t.counts[b].fetch_sub(counts[b] / 2, std::memory_order_relaxed);
    }
  }
  auto percentile = [&](const RetryPolicy::Part& part) -> int64_t {
    if (!part.percentile) return -1;
    return static_cast<int64_t>(
        LatencyAtQuantile(counts, total, part.value / 100.0));
  };
  t.part_a_us.store(percentile(policy.a), std::memory_order_relaxed);
  t.part_b_us.store(percentile(policy.b), std::memory_order_relaxed);
}

std::optional<ReadLatencies::Clock::duration> ReadLatencies::Delay(
    const TableDef& table) {
  const std::shared_ptr<Table> held = Of(table);
  Table& t = *held;
  const RetryPolicy policy = PolicyOf(t, table);
  using std::chrono::microseconds;
  auto delay = [](const RetryPolicy::Part& part,
                  const std::atomic<int64_t>& cached)
      -> std::optional<Clock::duration> {
    if (!part.percentile) {
      return std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double, std::milli>(part.value));
    }
    const int64_t us = cached.load(std::memory_order_relaxed);
    if (us < 0) return std::nullopt;
    return microseconds(us);
  };
  switch (policy.kind) {
    case RetryPolicy::Kind::kNever:
      return std::nullopt;
    case RetryPolicy::Kind::kAlways:
      return Clock::duration::zero();
    case RetryPolicy::Kind::kFixed:
    case RetryPolicy::Kind::kPercentile:
      return delay(policy.a, t.part_a_us);
    case RetryPolicy::Kind::kMin:
    case RetryPolicy::Kind::kMax: {
      auto a = delay(policy.a, t.part_a_us);
      auto b = delay(policy.b, t.part_b_us);
      if (!a) return b;
      if (!b) return a;
      return policy.kind == RetryPolicy::Kind::kMin ? std::min(*a, *b)
                                                    : std::max(*a, *b);
    }
  }
  return std::nullopt;
}

}  // namespace keywise::cluster
