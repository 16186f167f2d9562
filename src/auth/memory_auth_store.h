// MemoryAuthStore: an AuthStore that keeps the state in memory only, for
// tests of what uses a store, and the reference the persistent stores are
// checked against.
//
// Contract: thread-safe.
#pragma once

#include <mutex>

#include "auth/auth_store.h"

namespace keywise::auth {

// `state` with `changes` applied, at `version` (0: the next one).
std::shared_ptr<const AuthState> ApplyChanges(const AuthState& state,
                                              const RoleChanges& changes,
                                              uint64_t version = 0);

class MemoryAuthStore final : public AuthStore {
 public:
  MemoryAuthStore() : state_(std::make_shared<const AuthState>()) {}
  std::shared_ptr<const AuthState> Current() const override;
  Result<std::shared_ptr<const AuthState>> Commit(
      uint64_t expected_version, const RoleChanges& changes) override;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const AuthState> state_;
};

}  // namespace keywise::auth
