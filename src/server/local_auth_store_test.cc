// LocalAuthStore over a real node's storage: roles written by commits are
// in system_auth as Cassandra keeps them, and a store opened again after a
// restart reads the same state.
#include "server/local_auth_store.h"

#include <gtest/gtest.h>

#include "auth/password_hash.h"
#include "storage/engine_test_util.h"
#include "system/system_keyspaces.h"

namespace keywise::server {
namespace {

using auth::Permission;
using auth::Role;

class LocalAuthStoreTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    Start();
  }
  void Start() {
    ASSERT_TRUE(
        system::SystemKeyspaces::Install(*engine_, system::LocalNodeInfo())
            .ok());
    processor_ = std::make_unique<query::QueryProcessor>(engine_.get());
    auto opened = LocalAuthStore::Open(processor_.get());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }
  void Restart() {
    store_.reset();
    processor_.reset();
    Reopen();
    Start();
  }
  void TearDown() override {
    store_.reset();
    processor_.reset();
  }
  std::vector<std::string> Rows(const std::string& cql) {
    query::InternalCql cql_(processor_.get());
    auto rows = cql_.Select(cql);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<std::string> out;
    if (!rows.ok()) return out;
    for (const query::CqlRow& row : rows->rows) {
      std::string line;
      for (const char* c : {"role", "member", "resource"}) {
        if (!row.IsNull(c)) line += std::string(line.empty() ? "" : " ") + row.Text(c);
      }
      for (const std::string& p : row.TextSet("permissions")) line += " " + p;
      for (const std::string& m : row.TextSet("member_of")) line += " <" + m;
      if (!row.IsNull("is_superuser")) {
        line += row.Bool("is_superuser") ? " super" : "";
        line += row.Bool("can_login") ? " login" : "";
        line += row.IsNull("salted_hash") ? "" : " hash";
      }
      out.push_back(line);
    }
    return out;
  }
  std::unique_ptr<query::QueryProcessor> processor_;
  std::unique_ptr<LocalAuthStore> store_;
};

TEST_F(LocalAuthStoreTest, RolesLiveInSystemAuthAndSurviveARestart) {
  EXPECT_TRUE(store_->Current()->roles().empty());
  auto created = auth::EnsureDefaultSuperuser(*store_, auth::kMinBcryptRounds);
  ASSERT_TRUE(created.ok() && *created);
  Role reader;
  reader.name = "Reader's";  // quotes and case kept
  reader.permissions["data/ks/t"] = {Permission::kSelect, Permission::kModify};
  Role mike;
  mike.name = "mike";
  mike.login = true;
  mike.salted_hash = *auth::HashPassword("pw", auth::kMinBcryptRounds);
  mike.member_of = {"Reader's"};
  auto after = store_->Commit(store_->Current()->version(),
                              {{"Reader's", reader}, {"mike", mike}});
  ASSERT_TRUE(after.ok() && *after != nullptr);
  EXPECT_EQ(Rows("SELECT * FROM system_auth.roles"),
            (std::vector<std::string>{"Reader's", "cassandra super login hash",
                                      "mike <Reader's login hash"}));
  EXPECT_EQ(Rows("SELECT * FROM system_auth.role_members"),
            (std::vector<std::string>{"Reader's mike"}));
  EXPECT_EQ(Rows("SELECT * FROM system_auth.role_permissions"),
            (std::vector<std::string>{"Reader's data/ks/t MODIFY SELECT"}));
  EXPECT_EQ(Rows("SELECT * FROM system_auth.resource_role_permissons_index"),
            (std::vector<std::string>{"Reader's data/ks/t"}));
  // A stale version commits nothing.
  auto stale = store_->Commit(1, {{"x", Role{}}});
  ASSERT_TRUE(stale.ok());
  EXPECT_EQ(*stale, nullptr);

  // Changing a role replaces its rows; dropping one removes them.
  mike.member_of.clear();
  mike.superuser = true;
  reader.permissions.clear();
  ASSERT_NE(*store_->Commit(store_->Current()->version(),
                            {{"mike", mike}, {"Reader's", reader}}),
            nullptr);
  EXPECT_TRUE(Rows("SELECT * FROM system_auth.role_members").empty());
  EXPECT_TRUE(Rows("SELECT * FROM system_auth.role_permissions").empty());
  ASSERT_NE(*store_->Commit(store_->Current()->version(),
                            {{"Reader's", std::nullopt}}),
            nullptr);
  EXPECT_EQ(Rows("SELECT * FROM system_auth.roles"),
            (std::vector<std::string>{"cassandra super login hash",
                                      "mike super login hash"}));

  const auto before = store_->Current();
  Restart();
  const auto reread = store_->Current();
  EXPECT_EQ(reread->roles(), before->roles());
  EXPECT_FALSE(*auth::EnsureDefaultSuperuser(*store_, auth::kMinBcryptRounds));
}

}  // namespace
}  // namespace keywise::server
