#include "cluster/coordinator/request_fence.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace keywise::cluster {
namespace {

// Releases its revision's hold when destroyed.
template <typename State>
struct Hold {
  Hold(std::shared_ptr<State> s, int64_t r)
      : state(std::move(s)), revision(r) {}
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;
  std::shared_ptr<State> state;
  int64_t revision;
  ~Hold() {
    std::lock_guard<std::mutex> lock(state->mu);
    auto it = state->holders.find(revision);
    if (--it->second == 0) {
      state->holders.erase(it);
      state->cv.notify_all();
    }
  }
};

}  // namespace

std::pair<ClusterViewPtr, RequestFence::Ticket> RequestFence::Acquire() const {
  return AcquireAt(INT64_MAX);
}

std::pair<ClusterViewPtr, RequestFence::Ticket> RequestFence::AcquireAt(
    int64_t revision) const {
  ClusterViewPtr view;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    view = state_->current;
    revision = std::min(revision, view->revision);
    ++state_->holders[revision];
  }
  Ticket ticket = std::make_shared<Hold<State>>(state_, revision);
  return {std::move(view), std::move(ticket)};
}

void RequestFence::Publish(ClusterViewPtr view) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (view->revision < state_->current->revision) return;
  state_->current = std::move(view);
  state_->cv.notify_all();
}

bool RequestFence::Wait(int64_t revision,
                        std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(state_->mu);
  return state_->cv.wait_until(lock, deadline, [&] {
    return state_->current->revision >= revision &&
           (state_->holders.empty() ||
            state_->holders.begin()->first >= revision);
  });
}

void RequestFence::Raise(int64_t revision) {
  int64_t now = state_->raised.load();
  while (now < revision &&
         !state_->raised.compare_exchange_weak(now, revision)) {
  }
}

ClusterViewPtr RequestFence::WaitForView(
    int64_t revision, std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(state_->mu);
  if (!state_->cv.wait_until(lock, deadline, [&] {
        return state_->current->revision >= revision;
      })) {
    return nullptr;
  }
  return state_->current;
}

}  // namespace keywise::cluster
