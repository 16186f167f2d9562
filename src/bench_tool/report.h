// BenchReport: the figures of one `keywise bench` run, and their text and
// JSON renderings.
//
// Contract: plain data and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_tool/bench_options.h"
#include "bench_tool/driver.h"

namespace keywise::bench {

struct BenchReport {
  PhaseStats stats;
  double elapsed_seconds = 0;
  double cpu_seconds = 0;  // user + system of the bench process
  int cpu_count = 1;
  uint64_t load_rows = 0;
  double load_seconds = 0;
  // The hosts requests went to, and how many each got (load and run), and
  // whether they were routed by token, and by learned tablets (how many
  // were known at the end).
  std::vector<std::string> hosts;
  std::vector<uint64_t> sent_per_host;
  bool token_aware = false;
  bool tablet_aware = false;
  size_t learned_tablets = 0;

  double ops_per_sec() const;
  double cpu_per_op_us() const;
  // Bench CPU over the wall time of all cores: 0.5 = half the machine.
  double cpu_share_of_machine() const;
};

std::string FormatText(const BenchOptions& options, const BenchReport& report);
// One JSON object on one line.
std::string FormatJson(const BenchOptions& options, const BenchReport& report);
// "   3s  123456 ops/s  p50 0.512 ms  p99 1.234 ms  errors 0"
std::string FormatProgress(double at_seconds, double interval_seconds,
                           const PhaseStats& interval);

}  // namespace keywise::bench
