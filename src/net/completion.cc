#include "net/completion.h"

namespace keywise::net {

void Completion::Notify() {
  std::lock_guard<std::mutex> lock(mu_);
  if (done_) return;
  done_ = true;
  if (fiber_ != nullptr) {
    fiber_->Wake(token_);
  } else {
    cv_.notify_all();
  }
}

bool Completion::WaitUntil(Clock::time_point deadline) {
  Fiber* self = Fiber::Current();
  if (self == nullptr) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_until(lock, deadline, [this] { return done_; });
  }
  uint64_t token = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return true;
    token = self->BeginWait();
    fiber_ = self->Shared();
    token_ = token;
  }
  self->Suspend(token, deadline);
  std::lock_guard<std::mutex> lock(mu_);
  fiber_ = nullptr;
  return done_;
}

bool Completion::done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

}  // namespace keywise::net
