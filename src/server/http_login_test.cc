#include "server/http_login.h"

#include <gtest/gtest.h>

#include "auth/memory_auth_store.h"
#include "auth/password_hash.h"

namespace keywise::server {
namespace {

TEST(HttpLogin, ParsesBasicCredentials) {
  // "cassandra:cassandra", "a:b:c" (a colon in the password), "u:"
  std::optional<auth::Credentials> c =
      ParseBasicAuthorization("Basic Y2Fzc2FuZHJhOmNhc3NhbmRyYQ==");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->user, "cassandra");
  EXPECT_EQ(c->password, "cassandra");
  c = ParseBasicAuthorization("basic  YTpiOmM=");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->user, "a");
  EXPECT_EQ(c->password, "b:c");
  c = ParseBasicAuthorization("BASIC dTo=");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->user, "u");
  EXPECT_EQ(c->password, "");
  for (const char* bad : {"", "Bearer abc", "Basic", "Basic ===", "Basic YWJj",
                          "Basic !!!!", "Basic YQ"}) {
    EXPECT_FALSE(ParseBasicAuthorization(bad).has_value()) << bad;
  }
}

class HttpLoginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(auth::EnsureDefaultSuperuser(store_, auth::kMinBcryptRounds)
                    .ok());
    auth::Role bob;
    bob.name = "bob";
    bob.login = true;
    bob.salted_hash = *auth::HashPassword("pw", auth::kMinBcryptRounds);
    ASSERT_TRUE(store_.Commit(store_.Current()->version(), {{"bob", bob}}).ok());
  }
  auth::MemoryAuthStore store_;
  std::string dummy_ = *auth::HashPassword("x", auth::kMinBcryptRounds);
};

TEST_F(HttpLoginTest, LoginsAndTheConsolesSuperuserRule) {
  HttpLogin login(&store_, dummy_, /*superuser_for_console=*/true);
  const std::string root = "Basic Y2Fzc2FuZHJhOmNhc3NhbmRyYQ==";
  const std::string bob = "Basic Ym9iOnB3";     // bob:pw
  const std::string wrong = "Basic Ym9iOnB4";   // bob:px
  EXPECT_EQ(login.Check(root, true, "a").status, 200);
  EXPECT_EQ(login.Check(root, false, "a").status, 200);
  EXPECT_EQ(login.Check(bob, false, "a").status, 200);
  HttpLogin::Outcome console = login.Check(bob, true, "a");
  EXPECT_EQ(console.status, 403);
  EXPECT_NE(console.message.find("not a superuser"), std::string::npos);
  HttpLogin::Outcome bad = login.Check(wrong, false, "a");
  EXPECT_EQ(bad.status, 401);
  EXPECT_EQ(bad.message,
            "Provided username bob and/or password are incorrect");
  EXPECT_EQ(login.Check("", false, "a").status, 401);
  // Without CassandraAuthorizer any login role reads the console.
  HttpLogin open(&store_, dummy_, false);
  EXPECT_EQ(open.Check(bob, true, "a").status, 200);
}

TEST_F(HttpLoginTest, ARoleStateChangeForgetsRememberedLogins) {
  HttpLogin login(&store_, dummy_, false);
  const std::string bob = "Basic Ym9iOnB3";
  ASSERT_EQ(login.Check(bob, false, "a").status, 200);
  ASSERT_EQ(login.Check(bob, false, "a").status, 200);  // remembered
  auth::Role changed = *store_.Current()->Find("bob");
  changed.salted_hash = *auth::HashPassword("new", auth::kMinBcryptRounds);
  ASSERT_TRUE(
      store_.Commit(store_.Current()->version(), {{"bob", changed}}).ok());
  EXPECT_EQ(login.Check(bob, false, "a").status, 401);
}

TEST_F(HttpLoginTest, GuessesFromOneAddressAreRefusedWithoutAnyCheck) {
  HttpLogin login(&store_, dummy_, false);
  const std::string wrong = "Basic Ym9iOnB4";  // bob:px
  for (int i = 0; i < auth::FailedLogins::kFreeFailures; ++i) {
    ASSERT_EQ(login.Check(wrong, false, "10.0.0.1").status, 401) << i;
  }
  HttpLogin::Outcome refused = login.Check(wrong, false, "10.0.0.1");
  EXPECT_EQ(refused.status, 429);
  EXPECT_NE(refused.message.find("Too many failed logins"), std::string::npos);
  // Even the right password waits for the window; other addresses do not.
  EXPECT_EQ(login.Check("Basic Ym9iOnB3", false, "10.0.0.1").status, 429);
  EXPECT_EQ(login.Check("Basic Ym9iOnB3", false, "10.0.0.2").status, 200);
}

}  // namespace
}  // namespace keywise::server
