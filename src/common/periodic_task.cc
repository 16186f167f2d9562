#include "common/periodic_task.h"

#include <utility>

#include "common/log.h"

namespace keywise {

void PeriodicTask::Start(std::string component, std::string what,
                         std::chrono::milliseconds first_wait,
                         std::chrono::milliseconds interval, Task task) {
  thread_ = std::thread([this, component = std::move(component),
                         what = std::move(what), first_wait, interval,
                         task = std::move(task)]() mutable {
    Loop(std::move(component), std::move(what), first_wait, interval,
         std::move(task));
  });
}

void PeriodicTask::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void PeriodicTask::Loop(std::string component, std::string what,
                        std::chrono::milliseconds first_wait,
                        std::chrono::milliseconds interval, Task task) {
  std::unique_lock<std::mutex> lock(mu_);
  std::string last_error;  // logged once while it repeats (etcd away, ...)
  std::chrono::milliseconds wait = first_wait;
  while (!cv_.wait_for(lock, wait, [this] { return stop_; })) {
    lock.unlock();
    bool again = false;
    const Status done = task(&again);
    const std::string error = done.ok() ? "" : done.ToString();
    if (!error.empty() && error != last_error) {
      LogWarn(component, what + ": " + error);
    }
    last_error = error;
    wait = again ? std::chrono::milliseconds(0) : interval;
    lock.lock();
  }
}

}  // namespace keywise
