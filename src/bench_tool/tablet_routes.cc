#include "bench_tool/tablet_routes.h"

#include <mutex>

namespace keywise::bench {

TabletRoutes::TabletRoutes(std::vector<Uuid> host_ids)
    : host_ids_(std::move(host_ids)) {}

void TabletRoutes::Learn(const protocol::TabletRoute& route) {
  if (route.first_token >= route.last_token) return;
  Tablet tablet{route.first_token, {}};
  for (const Uuid& replica : route.replicas) {
    for (size_t h = 0; h < host_ids_.size(); ++h) {
      if (host_ids_[h] == replica) tablet.hosts.push_back(static_cast<int>(h));
    }
  }
  std::unique_lock lock(mu_);
  // Known tablets are disjoint and keyed by last token: those overlapping
  // (first, last] are the run starting at the first one ending after
  // `first` and beginning before `last`.
  auto it = by_last_token_.upper_bound(route.first_token);
  while (it != by_last_token_.end() &&
         it->second.first_token < route.last_token) {
    it = by_last_token_.erase(it);
  }
  by_last_token_.emplace(route.last_token, std::move(tablet));
}

int TabletRoutes::ReplicaOf(Token token, uint64_t pick) const {
  std::shared_lock lock(mu_);
  auto it = by_last_token_.lower_bound(token.value);
  if (it == by_last_token_.end() || it->second.first_token >= token.value ||
      it->second.hosts.empty()) {
    return -1;
  }
  const std::vector<int>& hosts = it->second.hosts;
  return hosts[pick % hosts.size()];
}

size_t TabletRoutes::size() const {
  std::shared_lock lock(mu_);
  return by_last_token_.size();
}

}  // namespace keywise::bench
