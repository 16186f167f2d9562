#include "cluster/etcd/lease_keeper.h"

#include <algorithm>
#include <string>
#include <utility>

#include "cluster/etcd/etcd_error.h"

namespace keywise::cluster {

using SteadyClock = std::chrono::steady_clock;

Result<std::unique_ptr<LeaseKeeper>> LeaseKeeper::Start(
    EtcdClient* client, std::chrono::seconds ttl, LostCallback on_lost) {
  KW_ASSIGN_OR_RETURN(const Lease lease, client->GrantLease(ttl));
  std::unique_ptr<LeaseKeeper> keeper(
      new LeaseKeeper(client, lease, std::move(on_lost)));
  keeper->thread_ = std::thread([k = keeper.get()] { k->Run(); });
  return keeper;
}

LeaseKeeper::LeaseKeeper(EtcdClient* client, Lease lease, LostCallback on_lost)
    : client_(client), lease_(lease), on_lost_(std::move(on_lost)) {}

LeaseKeeper::~LeaseKeeper() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (!lost_.load()) {
    // Best effort: an unreachable etcd lets the lease expire by itself.
    (void)client_->RevokeLease(lease_.id);
  }
}

bool LeaseKeeper::WaitUntil(SteadyClock::time_point until) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_until(lock, until, [this] { return stop_; });
}

void LeaseKeeper::Run() {
  using std::chrono::milliseconds;
  const auto ttl = std::chrono::duration_cast<milliseconds>(lease_.ttl);
  const milliseconds interval = ttl / 3;
  const milliseconds retry = std::max(ttl / 10, milliseconds(100));
  auto last_renewal = SteadyClock::now();
  auto next = last_renewal + interval;
  Status why;
  while (WaitUntil(next)) {
    const auto renewed = client_->KeepAliveOnce(lease_.id);
    const auto now = SteadyClock::now();
    if (renewed.ok() && renewed->count() > 0) {
      last_renewal = now;
      next = now + interval;
      continue;
    }
    if (renewed.ok() || IsLeaseNotFound(renewed.status())) {
      why = Status(ErrorCode::kUnavailable,
                   "etcd: lease " +
                       std::to_string(static_cast<int64_t>(lease_.id)) +
                       " expired or was revoked");
      break;
    }
    if (now - last_renewal >= ttl) {
      why = Status(
          ErrorCode::kUnavailable,
          "etcd: lease " + std::to_string(static_cast<int64_t>(lease_.id)) +
              " not renewed for its whole TTL: " + renewed.status().message());
      break;
    }
    next = now + retry;
  }
  if (why.ok()) return;  // stopped
  lost_.store(true);
  if (on_lost_) on_lost_(why);
}

}  // namespace keywise::cluster
