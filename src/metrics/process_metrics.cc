#include "metrics/process_metrics.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace keywise::metrics {
namespace {

double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return static_cast<double>(resident) *
         static_cast<double>(sysconf(_SC_PAGESIZE));
}

double OpenFds() {
  std::error_code ec;
  double n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

// Field `n` (1-based, as proc(5) numbers them; n >= 3) of /proc/self/stat,
// read after the command name in parentheses, which may hold spaces; 0
// when absent.
uint64_t StatField(int n) {
  std::ifstream stat("/proc/self/stat");
  std::string line;
  if (!std::getline(stat, line)) return 0;
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 > line.size()) return 0;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  for (int i = 3; fields >> field; ++i) {
    if (i != n) continue;
    try {
      return std::stoull(field);
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

double Ticks(uint64_t ticks) {
  return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// User plus system CPU time (fields 14 and 15).
double CpuSeconds() { return Ticks(StatField(14) + StatField(15)); }

// When the process started: the boot time (btime in /proc/stat) plus its
// start in ticks after boot (field 22); now when either is missing.
double StartTime() {
  std::ifstream stat("/proc/stat");
  std::string key;
  uint64_t boot = 0;
  while (stat >> key) {
    if (key == "btime") {
      stat >> boot;
      break;
    }
    stat.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  const uint64_t started = StatField(22);
  if (boot == 0 || started == 0) {
    return std::chrono::duration<double>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  return static_cast<double>(boot) + Ticks(started);
}

}  // namespace

void RegisterProcessMetrics(Registry* registry) {
  const double start = StartTime();
  registry->SetGauge("process_start_time_seconds",
                     "When the process started, in seconds since the epoch.",
                     {}, [start] { return start; });
  registry->SetGauge("process_resident_memory_bytes",
                     "Resident memory of the process.", {}, ResidentBytes);
  registry->SetGauge("process_open_fds", "Open file descriptors.", {},
                     OpenFds);
  registry->AddCollector([](TextWriter& out) {
    out.Family("process_cpu_seconds_total",
               "User and system CPU time the process used.",
               MetricType::kCounter);
    out.Sample({}, CpuSeconds());
  });
}

}  // namespace keywise::metrics
