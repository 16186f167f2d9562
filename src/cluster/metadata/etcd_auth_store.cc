#include "cluster/metadata/etcd_auth_store.h"

#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth/memory_auth_store.h"
#include "common/log.h"

namespace keywise::cluster {
namespace {

using nlohmann::json;

constexpr std::string_view kAuthLog = "auth";

}  // namespace

std::string EncodeRoleValue(const auth::Role& role) {
  json out;
  out["superuser"] = role.superuser;
  out["login"] = role.login;
  if (role.salted_hash) out["hash"] = *role.salted_hash;
  out["member_of"] = role.member_of;
  json permissions = json::object();
  for (const auto& [resource, set] : role.permissions) {
    if (!set.empty()) permissions[resource] = set.Names();
  }
  out["permissions"] = std::move(permissions);
  return out.dump();
}

std::optional<auth::Role> DecodeRoleValue(std::string_view name,
                                          std::string_view text) {
  json in = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!in.is_object()) return std::nullopt;
  auth::Role role;
  role.name = std::string(name);
  auto boolean = [&](const char* key) {
    auto it = in.find(key);
    return it != in.end() && it->is_boolean() && it->get<bool>();
  };
  role.superuser = boolean("superuser");
  role.login = boolean("login");
  if (auto it = in.find("hash"); it != in.end() && it->is_string()) {
    role.salted_hash = it->get<std::string>();
  }
  if (auto it = in.find("member_of"); it != in.end() && it->is_array()) {
    for (const json& m : *it) {
      if (m.is_string()) role.member_of.insert(m.get<std::string>());
    }
  }
  if (auto it = in.find("permissions"); it != in.end() && it->is_object()) {
    for (const auto& [resource, names] : it->items()) {
      if (!names.is_array()) continue;
      auth::PermissionSet set;
      for (const json& n : names) {
        if (!n.is_string()) continue;
        if (auto p = auth::PermissionOfName(n.get<std::string>())) set.Add(*p);
      }
      if (!set.empty()) role.permissions[resource] = set;
    }
  }
  return role;
}

EtcdAuthStore::EtcdAuthStore(EtcdClient* etcd, Options options)
    : etcd_(etcd),
      options_(std::move(options)),
      prefix_("/keywise-auth/" + options_.cluster_name + "/"),
      version_key_(prefix_ + "version"),
      roles_prefix_(prefix_ + "roles/"),
      state_(std::make_shared<const auth::AuthState>()) {}

Result<std::unique_ptr<EtcdAuthStore>> EtcdAuthStore::Open(EtcdClient* etcd,
                                                           Options options) {
  std::unique_ptr<EtcdAuthStore> store(
      new EtcdAuthStore(etcd, std::move(options)));
  KW_RETURN_IF_ERROR(store->Reload());
  // From the revision that read saw: nothing between is missed.
  KW_RETURN_IF_ERROR(store->StartWatch(store->read_revision_ + 1));
  store->refresher_ = std::thread([s = store.get()] { s->Refresher(); });
  return store;
}

EtcdAuthStore::~EtcdAuthStore() {
  {
    std::lock_guard lock(refresher_mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (refresher_.joinable()) refresher_.join();
  watch_.reset();
}

std::shared_ptr<const auth::AuthState> EtcdAuthStore::Current() const {
  std::lock_guard lock(state_mu_);
  return state_;
}

Status EtcdAuthStore::Reload() {
  std::lock_guard install(install_mu_);
  return ReloadLocked();
}

Status EtcdAuthStore::ReloadLocked() {
  KW_ASSIGN_OR_RETURN(RangeResult read,
                      etcd_->Range(KeyRange::Prefix(prefix_), {}));
  std::map<std::string, auth::Role, std::less<>> roles;
  uint64_t version = 0;
  for (const KeyValue& kv : read.kvs) {
    if (kv.key == version_key_) {
      version = static_cast<uint64_t>(kv.mod_revision);
      continue;
    }
    if (!kv.key.starts_with(roles_prefix_)) continue;
    const std::string name = kv.key.substr(roles_prefix_.size());
    std::optional<auth::Role> role = DecodeRoleValue(name, kv.value);
    if (!role) {
      LogError(kAuthLog, "Ignoring a malformed role value in etcd: " + kv.key);
      continue;
    }
    roles.emplace(name, std::move(*role));
  }
  read_revision_ = read.revision;
  // What etcd holds now, whatever it was before (a restored etcd may hold
  // an older version): reads and commits are serialized by install_mu_,
  // so no older read can come after a newer one.
  InstallLocked(
      std::make_shared<const auth::AuthState>(std::move(roles), version));
  confirmed_.store(std::chrono::steady_clock::now());
  return Status::OK();
}

void EtcdAuthStore::InstallLocked(std::shared_ptr<const auth::AuthState> next) {
  std::shared_ptr<const auth::AuthState> before = Current();
  if (next->version() == before->version() &&
      next->roles() == before->roles()) {
    return;
  }
  {
    std::lock_guard lock(state_mu_);
    state_ = next;
  }
  if (options_.on_change) options_.on_change(*before, *next);
}

Result<std::shared_ptr<const auth::AuthState>> EtcdAuthStore::Commit(
    uint64_t expected_version, const auth::RoleChanges& changes) {
  if (changes.size() > kMaxRolesPerChange) {
    return Status::Invalid("A role change may touch at most " +
                           std::to_string(kMaxRolesPerChange) +
                           " roles in a cluster (etcd's transaction limit); "
                           "this one touches " +
                           std::to_string(changes.size()));
  }
  std::lock_guard install(install_mu_);
  const std::shared_ptr<const auth::AuthState> before = Current();
  if (before->version() != expected_version) {
    return std::shared_ptr<const auth::AuthState>();
  }
  std::vector<TxnOp> ops;
  ops.push_back(TxnOp::Put(version_key_, "{}"));
  for (const auto& [name, role] : changes) {
    if (role) {
      ops.push_back(TxnOp::Put(roles_prefix_ + name, EncodeRoleValue(*role)));
    } else {
      ops.push_back(TxnOp::Delete(KeyRange::Single(roles_prefix_ + name)));
    }
  }
  KW_ASSIGN_OR_RETURN(
      TxnResult result,
      etcd_->Txn({Compare::ModRevision(version_key_, CompareOp::kEqual,
                                       static_cast<int64_t>(expected_version))},
                 ops, {}));
  if (!result.succeeded) {
    // Another node changed the roles first: learn its state now, so the
    // caller's retry computes from it.
    KW_RETURN_IF_ERROR(ReloadLocked());
    return std::shared_ptr<const auth::AuthState>();
  }
  // The transaction wrote the version key: its mod_revision is the
  // transaction's revision.
  std::shared_ptr<const auth::AuthState> after = auth::ApplyChanges(
      *before, changes, static_cast<uint64_t>(result.revision));
  InstallLocked(after);
  confirmed_.store(std::chrono::steady_clock::now());
  return after;
}

Status EtcdAuthStore::StartWatch(int64_t from_revision) {
  KW_ASSIGN_OR_RETURN(
      watch_, etcd_->Watch(KeyRange::Prefix(prefix_), from_revision,
                           [this](WatchUpdate update) {
                             std::lock_guard lock(refresher_mu_);
                             if (update.kind == WatchUpdateKind::kEvents ||
                                 update.kind == WatchUpdateKind::kResumed) {
                               dirty_ = true;
                             } else if (update.kind ==
                                        WatchUpdateKind::kCompacted) {
                               watch_ended_ = true;
                             } else {
                               return;
                             }
                             wake_.notify_all();
                           }));
  return Status::OK();
}

void EtcdAuthStore::Refresher() {
  auto last_warning = std::chrono::steady_clock::now();
  bool rewatch = false;  // the watch ended and is not running again yet
  while (true) {
    bool dirty = false;
    {
      std::unique_lock lock(refresher_mu_);
      wake_.wait_for(lock, options_.poll,
                     [&] { return stop_ || dirty_ || watch_ended_; });
      if (stop_) return;
      dirty = std::exchange(dirty_, false);
      rewatch = std::exchange(watch_ended_, false) || rewatch;
    }
    Status status;
    const bool ended = rewatch;
    if (rewatch) {
      // Retried at the next poll when it fails: never a busy loop.
      watch_.reset();
      Result<RangeResult> head = etcd_->Range(KeyRange::Single(version_key_), {});
      status = head.ok() ? StartWatch(head->revision + 1) : head.status();
      rewatch = !status.ok();
    }
    if (status.ok() && !dirty) {
      // The poll: the version key only, unless it moved.
      Result<RangeResult> version = etcd_->Get(version_key_);
      if (version.ok()) {
        const uint64_t now = version->kvs.empty()
                                 ? 0
                                 : static_cast<uint64_t>(
                                       version->kvs.front().mod_revision);
        if (now == Current()->version()) {
          confirmed_.store(std::chrono::steady_clock::now());
          continue;
        }
        dirty = true;
      } else {
        status = version.status();
      }
    }
    if (status.ok() && (dirty || ended)) status = Reload();
    if (!status.ok()) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_warning >= std::chrono::minutes(1)) {
        last_warning = now;
        LogWarn(kAuthLog,
                "Role state not confirmed for " +
                    std::to_string(std::chrono::duration_cast<
                                       std::chrono::seconds>(now - confirmed())
                                       .count()) +
                    " s: " + status.message());
      }
    }
  }
}

}  // namespace keywise::cluster
