// LoadReporter: writes this node's load report (tablet_load.h) to etcd
// every `interval`, under the node's membership lease (a node that is gone
// stops counting), from the coordinator's LoadSampler window and its
// storage's size estimates; and ReadLoadReports, which reads every node's.
//
// Contract: Start reports on an internal thread until Stop; ReportOnce
// reports on the caller's thread (tests). No report while the node has no
// lease (etcd away): the window goes on until the next report.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <vector>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/coordinator/coordinator.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/tablets/tablet_load.h"
#include "common/periodic_task.h"

namespace keywise::cluster {

struct LoadReportOptions {
  std::chrono::milliseconds interval{10000};
  // Tablets at least this big get their size median in the report (the
  // split size: where a size split would cut).
  uint64_t size_median_from_bytes = UINT64_MAX;
};

class LoadReporter {
 public:
  using LeaseFn = std::function<LeaseId()>;

  // Everything must outlive the reporter.
  LoadReporter(EtcdClient* etcd, ClusterKeys keys, Coordinator* coordinator,
               LeaseFn lease, LoadReportOptions options);
  ~LoadReporter();

  void Start();
  void Stop();
  Status ReportOnce();
  // The last report written (empty before the first); thread-safe.
  LoadReport last_report() const;

 private:

  EtcdClient* const etcd_;
  const ClusterKeys keys_;
  Coordinator* const coordinator_;
  const LeaseFn lease_;
  const LoadReportOptions options_;
  std::chrono::steady_clock::time_point window_start_;  // ReportOnce only

  mutable std::mutex last_mu_;
  LoadReport last_;  // guarded by last_mu_

  PeriodicTask reports_;
};

// Every node's latest report (reports that do not decode are skipped with
// a warning).
Result<std::vector<LoadReport>> ReadLoadReports(EtcdClient* etcd,
                                                const ClusterKeys& keys);

}  // namespace keywise::cluster
