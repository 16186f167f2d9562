#include "auth/sasl_plain.h"

#include <gtest/gtest.h>

namespace keywise::auth {
namespace {

using namespace std::string_literals;

std::string Error(std::string_view token) {
  Result<Credentials> c = DecodeSaslPlain(token);
  EXPECT_FALSE(c.ok());
  if (c.ok()) return "";
  EXPECT_EQ(c.status().code(), ErrorCode::kBadCredentials);
  return c.status().message();
}

TEST(SaslPlain, ReadsUserAndPasswordFromTheEnd) {
  Result<Credentials> c = DecodeSaslPlain("\0cassandra\0secret"s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->user, "cassandra");
  EXPECT_EQ(c->password, "secret");
  // An authzid is ignored.
  c = DecodeSaslPlain("admin\0bob\0pw"s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->user, "bob");
  EXPECT_EQ(c->password, "pw");
  EXPECT_EQ(EncodeSaslPlain("u", "p"), "\0u\0p"s);
  c = DecodeSaslPlain(EncodeSaslPlain("ünï", "p\xff"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->user, "ünï");
}

TEST(SaslPlain, CassandrasMessages) {
  EXPECT_EQ(Error(""), "Password must not be null");
  EXPECT_EQ(Error("\0user\0"s), "Password must not be null");
  EXPECT_EQ(Error("user\0pw"s), "Authentication ID must not be null");
  EXPECT_EQ(Error("\0\0pw"s), "Authentication ID must not be null");
  EXPECT_EQ(Error("a\0b\0c\0d"s),
            "Credential format error: username or password is empty or "
            "contains NUL(\\0) character");
}

}  // namespace
}  // namespace keywise::auth
