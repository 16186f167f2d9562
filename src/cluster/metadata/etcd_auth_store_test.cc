#include "cluster/metadata/etcd_auth_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "auth/password_hash.h"
#include "auth/role_statements.h"
#include "cluster/etcd/fake/fake_etcd_client.h"

namespace keywise::cluster {
namespace {

using namespace std::chrono_literals;

auth::Role MakeRole(std::string name, bool superuser = false) {
  auth::Role r;
  r.name = std::move(name);
  r.superuser = superuser;
  r.login = true;
  r.salted_hash = "$2a$04$abcdefghijklmnopqrstuvABCDEFGHIJKLMNOPQRSTUVWXYZ01234";
  r.member_of = {"readers"};
  r.permissions["data/ks/t"] = {auth::Permission::kSelect,
                                auth::Permission::kModify};
  return r;
}

EtcdAuthStore::Options Quick(std::atomic<int>* changes = nullptr) {
  EtcdAuthStore::Options options;
  options.cluster_name = "c1";
  options.poll = 50ms;
  if (changes != nullptr) {
    options.on_change = [changes](const auth::AuthState&,
                                  const auth::AuthState&) { ++*changes; };
  }
  return options;
}

template <typename F>
bool Eventually(F f) {
  for (int i = 0; i < 200; ++i) {
    if (f()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return f();
}

TEST(EtcdAuthStore, RoleValuesRoundTrip) {
  const auth::Role r = MakeRole("bob", true);
  std::optional<auth::Role> back = DecodeRoleValue("bob", EncodeRoleValue(r));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, r);
  auth::Role bare;
  bare.name = "x";
  EXPECT_EQ(*DecodeRoleValue("x", EncodeRoleValue(bare)), bare);
  EXPECT_FALSE(DecodeRoleValue("x", "not json").has_value());
  EXPECT_FALSE(DecodeRoleValue("x", "[1]").has_value());
}

TEST(EtcdAuthStore, ChangesReachEveryNodeAndConflictsRetry) {
  FakeEtcdClient etcd;
  std::atomic<int> changes_b{0};
  auto a = EtcdAuthStore::Open(&etcd, Quick());
  auto b = EtcdAuthStore::Open(&etcd, Quick(&changes_b));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE((*a)->Current()->roles().empty());
  // The default superuser, created once whoever asks first.
  ASSERT_TRUE(*auth::EnsureDefaultSuperuser(**a, auth::kMinBcryptRounds));
  ASSERT_TRUE(Eventually([&] { return (*b)->Current()->Find("cassandra"); }));
  EXPECT_FALSE(*auth::EnsureDefaultSuperuser(**b, auth::kMinBcryptRounds));
  EXPECT_EQ(changes_b.load(), 1);
  // A commit at an old version is refused (nothing applied) ...
  const uint64_t old = (*a)->Current()->version();
  ASSERT_TRUE((*a)->Commit(old, {{"bob", MakeRole("bob")}}).ok());
  Result<std::shared_ptr<const auth::AuthState>> stale =
      (*b)->Commit(old, {{"eve", MakeRole("eve")}});
  ASSERT_TRUE(stale.ok());
  EXPECT_EQ(*stale, nullptr);
  // ... and the loser has learned the newer state, so ChangeRoles' retry
  // computes from it.
  EXPECT_NE((*b)->Current()->Find("bob"), nullptr);
  ASSERT_TRUE(auth::ChangeRoles(**b, [](const auth::AuthState& s) {
                return Result<auth::RoleChanges>(
                    auth::RoleChanges{{"eve", MakeRole("eve")}});
              }).ok());
  ASSERT_TRUE(Eventually([&] { return (*a)->Current()->Find("eve"); }));
  EXPECT_EQ(*(*a)->Current()->Find("bob"), MakeRole("bob"));
  EXPECT_EQ((*a)->Current()->version(), (*b)->Current()->version());
  // A drop.
  ASSERT_TRUE(auth::ChangeRoles(**a, [](const auth::AuthState&) {
                return Result<auth::RoleChanges>(
                    auth::RoleChanges{{"eve", std::nullopt}});
              }).ok());
  ASSERT_TRUE(Eventually([&] { return !(*b)->Current()->Find("eve"); }));
  // A third node starting now reads everything.
  auto c = EtcdAuthStore::Open(&etcd, Quick());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->Current()->roles().size(), 2u);
  EXPECT_EQ((*c)->Current()->version(), (*a)->Current()->version());
}

TEST(EtcdAuthStore, KeepsItsStateWhileEtcdIsAwayAndCatchesUp) {
  FakeEtcdClient etcd;
  auto a = EtcdAuthStore::Open(&etcd, Quick());
  auto b = EtcdAuthStore::Open(&etcd, Quick());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(*auth::EnsureDefaultSuperuser(**a, auth::kMinBcryptRounds));
  ASSERT_TRUE(Eventually([&] { return (*b)->Current()->Find("cassandra"); }));
  etcd.Disconnect();
  // Changes fail; the state stays.
  Result<std::shared_ptr<const auth::AuthState>> failed =
      (*a)->Commit((*a)->Current()->version(), {{"bob", MakeRole("bob")}});
  EXPECT_FALSE(failed.ok());
  EXPECT_NE((*b)->Current()->Find("cassandra"), nullptr);
  etcd.Reconnect();
  ASSERT_TRUE(
      (*a)->Commit((*a)->Current()->version(), {{"bob", MakeRole("bob")}}).ok());
  ASSERT_TRUE(Eventually([&] { return (*b)->Current()->Find("bob"); }));
}

TEST(EtcdAuthStore, TooManyRolesInOneChangeAreRefused) {
  FakeEtcdClient etcd;
  auto a = EtcdAuthStore::Open(&etcd, Quick());
  ASSERT_TRUE(a.ok());
  auth::RoleChanges many;
  for (size_t i = 0; i <= EtcdAuthStore::kMaxRolesPerChange; ++i) {
    many.emplace("r" + std::to_string(i), MakeRole("r" + std::to_string(i)));
  }
  Result<std::shared_ptr<const auth::AuthState>> r =
      (*a)->Commit((*a)->Current()->version(), many);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalid);
  EXPECT_TRUE((*a)->Current()->roles().empty());
}

TEST(EtcdAuthStore, TheWatchDeliversChangesWithoutThePoll) {
  FakeEtcdClient etcd;
  EtcdAuthStore::Options slow = Quick();
  slow.poll = std::chrono::minutes(10);
  auto a = EtcdAuthStore::Open(&etcd, Quick());
  auto b = EtcdAuthStore::Open(&etcd, slow);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(
      (*a)->Commit((*a)->Current()->version(), {{"bob", MakeRole("bob")}}).ok());
  EXPECT_TRUE(Eventually([&] { return (*b)->Current()->Find("bob"); }));
}

TEST(EtcdAuthStore, FollowsEtcdWhateverItsVersion) {
  FakeEtcdClient etcd;
  std::atomic<int> changes{0};
  auto a = EtcdAuthStore::Open(&etcd, Quick(&changes));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->Commit(0, {{"bob", MakeRole("bob")}}).ok());
  ASSERT_TRUE((*a)->Commit((*a)->Current()->version(),
                           {{"ann", MakeRole("ann")}})
                  .ok());
  EXPECT_EQ(changes.load(), 2);
  // An operator removes the version key and a role (or restores an older
  // etcd): the node follows, even to a lower version.
  ASSERT_TRUE(etcd.Delete(KeyRange::Single("/keywise-auth/c1/version")).ok());
  ASSERT_TRUE(etcd.Delete(KeyRange::Single("/keywise-auth/c1/roles/ann")).ok());
  ASSERT_TRUE((*a)->Reload().ok());
  EXPECT_EQ((*a)->Current()->version(), 0u);
  EXPECT_EQ((*a)->Current()->Find("ann"), nullptr);
  EXPECT_NE((*a)->Current()->Find("bob"), nullptr);
  EXPECT_EQ(changes.load(), 3);
  // An unchanged reread calls nobody.
  ASSERT_TRUE((*a)->Reload().ok());
  EXPECT_EQ(changes.load(), 3);
  // And commits go on from there.
  EXPECT_NE(*(*a)->Commit(0, {{"ann", MakeRole("ann")}}), nullptr);
}

}  // namespace
}  // namespace keywise::cluster
