#include "bench_tool/report.h"

#include <fmt/format.h>

namespace keywise::bench {
namespace {

double Ms(uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

double BenchReport::ops_per_sec() const {
  return elapsed_seconds > 0 ? static_cast<double>(stats.ops) / elapsed_seconds
                             : 0;
}

double BenchReport::cpu_per_op_us() const {
  uint64_t n = stats.ops + stats.errors;
  return n > 0 ? cpu_seconds * 1e6 / static_cast<double>(n) : 0;
}

double BenchReport::cpu_share_of_machine() const {
  return elapsed_seconds > 0 ? cpu_seconds / (elapsed_seconds * cpu_count) : 0;
}

std::string FormatText(const BenchOptions& options, const BenchReport& report) {
  const LatencyHistogram& h = report.stats.latency;
  std::string out = fmt::format(
      "keywise bench: {} workload, {} in flight over {} connection(s), {} io "
      "thread(s){}\n",
      WorkloadName(options.workload), options.concurrency, options.connections,
      options.threads,
      options.rate ? fmt::format(", fixed rate {:.0f} ops/s", *options.rate)
                   : std::string(", closed loop"));
  if (report.load_rows > 0) {
    out += fmt::format(
        "  loaded      {} rows in {:.1f} s ({:.0f} rows/s)\n", report.load_rows,
        report.load_seconds,
        report.load_seconds > 0
            ? static_cast<double>(report.load_rows) / report.load_seconds
            : 0.0);
  }
  out += fmt::format("  operations  {} in {:.2f} s: {:.0f} ops/s\n",
                     report.stats.ops, report.elapsed_seconds,
                     report.ops_per_sec());
  out += fmt::format("  errors      {}{}\n", report.stats.errors,
                     report.stats.first_error.empty()
                         ? std::string()
                         : " (first: " + report.stats.first_error + ")");
  if (report.stats.empty_reads > 0) {
    out += fmt::format("  not found   {}\n", report.stats.empty_reads);
  }
  out += fmt::format(
      "  latency ms  p50 {:.3f}  p90 {:.3f}  p99 {:.3f}  p99.9 {:.3f}  max "
      "{:.3f}  "
      "mean {:.3f}\n",
      Ms(h.ValueAtQuantile(0.5)), Ms(h.ValueAtQuantile(0.9)),
      Ms(h.ValueAtQuantile(0.99)), Ms(h.ValueAtQuantile(0.999)), Ms(h.max()),
      h.mean() / 1e6);
  out += fmt::format(
      "  client CPU  {:.2f} s, {:.2f} us/op, {:.1f}% of {} core(s)\n",
      report.cpu_seconds, report.cpu_per_op_us(),
      100 * report.cpu_share_of_machine(), report.cpu_count);
  if (report.hosts.size() > 1) {
    uint64_t total = 0;
    for (uint64_t n : report.sent_per_host) total += n;
    std::string routing = "spread over the hosts";
    if (report.tablet_aware) {
      routing = fmt::format("routed by token and by tablet ({} learned)",
                            report.learned_tablets);
    } else if (report.token_aware) {
      routing = "routed by token";
    }
    out += fmt::format("  requests    {} consistency, {}\n",
                       protocol::ConsistencyName(options.consistency), routing);
    if (report.token_aware) {
      out += fmt::format(
          "  non-replica {} of the measured requests reached a node without "
          "a replica ({:.2f}%)\n",
          report.stats.routed_replies,
          report.stats.ops + report.stats.errors > 0
              ? 100.0 * static_cast<double>(report.stats.routed_replies) /
                    static_cast<double>(report.stats.ops + report.stats.errors)
              : 0.0);
    }
    for (size_t h = 0; h < report.hosts.size(); ++h) {
      const uint64_t n =
          h < report.sent_per_host.size() ? report.sent_per_host[h] : 0;
      out += fmt::format("    {:<15} {:5.1f}%\n", report.hosts[h],
                         total > 0 ? 100.0 * static_cast<double>(n) /
                                         static_cast<double>(total)
                                   : 0.0);
    }
  }
  return out;
}

namespace {

std::string SentPerHostJson(const BenchReport& report) {
  std::string out;
  for (size_t h = 0; h < report.hosts.size(); ++h) {
    if (h > 0) out += ",";
    out += JsonString(report.hosts[h]) + ":" +
           std::to_string(h < report.sent_per_host.size()
                              ? report.sent_per_host[h]
                              : 0);
  }
  return out;
}

}  // namespace

std::string FormatJson(const BenchOptions& options, const BenchReport& report) {
  const LatencyHistogram& h = report.stats.latency;
  return fmt::format(
      "{{\"workload\":{},\"concurrency\":{},\"connections\":{},\"threads\":{},"
      "\"rate\":{},\"ops\":{},\"elapsed_s\":{:.3f},\"ops_per_sec\":{:.1f},"
      "\"errors\":{},\"not_found\":{},\"rows\":{},\"p50_ms\":{:.4f},"
      "\"p90_ms\":{:.4f},\"p99_ms\":{:.4f},\"p999_ms\":{:.4f},\"max_ms\":{:.4f}"
      ","
      "\"mean_ms\":{:.4f},\"cpu_seconds\":{:.6f},\"cpu_per_op_us\":{:.3f},"
      "\"cpu_share_of_machine\":{:.4f},\"cpu_count\":{},\"load_rows\":{},"
      "\"load_seconds\":{:.3f},\"consistency\":{},\"token_aware\":{},"
      "\"tablet_aware\":{},\"learned_tablets\":{},\"routed_replies\":{},"
      "\"sent_per_host\":{{{}}},\"first_error\":{}}}",
      JsonString(WorkloadName(options.workload)), options.concurrency,
      options.connections, options.threads,
      options.rate ? fmt::format("{:.1f}", *options.rate) : std::string("null"),
      report.stats.ops, report.elapsed_seconds, report.ops_per_sec(),
      report.stats.errors, report.stats.empty_reads, report.stats.rows,
      Ms(h.ValueAtQuantile(0.5)), Ms(h.ValueAtQuantile(0.9)),
      Ms(h.ValueAtQuantile(0.99)), Ms(h.ValueAtQuantile(0.999)), Ms(h.max()),
      h.mean() / 1e6, report.cpu_seconds, report.cpu_per_op_us(),
      report.cpu_share_of_machine(), report.cpu_count, report.load_rows,
      report.load_seconds,
      JsonString(protocol::ConsistencyName(options.consistency)),
      report.token_aware ? "true" : "false",
      report.tablet_aware ? "true" : "false", report.learned_tablets,
      report.stats.routed_replies, SentPerHostJson(report),
      JsonString(report.stats.first_error));
}

std::string FormatProgress(double at_seconds, double interval_seconds,
                           const PhaseStats& interval) {
  double rate = interval_seconds > 0
                    ? static_cast<double>(interval.ops) / interval_seconds
                    : 0.0;
  return fmt::format(
      "{:6.1f}s {:10.0f} ops/s  p50 {:7.3f} ms  p99 {:7.3f} ms  errors {}",
      at_seconds, rate, Ms(interval.latency.ValueAtQuantile(0.5)),
      Ms(interval.latency.ValueAtQuantile(0.99)), interval.errors);
}

}  // namespace keywise::bench
