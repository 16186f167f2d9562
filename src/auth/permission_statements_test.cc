#include "auth/permission_statements.h"

#include <gtest/gtest.h>

#include "auth/role_book_test_util.h"

namespace keywise::auth {
namespace {

using P = Permission;

const Caller kSuper = RoleCallerAs("cassandra");

PermissionsRequest On(Resource resource, std::string role,
                      PermissionSet permissions) {
  PermissionsRequest r;
  r.resource = std::move(resource);
  r.role = std::move(role);
  r.permissions = permissions;
  return r;
}

TEST(PermissionStatements, RequestedIsCutToTheResource) {
  EXPECT_EQ(*RequestedOn(std::nullopt, Resource::Table("ks", "t")),
            (PermissionSet{P::kAlter, P::kDrop, P::kSelect, P::kModify,
                           P::kAuthorize}));
  EXPECT_EQ(*RequestedOn(PermissionSet{P::kCreate, P::kSelect},
                         Resource::Table("ks", "t")),
            PermissionSet{P::kSelect});
  Result<PermissionSet> none =
      RequestedOn(PermissionSet{P::kCreate}, Resource::Table("ks", "t"));
  EXPECT_EQ(none.status().code(), ErrorCode::kSyntaxError);
  EXPECT_EQ(none.status().message(),
            "Resource type DataResource does not support any of the "
            "requested permissions");
  EXPECT_EQ(RequestedOn(PermissionSet{P::kSelect}, Resource::Role("r"))
                .status()
                .message(),
            "Resource type RoleResource does not support any of the "
            "requested permissions");
}

TEST(PermissionStatements, GrantAndRevoke) {
  RoleBook book;
  book.Put("bob");
  const Resource t = Resource::Table("ks", "t");
  ASSERT_TRUE(book.Apply(GrantPermissions(
                             book.state(), On(t, "bob", {P::kSelect}), kSuper))
                  .ok());
  EXPECT_TRUE(book.state().Authorize("bob", P::kSelect, t).ok());
  EXPECT_FALSE(book.state().Authorize("bob", P::kModify, t).ok());
  // Granting again changes nothing.
  EXPECT_TRUE(GrantPermissions(book.state(), On(t, "bob", {P::kSelect}), kSuper)
                  ->empty());
  // Revoking what is not held changes nothing; revoking the last one
  // removes the resource's entry.
  EXPECT_TRUE(
      RevokePermissions(book.state(), On(t, "bob", {P::kModify}), kSuper)
          ->empty());
  ASSERT_TRUE(book.Apply(RevokePermissions(book.state(),
                                           On(t, "bob", {P::kSelect}), kSuper))
                  .ok());
  EXPECT_TRUE(book.role("bob").permissions.empty());
}

TEST(PermissionStatements, GrantChecksInCassandrasOrder) {
  RoleBook book;
  book.Put("bob");
  book.Put("ann");
  const Resource t = Resource::Table("ks", "t");
  const Caller bob = RoleCallerAs("bob");
  // authorize first: AUTHORIZE, then the permission granted.
  Result<RoleChanges> r =
      GrantPermissions(book.state(), On(t, "nobody", {P::kSelect}), bob);
  EXPECT_EQ(r.status().code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(r.status().message(),
            "User bob has no AUTHORIZE permission on <table ks.t> or any of "
            "its parents");
  book.GrantOn("bob", Resource::Keyspace("ks"), {P::kAuthorize});
  EXPECT_EQ(GrantPermissions(book.state(), On(t, "ann", {P::kSelect}), bob)
                .status()
                .message(),
            "User bob has no SELECT permission on <table ks.t> or any of its "
            "parents");
  book.GrantOn("bob", Resource::Keyspace("ks"), {P::kAuthorize, P::kSelect});
  EXPECT_TRUE(
      GrantPermissions(book.state(), On(t, "ann", {P::kSelect}), bob).ok());
  // then validate: the role, the resource.
  EXPECT_EQ(GrantPermissions(book.state(), On(t, "nobody", {P::kSelect}), bob)
                .status()
                .message(),
            "Role nobody doesn't exist");
  PermissionsRequest missing = On(t, "ann", {P::kSelect});
  missing.resource_exists = false;
  Result<RoleChanges> gone = GrantPermissions(book.state(), missing, kSuper);
  EXPECT_EQ(gone.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(gone.status().message(), "Resource <table ks.t> doesn't exist");
  // Anonymous, and AllowAllAuthorizer.
  EXPECT_EQ(GrantPermissions(book.state(), On(t, "ann", {P::kSelect}), Caller())
                .status()
                .message(),
            "You have to be logged in and not anonymous to perform this "
            "request");
  EXPECT_EQ(GrantPermissions(book.state(), On(t, "ann", {P::kSelect}),
                             RoleCallerAs("cassandra", true, false))
                .status()
                .message(),
            "GRANT operation is not supported by AllowAllAuthorizer");
}

TEST(PermissionStatements, ListIsSortedAndCoversGrantedRoles) {
  RoleBook book;
  book.Put("reader", /*login=*/false);
  book.Put("bob", true, false, {"reader"});
  book.Put("ann");
  book.GrantOn("reader", Resource::Keyspace("ks"), {P::kSelect});
  book.GrantOn("bob", Resource::Table("ks", "t"), {P::kModify, P::kSelect});
  book.GrantOn("ann", Resource::AllKeyspaces(), {P::kCreate});
  ListPermissionsRequest all;
  all.permissions = PermissionSet::FromBits(0xff);
  std::vector<ListedPermission> rows = *ListPermissions(book.state(), all, kSuper);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (ListedPermission{"ann", Resource::AllKeyspaces(),
                                       P::kCreate}));
  EXPECT_EQ(rows[1], (ListedPermission{"bob", Resource::Table("ks", "t"),
                                       P::kSelect}));
  EXPECT_EQ(rows[2], (ListedPermission{"bob", Resource::Table("ks", "t"),
                                       P::kModify}));
  EXPECT_EQ(rows[3].role, "reader");
  // OF bob: bob and the roles granted to it.
  ListPermissionsRequest of_bob = all;
  of_bob.of = "bob";
  EXPECT_EQ(ListPermissions(book.state(), of_bob, kSuper)->size(), 3u);
  // ON a table: the table and its parents, unless NORECURSIVE.
  ListPermissionsRequest on_table = all;
  on_table.resource = Resource::Table("ks", "t");
  EXPECT_EQ(ListPermissions(book.state(), on_table, kSuper)->size(), 4u);
  on_table.recursive = false;
  EXPECT_EQ(ListPermissions(book.state(), on_table, kSuper)->size(), 2u);
  // One permission only.
  ListPermissionsRequest selects = all;
  selects.permissions = {P::kSelect};
  EXPECT_EQ(ListPermissions(book.state(), selects, kSuper)->size(), 2u);
}

TEST(PermissionStatements, ListChecks) {
  RoleBook book;
  book.Put("reader", false);
  book.Put("bob", true, false, {"reader"});
  book.Put("ann");
  const Caller bob = RoleCallerAs("bob");
  ListPermissionsRequest r;
  r.permissions = PermissionSet::FromBits(0xff);
  Result<std::vector<ListedPermission>> everyone =
      ListPermissions(book.state(), r, bob);
  EXPECT_EQ(everyone.status().code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(everyone.status().message(),
            "You are not authorized to view everyone's permissions");
  r.of = "ann";
  EXPECT_EQ(ListPermissions(book.state(), r, bob).status().message(),
            "You are not authorized to view ann's permissions");
  r.of = "reader";  // granted to bob
  EXPECT_TRUE(ListPermissions(book.state(), r, bob).ok());
  // Validated before the authorizer's check, as Cassandra (for anyone).
  r.of = "nobody";
  EXPECT_EQ(ListPermissions(book.state(), r, bob).status().message(),
            "<role nobody> doesn't exist");
  r.of.reset();
  r.resource = Resource::Table("ks", "gone");
  r.resource_exists = false;
  Result<std::vector<ListedPermission>> gone =
      ListPermissions(book.state(), r, bob);
  EXPECT_EQ(gone.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(gone.status().message(), "<table ks.gone> doesn't exist");
  r.resource.reset();
  EXPECT_EQ(ListPermissions(book.state(), r, RoleCallerAs("bob", true, false))
                .status()
                .message(),
            "LIST PERMISSIONS operation is not supported by "
            "AllowAllAuthorizer");
}

TEST(PermissionStatements, CreatorGrantsAndDropRevokes) {
  RoleBook book;
  book.Put("bob");
  book.Put("ann");
  ASSERT_TRUE(book.Apply(GrantAllToCreator(book.state(), "bob",
                                           Resource::Keyspace("ks")))
                  .ok());
  EXPECT_EQ(book.role("bob").permissions.at("data/ks"),
            Resource::Keyspace("ks").Applicable());
  book.GrantOn("ann", Resource::Table("ks", "t"), {P::kSelect});
  book.GrantOn("ann", Resource::Table("ks2", "t"), {P::kSelect});
  book.GrantOn("ann", Resource::Keyspace("ks2"), {P::kSelect});
  EXPECT_TRUE(GrantAllToCreator(book.state(), "nobody",
                                Resource::Keyspace("ks"))
                  .empty());
  // Dropping ks removes ks and ks.t, not ks2 nor ks2.t.
  ASSERT_TRUE(
      book.Apply(RevokeAllOn(book.state(), Resource::Keyspace("ks"))).ok());
  EXPECT_TRUE(book.role("bob").permissions.empty());
  EXPECT_EQ(book.role("ann").permissions.size(), 2u);
  ASSERT_TRUE(book.Apply(RevokeAllOn(book.state(), Resource::Table("ks2", "t")))
                  .ok());
  EXPECT_EQ(book.role("ann").permissions.size(), 1u);
  EXPECT_TRUE(
      RevokeAllOn(book.state(), Resource::Table("ks2", "other")).empty());
}

}  // namespace
}  // namespace keywise::auth
