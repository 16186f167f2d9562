#include "bench_tool/bench_options.h"

#include <charconv>

namespace keywise::bench {

std::optional<WorkloadKind> ParseWorkload(std::string_view name) {
  if (name == "write") return WorkloadKind::kWrite;
  if (name == "read") return WorkloadKind::kRead;
  if (name == "scan") return WorkloadKind::kScan;
  if (name == "mixed") return WorkloadKind::kMixed;
  if (name == "timeseries") return WorkloadKind::kTimeseries;
  if (name == "lwt-insert") return WorkloadKind::kLwtInsert;
  if (name == "cas") return WorkloadKind::kCas;
  if (name == "counter") return WorkloadKind::kCounter;
  return std::nullopt;
}

std::string_view WorkloadName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kWrite:
      return "write";
    case WorkloadKind::kRead:
      return "read";
    case WorkloadKind::kScan:
      return "scan";
    case WorkloadKind::kMixed:
      return "mixed";
    case WorkloadKind::kTimeseries:
      return "timeseries";
    case WorkloadKind::kLwtInsert:
      return "lwt-insert";
    case WorkloadKind::kCas:
      return "cas";
    case WorkloadKind::kCounter:
      return "counter";
  }
  return "?";
}

std::optional<std::chrono::nanoseconds> ParseDuration(std::string_view text) {
  double number = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data() || number < 0)
    return std::nullopt;
  std::string_view unit(end, text.data() + text.size() - end);
  double scale;
  if (unit.empty() || unit == "s") {
    scale = 1e9;
  } else if (unit == "ms") {
    scale = 1e6;
  } else if (unit == "us") {
    scale = 1e3;
  } else if (unit == "m") {
    scale = 60e9;
  } else if (unit == "h") {
    scale = 3600e9;
  } else {
    return std::nullopt;
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(number * scale));
}

}  // namespace keywise::bench
