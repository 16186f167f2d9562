// EtcdAuthStore: the roles and permissions of a cluster, kept in etcd
// (docs/security.md, 4) under /keywise-auth/<cluster_name>/: `version`
// (rewritten by every change; its mod_revision is the state's version) and
// `roles/<name>` (one JSON value per role: flags, hash, member_of,
// permissions). Every node holds the whole state in memory:
//
// - a change is one etcd transaction, If ModRevision(version) == the
//   version it was computed from, Then the new version and role keys;
//   the node that made it installs the result at once, so its next
//   statement sees it;
// - other nodes learn of it from a watch of the prefix (milliseconds), and
//   at the latest within `poll` (the version key is read every `poll`,
//   which also covers a watch that stalled or was compacted away);
// - while etcd cannot be reached the node keeps its last state (logins
//   and checks go on) and changes fail with etcd's Unavailable error.
//
// Contract: thread-safe (auth/auth_store.h). Current() never blocks on
// etcd. `on_change` is called with each new state and the one before, in
// version order, one call at a time, from the thread that installed it (a
// committer or the store's refresher); it must not call Commit. The
// etcd client outlives the store; destruction stops the refresher and the
// watch.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "auth/auth_store.h"
#include "cluster/etcd/etcd_client.h"

namespace keywise::cluster {

// One role as etcd holds it, and back (nullopt: not a role value).
std::string EncodeRoleValue(const auth::Role& role);
std::optional<auth::Role> DecodeRoleValue(std::string_view name,
                                          std::string_view json);

class EtcdAuthStore final : public auth::AuthStore {
 public:
  using OnChange = std::function<void(const auth::AuthState& before,
                                      const auth::AuthState& after)>;
  struct Options {
    std::string cluster_name;
    std::chrono::milliseconds poll{2000};  // Cassandra's roles_update_interval
    OnChange on_change;
  };

  // Reads every role, then watches the prefix and starts the refresher.
  static Result<std::unique_ptr<EtcdAuthStore>> Open(EtcdClient* etcd,
                                                     Options options);
  ~EtcdAuthStore() override;

  std::shared_ptr<const auth::AuthState> Current() const override;
  // At most kMaxRolesPerChange roles per change (etcd's 128 operations per
  // transaction); more is Invalid, nothing applied.
  Result<std::shared_ptr<const auth::AuthState>> Commit(
      uint64_t expected_version, const auth::RoleChanges& changes) override;

  // Reads etcd's state now and installs it if it differs.
  Status Reload();
  // When the state was last known to match etcd's.
  std::chrono::steady_clock::time_point confirmed() const {
    return confirmed_.load();
  }

  static constexpr size_t kMaxRolesPerChange = 120;

 private:
  EtcdAuthStore(EtcdClient* etcd, Options options);
  // REQUIRES: install_mu_ held.
  Status ReloadLocked();
  // Installs `next` when it differs from the current state, calling
  // on_change. REQUIRES: install_mu_ held.
  void InstallLocked(std::shared_ptr<const auth::AuthState> next);
  Status StartWatch(int64_t from_revision);
  void Refresher();

  EtcdClient* const etcd_;
  const Options options_;
  const std::string prefix_;       // /keywise-auth/<cluster>/
  const std::string version_key_;  // prefix + "version"
  const std::string roles_prefix_; // prefix + "roles/"

  mutable std::mutex state_mu_;
  std::shared_ptr<const auth::AuthState> state_;  // guarded by state_mu_
  // One etcd read or commit and its install (and on_change) at a time, so
  // states are installed in the order etcd had them.
  std::mutex install_mu_;
  std::atomic<std::chrono::steady_clock::time_point> confirmed_{};
  std::atomic<int64_t> read_revision_{0};  // of the last Reload

  std::mutex refresher_mu_;
  std::condition_variable wake_;
  bool stop_ = false;          // guarded by refresher_mu_
  bool dirty_ = false;         // a watch event came; guarded by refresher_mu_
  bool watch_ended_ = false;   // compacted; guarded by refresher_mu_
  std::unique_ptr<WatchHandle> watch_;  // the refresher's
  std::thread refresher_;
};

}  // namespace keywise::cluster
