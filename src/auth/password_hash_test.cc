#include "auth/password_hash.h"

#include <gtest/gtest.h>

namespace keywise::auth {
namespace {

TEST(PasswordHash, RoundTripInCassandrasFormat) {
  Result<std::string> h = HashPassword("cassandra", kMinBcryptRounds);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->size(), 60u);
  EXPECT_EQ(h->substr(0, 7), "$2a$04$");
  EXPECT_EQ(CheckPassword("cassandra", *h), PasswordCheck::kMatch);
  EXPECT_EQ(CheckPassword("Cassandra", *h), PasswordCheck::kMismatch);
  EXPECT_EQ(CheckPassword("", *h), PasswordCheck::kMismatch);
  // A new salt each time.
  EXPECT_NE(*HashPassword("cassandra", kMinBcryptRounds), *h);
}

TEST(PasswordHash, ChecksJBCryptHashes) {
  // jBCrypt's test vector for the empty password (Cassandra's library).
  EXPECT_EQ(CheckPassword("",
                          "$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s."),
            PasswordCheck::kMatch);
}

TEST(PasswordHash, MalformedStoredHashes) {
  for (const char* bad :
       {"", "cassandra", "$1$abcdefgh$", "$2a$04$short",
        "$2a$99$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.",
        "$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.x"}) {
    EXPECT_EQ(CheckPassword("", bad), PasswordCheck::kMalformedHash) << bad;
  }
}

}  // namespace
}  // namespace keywise::auth
