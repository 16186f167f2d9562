// The process figures Prometheus' client libraries export under standard
// names (docs/metrics.md): process_start_time_seconds,
// process_resident_memory_bytes, process_open_fds, process_cpu_seconds_total.
//
// Contract: RegisterProcessMetrics adds gauges (and a counter read the same
// way) read from /proc/self when scraped; on a system without /proc they
// read 0. Thread-safe; call once per registry.
#pragma once

#include "metrics/registry.h"

namespace keywise::metrics {

void RegisterProcessMetrics(Registry* registry);

}  // namespace keywise::metrics
