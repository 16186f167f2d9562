#include "server/stats_publisher.h"

#include "common/log.h"

namespace keywise::server {

StatsPublisher::StatsPublisher(Engine* engine,
                               const advisor::WorkloadStats* stats,
                               std::chrono::milliseconds period)
    : table_(engine), stats_(stats), period_(period) {
  thread_ = std::thread([this] { Loop(); });
}

StatsPublisher::~StatsPublisher() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void StatsPublisher::Loop() {
  bool failing = false;
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, period_, [this] { return stop_; })) {
    lock.unlock();
    const Status st = table_.Publish(stats_->Top());
    if (!st.ok() && !failing) {
      LogWarn("advisor", "Cannot write system_views.top_partitions: " +
                             st.ToString());
    }
    failing = !st.ok();
    lock.lock();
  }
}

}  // namespace keywise::server
