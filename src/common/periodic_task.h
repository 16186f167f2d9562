// PeriodicTask: a background thread that runs a task, waits an interval,
// and runs it again until stopped (the balancer's rounds, load reports,
// the leftover cleanup). A failing task is logged once while its error
// repeats, not on every run.
//
// Contract: Start once; Stop (also run by the destructor) wakes the wait,
// lets a run in progress finish and joins. The task runs on the thread
// only, never concurrently with itself.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"

namespace keywise {

class PeriodicTask {
 public:
  // Returns the run's outcome; sets *again to run again at once instead
  // of waiting (more work is known to be waiting).
  using Task = std::function<Status(bool* again)>;

  PeriodicTask() = default;
  ~PeriodicTask() { Stop(); }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  // Runs `task` first after `first_wait`, then every `interval`; errors
  // are logged under `component` as "<what>: <error>".
  void Start(std::string component, std::string what,
             std::chrono::milliseconds first_wait,
             std::chrono::milliseconds interval, Task task);
  void Stop();

 private:
  void Loop(std::string component, std::string what,
            std::chrono::milliseconds first_wait,
            std::chrono::milliseconds interval, Task task);

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace keywise
