#include "auth/auth_state.h"

#include <gtest/gtest.h>

#include "auth/login.h"
#include "auth/password_hash.h"

namespace keywise::auth {
namespace {

using P = Permission;

Role MakeRole(std::string name, std::set<std::string> member_of = {},
              bool superuser = false) {
  Role r;
  r.name = std::move(name);
  r.member_of = std::move(member_of);
  r.superuser = superuser;
  r.login = true;
  return r;
}

AuthState State(std::vector<Role> roles) {
  std::map<std::string, Role, std::less<>> by_name;
  for (Role& r : roles) by_name.emplace(r.name, std::move(r));
  return AuthState(std::move(by_name), 1);
}

TEST(AuthState, RolesAreInheritedThroughAnyNumberOfGrants) {
  Role reader = MakeRole("reader");
  reader.permissions["data/ks"] = {P::kSelect};
  Role writer = MakeRole("writer", {"reader"});
  writer.permissions["data/ks/t"] = {P::kModify};
  // A cycle and a missing role grant nothing more and do not loop.
  Role mike = MakeRole("mike", {"writer", "gone"});
  Role admin = MakeRole("admin", {}, true);
  Role boss = MakeRole("boss", {"admin"});
  reader.member_of = {"mike"};
  const AuthState s = State({reader, writer, mike, admin, boss});
  EXPECT_EQ(s.RolesOf("mike"),
            (std::set<std::string>{"mike", "reader", "writer"}));
  EXPECT_EQ(s.DirectRolesOf("mike"), (std::set<std::string>{"mike", "writer"}));
  EXPECT_TRUE(s.RolesOf("nobody").empty());
  EXPECT_FALSE(s.IsSuper("mike"));
  EXPECT_TRUE(s.IsSuper("boss"));  // through a granted role

  const Resource t = Resource::Table("ks", "t");
  EXPECT_EQ(s.PermissionsOn("mike", t), (PermissionSet{P::kModify}));
  EXPECT_TRUE(s.Authorize("mike", P::kSelect, t).ok());  // the keyspace's
  EXPECT_TRUE(s.Authorize("mike", P::kModify, t).ok());
  const Status denied = s.Authorize("mike", P::kDrop, t);
  EXPECT_EQ(denied.code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(denied.message(),
            "User mike has no DROP permission on <table ks.t> or any of its "
            "parents");
  EXPECT_FALSE(s.Authorize("mike", P::kModify, Resource::Table("ks", "u")).ok());
  EXPECT_TRUE(s.Authorize("boss", P::kDrop, t).ok());
  EXPECT_EQ(s.PermissionsOn("boss", t), t.Applicable());
  EXPECT_FALSE(s.Authorize("nobody", P::kSelect, t).ok());
}

TEST(Login, SameAnswerWhetherTheRoleExistsOrNot) {
  const std::string hash = *HashPassword("pw", kMinBcryptRounds);
  const std::string dummy = *HashPassword("dummy", kMinBcryptRounds);
  Role ok = MakeRole("ok");
  ok.salted_hash = hash;
  Role nologin = MakeRole("nologin");
  nologin.salted_hash = hash;
  nologin.login = false;
  Role nopass = MakeRole("nopass");
  Role broken = MakeRole("broken");
  broken.salted_hash = "not a hash";
  const AuthState s = State({ok, nologin, nopass, broken});
  EXPECT_TRUE(CheckLogin(s, {"ok", "pw"}, dummy).ok());
  for (const char* user : {"ok", "missing", "nopass", "broken"}) {
    const Status st = CheckLogin(s, {user, "wrong"}, dummy);
    EXPECT_EQ(st.code(), ErrorCode::kBadCredentials);
    EXPECT_EQ(st.message(), "Provided username " + std::string(user) +
                                " and/or password are incorrect");
  }
  // The dummy's password does not log a missing role in.
  EXPECT_FALSE(CheckLogin(s, {"missing", "dummy"}, dummy).ok());
  EXPECT_EQ(CheckLogin(s, {"nologin", "wrong"}, dummy).message(),
            "Provided username nologin and/or password are incorrect");
  EXPECT_EQ(CheckLogin(s, {"nologin", "pw"}, dummy).message(),
            "nologin is not permitted to log in");
  bool malformed = false;
  EXPECT_FALSE(CheckLogin(s, {"broken", "x"}, dummy, &malformed).ok());
  EXPECT_TRUE(malformed);
  EXPECT_FALSE(CheckLogin(s, {"ok", "x"}, dummy, &malformed).ok());
  EXPECT_FALSE(malformed);
}

}  // namespace
}  // namespace keywise::auth
