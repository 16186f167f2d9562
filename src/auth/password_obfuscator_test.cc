#include "auth/password_obfuscator.h"

#include <gtest/gtest.h>

namespace keywise::auth {
namespace {

TEST(PasswordObfuscator, HidesEverythingAfterTheWord) {
  EXPECT_EQ(ObfuscatePasswords("CREATE ROLE r WITH PASSWORD = 'pw' AND LOGIN = true"),
            "CREATE ROLE r WITH PASSWORD *******");
  EXPECT_EQ(ObfuscatePasswords("alter user u with password 'x'"),
            "alter user u with password *******");
  EXPECT_EQ(ObfuscatePasswords("SELECT * FROM t"), "SELECT * FROM t");
  EXPECT_TRUE(MentionsPassword("ALTER ROLE r WITH PassWord = ?"));
  EXPECT_FALSE(MentionsPassword("SELECT pass FROM t"));
}

}  // namespace
}  // namespace keywise::auth
