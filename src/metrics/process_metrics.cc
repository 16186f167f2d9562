#include "metrics/process_metrics.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

// User plus system CPU time, from /proc/self/stat (fields 14 and 15, after
// the command name in parentheses, which may hold spaces).
double CpuSeconds() {
  std::ifstream stat("/proc/self/stat");
  std::string line;
  if (!std::getline(stat, line)) return 0;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

void RegisterProcessMetrics(Registry* registry) {
  const double start =
      std::chrono::duration<double>(
          std::chrono::system_clock::now().time_since_epoch())
          .count();
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
