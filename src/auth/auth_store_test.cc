#include "auth/auth_store.h"

#include <gtest/gtest.h>

#include "auth/login.h"
#include "auth/memory_auth_store.h"
#include "auth/password_hash.h"

namespace keywise::auth {
namespace {

Role Named(std::string name) {
  Role r;
  r.name = std::move(name);
  return r;
}

// A store whose first `conflicts` commits find the state moved on (another
// node's change in between).
class RacyStore final : public AuthStore {
 public:
  explicit RacyStore(int conflicts) : conflicts_(conflicts) {}
  std::shared_ptr<const AuthState> Current() const override {
    return inner_.Current();
  }
  Result<std::shared_ptr<const AuthState>> Commit(
      uint64_t version, const RoleChanges& changes) override {
    if (conflicts_-- > 0) {
      // Someone else's change lands first.
      const std::string other = "other" + std::to_string(conflicts_);
      (void)inner_.Commit(inner_.Current()->version(), {{other, Named(other)}});
    }
    return inner_.Commit(version, changes);
  }
  MemoryAuthStore inner_;
  int conflicts_;
};

TEST(AuthStore, CommitsOnlyAtTheExpectedVersion) {
  MemoryAuthStore store;
  EXPECT_EQ(store.Current()->version(), 0u);
  auto after = store.Commit(0, {{"a", Named("a")}});
  ASSERT_TRUE(after.ok());
  ASSERT_NE(*after, nullptr);
  EXPECT_EQ((*after)->version(), 1u);
  EXPECT_EQ(store.Current()->Find("a")->name, "a");
  auto stale = store.Commit(0, {{"b", Named("b")}});
  ASSERT_TRUE(stale.ok());
  EXPECT_EQ(*stale, nullptr);
  EXPECT_EQ(store.Current()->Find("b"), nullptr);
  ASSERT_NE(*store.Commit(1, {{"a", std::nullopt}}), nullptr);
  EXPECT_TRUE(store.Current()->roles().empty());
}

TEST(AuthStore, ChangeRolesRecomputesFromTheNewerState) {
  RacyStore store(2);
  int computed = 0;
  auto after = ChangeRoles(store, [&](const AuthState& s) -> Result<RoleChanges> {
    ++computed;
    // Sees the roles others added before committing.
    return RoleChanges{{"mine", Named("mine" + std::to_string(s.roles().size()))}};
  });
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(computed, 3);
  EXPECT_EQ((*after)->Find("mine")->name, "mine2");
  EXPECT_EQ((*after)->roles().size(), 3u);
  // Errors of compute are returned, nothing applied.
  auto refused = ChangeRoles(store, [](const AuthState&) -> Result<RoleChanges> {
    return Status::Invalid("mine already exists");
  });
  EXPECT_EQ(refused.status().message(), "mine already exists");
  RacyStore hopeless(100);
  EXPECT_EQ(ChangeRoles(hopeless, [](const AuthState&) -> Result<RoleChanges> {
              return RoleChanges{{"x", Named("x")}};
            }).status().code(),
            ErrorCode::kServerError);
}

TEST(AuthStore, DefaultSuperuserOnceWhenNoRoleExists) {
  MemoryAuthStore store;
  Result<bool> created = EnsureDefaultSuperuser(store, kMinBcryptRounds);
  ASSERT_TRUE(created.ok() && *created);
  const auto state = store.Current();
  const Role* c = state->Find("cassandra");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->superuser);
  EXPECT_TRUE(c->login);
  EXPECT_TRUE(CheckLogin(*state, {"cassandra", "cassandra"},
                         *HashPassword("x", kMinBcryptRounds))
                  .ok());
  created = EnsureDefaultSuperuser(store, kMinBcryptRounds);
  EXPECT_TRUE(created.ok() && !*created);
  EXPECT_EQ(store.Current()->version(), 1u);
}

}  // namespace
}  // namespace keywise::auth
