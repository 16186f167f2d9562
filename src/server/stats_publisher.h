// StatsPublisher: a node's workload statistics made readable through CQL.
// Every `period` it writes the partitions read and written most
// (advisor/workload_stats.h) into system_views.top_partitions
// (system/top_partitions_table.h), from construction until destruction.
//
// Contract: the engine and the statistics outlive the publisher; the
// destructor stops the thread and waits for it. A failed write is logged
// once and retried at the next period.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "advisor/workload_stats.h"
#include "storage/engine.h"
#include "system/top_partitions_table.h"

namespace keywise::server {

class StatsPublisher {
 public:
  StatsPublisher(Engine* engine, const advisor::WorkloadStats* stats,
                 std::chrono::milliseconds period);
  ~StatsPublisher();
  StatsPublisher(const StatsPublisher&) = delete;
  StatsPublisher& operator=(const StatsPublisher&) = delete;

 private:
  void Loop();

  system::TopPartitionsTable table_;
  const advisor::WorkloadStats* const stats_;
  const std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace keywise::server
