#include "auth/role_statements.h"

#include <gtest/gtest.h>

#include "auth/memory_auth_store.h"
#include "auth/role_book_test_util.h"

namespace keywise::auth {
namespace {

using P = Permission;

const Caller kRoot = RoleCallerAs("cassandra");
const Caller kAnonymous;

CreateRoleRequest Create(std::string name, RoleOptions options = {},
                         bool if_not_exists = false) {
  CreateRoleRequest r;
  r.name = std::move(name);
  r.options = std::move(options);
  r.if_not_exists = if_not_exists;
  return r;
}

AlterRoleRequest Alter(std::string name, RoleOptions options) {
  AlterRoleRequest r;
  r.name = std::move(name);
  r.options = std::move(options);
  return r;
}

RoleOptions Login(bool login) {
  RoleOptions o;
  o.login = login;
  return o;
}
RoleOptions Super(bool superuser) {
  RoleOptions o;
  o.superuser = superuser;
  return o;
}
RoleOptions Password(std::string password) {
  RoleOptions o;
  o.password = std::move(password);
  return o;
}

void ExpectRoleError(const Status& status, ErrorCode code,
                     const std::string& message) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_EQ(status.message(), message);
}

constexpr char kNoPrivilege[] =
    "User mike does not have sufficient privileges to perform the requested "
    "operation";

TEST(RoleStatements, EveryStatementNeedsALoggedInUser) {
  RoleBook book;
  const std::string anonymous =
      "You have to be logged in and not anonymous to perform this request";
  const AuthState& s = book.state();
  ExpectRoleError(CreateRole(s, Create("r"), kAnonymous).status(),
                  ErrorCode::kUnauthorized, anonymous);
  ExpectRoleError(
      AlterRole(s, Alter("cassandra", Login(true)), kAnonymous).status(),
      ErrorCode::kUnauthorized, anonymous);
  ExpectRoleError(DropRole(s, {"cassandra", false}, kAnonymous).status(),
                  ErrorCode::kUnauthorized, anonymous);
  ExpectRoleError(GrantRole(s, {"a", "b"}, kAnonymous).status(),
                  ErrorCode::kUnauthorized, anonymous);
  ExpectRoleError(RevokeRole(s, {"a", "b"}, kAnonymous).status(),
                  ErrorCode::kUnauthorized, anonymous);
  ExpectRoleError(ListRoles(s, {}, kAnonymous).status(),
                  ErrorCode::kUnauthorized, anonymous);
  ExpectRoleError(ListUsers(s, kAnonymous).status(), ErrorCode::kUnauthorized,
                  anonymous);
}

TEST(RoleStatements, CreateRoleChecksInCassandrasOrder) {
  RoleBook book;
  book.Put("mike");
  const Caller mike = RoleCallerAs("mike");
  // Authorization comes before the options are validated.
  RoleOptions with_options;
  with_options.custom_options = true;
  ExpectRoleError(
      CreateRole(book.state(), Create("r", with_options), mike).status(),
      ErrorCode::kUnauthorized, kNoPrivilege);
  book.GrantOn("mike", Resource::AllRoles(), {P::kCreate});
  ExpectRoleError(
      CreateRole(book.state(), Create("r", Super(true)), mike).status(),
      ErrorCode::kUnauthorized,
      "Only superusers can create a role with superuser status");
  ExpectRoleError(
      CreateRole(book.state(), Create("r", with_options), mike).status(),
      ErrorCode::kInvalid,
      "org.apache.cassandra.auth.CassandraRoleManager doesn't support OPTIONS");
  ExpectRoleError(
      CreateRole(book.state(), Create("r", Password("p")),
                 RoleCallerAs("mike", /*password_authenticator=*/false))
          .status(),
      ErrorCode::kInvalid,
      "org.apache.cassandra.auth.CassandraRoleManager doesn't support "
      "PASSWORD");
  ExpectRoleError(
      CreateRole(book.state(), Create("r", Password(std::string("a\0b", 3))),
                 mike)
          .status(),
      ErrorCode::kInvalid, "Passwords cannot contain a NUL character");
  ExpectRoleError(CreateRole(book.state(), Create(""), mike).status(),
                  ErrorCode::kInvalid, "Role name can't be an empty string");
  ExpectRoleError(CreateRole(book.state(), Create("cassandra"), mike).status(),
                  ErrorCode::kInvalid, "cassandra already exists");
  Result<RoleChanges> again =
      CreateRole(book.state(), Create("cassandra", {}, true), mike);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
  // A superuser may create superusers; SUPERUSER = false needs nothing.
  EXPECT_TRUE(
      book.Apply(CreateRole(book.state(), Create("boss", Super(true)), kRoot))
          .ok());
  EXPECT_TRUE(book.role("boss").superuser);
  EXPECT_TRUE(
      book.Apply(CreateRole(book.state(), Create("plain", Super(false)), mike))
          .ok());
}

TEST(RoleStatements, CreateRoleSetsOptionsAndGrantsTheCreator) {
  RoleBook book;
  book.Put("mike");
  book.GrantOn("mike", Resource::AllRoles(), {P::kCreate});
  const Caller mike = RoleCallerAs("mike");
  CreateRoleRequest request = Create("Alice", Password("secret"));
  request.options.login = true;
  request.password_hash = "$2a$04$hash";
  ASSERT_TRUE(book.Apply(CreateRole(book.state(), request, mike)).ok());
  const Role& alice = book.role("Alice");  // the case is kept
  EXPECT_TRUE(alice.login);
  EXPECT_FALSE(alice.superuser);
  EXPECT_EQ(alice.salted_hash, "$2a$04$hash");
  EXPECT_EQ(book.state().Find("alice"), nullptr);
  EXPECT_EQ(book.role("mike").permissions.at("roles/Alice"),
            (PermissionSet{P::kAlter, P::kDrop, P::kAuthorize}));
  // Defaults: no login, no superuser, no password.
  ASSERT_TRUE(book.Apply(CreateRole(book.state(), Create("bare"), mike)).ok());
  EXPECT_FALSE(book.role("bare").login);
  EXPECT_FALSE(book.role("bare").salted_hash.has_value());
  // So the creator may alter, grant and drop what it created.
  EXPECT_TRUE(
      book.Apply(AlterRole(book.state(), Alter("bare", Login(true)), mike))
          .ok());
  EXPECT_TRUE(
      book.Apply(GrantRole(book.state(), {"bare", "Alice"}, mike)).ok());
  EXPECT_TRUE(book.Apply(DropRole(book.state(), {"bare", false}, mike)).ok());
}

TEST(RoleStatements, AllowAllAuthorizerChecksNoPermissionAndGrantsNothing) {
  RoleBook book;
  book.Put("mike");
  const Caller mike =
      RoleCallerAs("mike", true, /*cassandra_authorizer=*/false);
  ASSERT_TRUE(book.Apply(CreateRole(book.state(), Create("r"), mike)).ok());
  EXPECT_TRUE(book.role("mike").permissions.empty());
  // The superuser rules are the role manager's: they still hold.
  ExpectRoleError(
      CreateRole(book.state(), Create("s", Super(true)), mike).status(),
      ErrorCode::kUnauthorized,
      "Only superusers can create a role with superuser status");
  EXPECT_TRUE(book.Apply(GrantRole(book.state(), {"r", "mike"}, mike)).ok());
  Result<std::vector<ListedRole>> all = ListRoles(book.state(), {}, mike);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);  // everyone may DESCRIBE
}

TEST(RoleStatements, AlterRoleChecksInCassandrasOrder) {
  RoleBook book;
  book.Put("mike");
  book.Put("admins", false, true);
  book.Put("lead", true, false, {"admins"});
  book.Put("other");
  const Caller mike = RoleCallerAs("mike");
  ExpectRoleError(
      AlterRole(book.state(), Alter("cassandra", Super(false)), kRoot).status(),
      ErrorCode::kUnauthorized,
      "You aren't allowed to alter your own superuser status or "
      "that of a role granted to you");
  // A role granted to the user counts as its own.
  ExpectRoleError(
      AlterRole(book.state(), Alter("admins", Super(false)),
                RoleCallerAs("lead"))
          .status(),
      ErrorCode::kUnauthorized,
      "You aren't allowed to alter your own superuser status or that of a "
      "role granted to you");
  ExpectRoleError(
      AlterRole(book.state(), Alter("other", Super(true)), mike).status(),
      ErrorCode::kUnauthorized,
      "Only superusers are allowed to alter superuser status");
  ExpectRoleError(
      AlterRole(book.state(), Alter("mike", Login(false)), mike).status(),
      ErrorCode::kUnauthorized, "You aren't allowed to alter LOGIN");
  ExpectRoleError(
      AlterRole(book.state(), Alter("mike", Password("p")),
                RoleCallerAs("mike", /*password_authenticator=*/false))
          .status(),
      ErrorCode::kUnauthorized, "You aren't allowed to alter PASSWORD");
  ExpectRoleError(
      AlterRole(book.state(), Alter("other", Login(false)), mike).status(),
      ErrorCode::kUnauthorized, kNoPrivilege);
  // Without ALTER even a missing role answers no privilege first.
  ExpectRoleError(
      AlterRole(book.state(), Alter("ghost", Login(false)), mike).status(),
      ErrorCode::kUnauthorized, kNoPrivilege);
  ExpectRoleError(AlterRole(book.state(), Alter("other", {}), kRoot).status(),
                  ErrorCode::kInvalid, "ALTER [ROLE|USER] can't be empty");
  ExpectRoleError(
      AlterRole(book.state(), Alter("ghost", Login(false)), kRoot).status(),
      ErrorCode::kInvalid, "ghost doesn't exist");
  RoleOptions with_options;
  with_options.custom_options = true;
  ExpectRoleError(
      AlterRole(book.state(), Alter("other", with_options), kRoot).status(),
      ErrorCode::kInvalid,
      "org.apache.cassandra.auth.CassandraRoleManager doesn't support OPTIONS");
  // Superusers alter anything of others; inherited status counts.
  EXPECT_TRUE(book.Apply(AlterRole(book.state(), Alter("other", Super(true)),
                                   RoleCallerAs("lead")))
                  .ok());
  EXPECT_TRUE(book.role("other").superuser);
}

TEST(RoleStatements, AlterRoleChangesOnlyWhatIsGiven) {
  RoleBook book;
  book.Put("mike");
  book.GrantOn("mike", Resource::Role("other"), {P::kAlter});
  book.Put("other", /*login=*/true);
  const Caller mike = RoleCallerAs("mike");
  AlterRoleRequest own = Alter("mike", Password("new"));
  own.password_hash = "$2a$04$new";
  ASSERT_TRUE(book.Apply(AlterRole(book.state(), own, mike)).ok());
  EXPECT_EQ(book.role("mike").salted_hash, "$2a$04$new");
  EXPECT_TRUE(book.role("mike").login);
  ASSERT_TRUE(
      book.Apply(AlterRole(book.state(), Alter("other", Login(false)), mike))
          .ok());
  EXPECT_FALSE(book.role("other").login);
  EXPECT_FALSE(book.role("other").salted_hash.has_value());
}

TEST(RoleStatements, DropRoleChecksInCassandrasOrder) {
  RoleBook book;
  book.Put("mike");
  book.Put("admins", false, true);
  book.Put("lead", true, false, {"admins"});
  const Caller mike = RoleCallerAs("mike");
  ExpectRoleError(DropRole(book.state(), {"lead", false}, mike).status(),
                  ErrorCode::kUnauthorized, kNoPrivilege);
  ExpectRoleError(DropRole(book.state(), {"ghost", true}, mike).status(),
                  ErrorCode::kUnauthorized, kNoPrivilege);
  book.GrantOn("mike", Resource::AllRoles(), {P::kDrop});
  // Superuser status, own or inherited.
  ExpectRoleError(DropRole(book.state(), {"lead", false}, mike).status(),
                  ErrorCode::kUnauthorized,
                  "Only superusers can drop a role with superuser status");
  ExpectRoleError(DropRole(book.state(), {"admins", false}, mike).status(),
                  ErrorCode::kUnauthorized,
                  "Only superusers can drop a role with superuser status");
  ExpectRoleError(DropRole(book.state(), {"ghost", false}, mike).status(),
                  ErrorCode::kInvalid, "ghost doesn't exist");
  Result<RoleChanges> none = DropRole(book.state(), {"ghost", true}, mike);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  ExpectRoleError(DropRole(book.state(), {"mike", false}, mike).status(),
                  ErrorCode::kInvalid,
                  "Cannot DROP primary role for current login");
  ExpectRoleError(DropRole(book.state(), {"cassandra", false}, kRoot).status(),
                  ErrorCode::kInvalid,
                  "Cannot DROP primary role for current login");
}

TEST(RoleStatements, DropRoleRemovesMembershipsAndGrantsOnIt) {
  RoleBook book;
  book.Put("team", false);
  book.Put("mike", true, false, {"team"});
  book.Put("ann", true, false, {"team", "mike"});
  book.GrantOn("ann", Resource::Role("team"), {P::kAlter});
  book.GrantOn("team", Resource::Keyspace("ks"), {P::kSelect});
  ASSERT_TRUE(book.Apply(DropRole(book.state(), {"team", false}, kRoot)).ok());
  EXPECT_EQ(book.state().Find("team"), nullptr);
  EXPECT_TRUE(book.role("mike").member_of.empty());
  EXPECT_EQ(book.role("ann").member_of, std::set<std::string>{"mike"});
  EXPECT_FALSE(book.role("ann").permissions.contains("roles/team"));
  EXPECT_FALSE(book.state()
                   .Authorize("mike", P::kSelect, Resource::Keyspace("ks"))
                   .ok());
  // A role created again with the name starts without grants or members.
  ASSERT_TRUE(book.Apply(CreateRole(book.state(), Create("team"), kRoot)).ok());
  EXPECT_FALSE(book.state().RolesOf("ann").contains("team"));
}

TEST(RoleStatements, GrantAndRevokeRoleMessages) {
  RoleBook book;
  book.Put("mike");
  book.Put("r", false);
  book.Put("g");
  const Caller mike = RoleCallerAs("mike");
  ExpectRoleError(GrantRole(book.state(), {"r", "g"}, mike).status(),
                  ErrorCode::kUnauthorized, kNoPrivilege);
  ExpectRoleError(RevokeRole(book.state(), {"r", "g"}, mike).status(),
                  ErrorCode::kUnauthorized, kNoPrivilege);
  // AUTHORIZE on the granted role is what it takes.
  book.GrantOn("mike", Resource::Role("r"), {P::kAuthorize});
  ExpectRoleError(GrantRole(book.state(), {"x", "g"}, mike).status(),
                  ErrorCode::kUnauthorized, kNoPrivilege);
  ExpectRoleError(GrantRole(book.state(), {"x", "y"}, kRoot).status(),
                  ErrorCode::kInvalid, "x doesn't exist");
  ExpectRoleError(GrantRole(book.state(), {"r", "y"}, mike).status(),
                  ErrorCode::kInvalid, "y doesn't exist");
  ExpectRoleError(RevokeRole(book.state(), {"r", "g"}, mike).status(),
                  ErrorCode::kInvalid, "g is not a member of r");
  ASSERT_TRUE(book.Apply(GrantRole(book.state(), {"r", "g"}, mike)).ok());
  EXPECT_EQ(book.role("g").member_of, std::set<std::string>{"r"});
  ExpectRoleError(GrantRole(book.state(), {"r", "g"}, mike).status(),
                  ErrorCode::kInvalid, "g is a member of r");
  ExpectRoleError(GrantRole(book.state(), {"r", "r"}, mike).status(),
                  ErrorCode::kInvalid, "r is a member of r");
  // The other way round would make a cycle: the granted role already has
  // the grantee.
  ExpectRoleError(GrantRole(book.state(), {"g", "r"}, kRoot).status(),
                  ErrorCode::kInvalid, "g is a member of r");
  // Through a chain: h has g, which has r.
  book.Put("h", true, false, {"g"});
  ExpectRoleError(GrantRole(book.state(), {"r", "h"}, mike).status(),
                  ErrorCode::kInvalid, "h is a member of r");
  ExpectRoleError(GrantRole(book.state(), {"h", "r"}, kRoot).status(),
                  ErrorCode::kInvalid, "h is a member of r");
  // REVOKE takes only direct grants; REVOKE r FROM r passes, changing
  // nothing, as in Cassandra.
  ExpectRoleError(RevokeRole(book.state(), {"r", "h"}, mike).status(),
                  ErrorCode::kInvalid, "h is not a member of r");
  Result<RoleChanges> self = RevokeRole(book.state(), {"r", "r"}, mike);
  ASSERT_TRUE(self.ok());
  EXPECT_TRUE(self->empty());
  ASSERT_TRUE(book.Apply(RevokeRole(book.state(), {"r", "g"}, mike)).ok());
  EXPECT_TRUE(book.role("g").member_of.empty());
}

std::vector<std::string> ListedNames(const Result<std::vector<ListedRole>>& r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> out;
  if (r.ok()) {
    for (const ListedRole& role : *r) out.push_back(role.name);
  }
  return out;
}

TEST(RoleStatements, ListRolesVisibility) {
  RoleBook book;
  book.Put("base", false);
  book.Put("team", false, false, {"base"});
  book.Put("mike", true, false, {"team"});
  book.Put("Zed");
  const Caller mike = RoleCallerAs("mike");
  using Names = std::vector<std::string>;
  // Sorted by name (bytes: upper case first), own flags.
  Result<std::vector<ListedRole>> all = ListRoles(book.state(), {}, kRoot);
  EXPECT_EQ(ListedNames(all),
            (Names{"Zed", "base", "cassandra", "mike", "team"}));
  EXPECT_EQ((*all)[2], (ListedRole{"cassandra", true, true}));
  EXPECT_EQ((*all)[1], (ListedRole{"base", false, false}));
  EXPECT_EQ(ListedNames(ListRoles(book.state(), {"mike", true}, kRoot)),
            (Names{"base", "mike", "team"}));
  EXPECT_EQ(ListedNames(ListRoles(book.state(), {"mike", false}, kRoot)),
            (Names{"mike", "team"}));
  ExpectRoleError(ListRoles(book.state(), {"ghost", true}, kRoot).status(),
                  ErrorCode::kInvalid, "<role ghost> doesn't exist");
  // Without DESCRIBE: one's own roles, and OF one of them.
  EXPECT_EQ(ListedNames(ListRoles(book.state(), {}, mike)),
            (Names{"base", "mike", "team"}));
  EXPECT_EQ(ListedNames(ListRoles(book.state(), {std::nullopt, false}, mike)),
            (Names{"mike", "team"}));
  EXPECT_EQ(ListedNames(ListRoles(book.state(), {"team", false}, mike)),
            (Names{"base", "team"}));
  ExpectRoleError(ListRoles(book.state(), {"cassandra", true}, mike).status(),
                  ErrorCode::kUnauthorized,
                  "You are not authorized to view roles granted to cassandra ");
  ExpectRoleError(ListRoles(book.state(), {"ghost", true}, mike).status(),
                  ErrorCode::kInvalid, "<role ghost> doesn't exist");
  // DESCRIBE on <all roles> shows everything.
  book.GrantOn("base", Resource::AllRoles(), {P::kDescribe});
  EXPECT_EQ(ListedNames(ListRoles(book.state(), {}, mike)).size(), 5u);
  EXPECT_EQ(ListedNames(ListRoles(book.state(), {"cassandra", true}, mike)),
            (Names{"cassandra"}));
  // A user whose role was dropped meanwhile sees nothing.
  EXPECT_TRUE(
      ListedNames(ListRoles(book.state(), {}, RoleCallerAs("gone"))).empty());
}

TEST(RoleStatements, ListUsersShowsRolesThatLogInWithInheritedSuperuser) {
  RoleBook book;
  book.Put("admins", false, true);
  book.Put("lead", true, false, {"admins"});
  book.Put("mike", true, false, {"team"});
  book.Put("team", false, false, {"lead"});
  Result<std::vector<ListedUser>> all = ListUsers(book.state(), kRoot);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (std::vector<ListedUser>{
                      {"cassandra", true}, {"lead", true}, {"mike", true}}));
  // Without DESCRIBE: itself and its direct roles only (LIST USERS is not
  // recursive), the ones that log in.
  book.Put("deep");
  book.Put("helper", true, false, {"deep"});
  book.Put("quiet", false, false, {});
  book.Put("ann", true, false, {"helper", "quiet"});
  Result<std::vector<ListedUser>> own =
      ListUsers(book.state(), RoleCallerAs("ann"));
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(*own, (std::vector<ListedUser>{{"ann", false}, {"helper", false}}));
}

}  // namespace
}  // namespace keywise::auth
