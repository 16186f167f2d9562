#include "auth/resource.h"

#include <gtest/gtest.h>

namespace keywise::auth {
namespace {

TEST(Permission, NamesAndSetsInCassandrasOrder) {
  EXPECT_EQ(PermissionName(Permission::kAuthorize), "AUTHORIZE");
  EXPECT_EQ(PermissionOfName("select"), Permission::kSelect);
  EXPECT_EQ(PermissionOfName("SELECTS"), std::nullopt);
  PermissionSet s{Permission::kModify, Permission::kCreate};
  EXPECT_EQ(s.Names(), (std::vector<std::string>{"CREATE", "MODIFY"}));
  s.Remove(Permission::kCreate);
  EXPECT_FALSE(s.Has(Permission::kCreate));
  EXPECT_TRUE(s.Has(Permission::kModify));
  EXPECT_TRUE(PermissionSet().empty());
}

TEST(Resource, NamesPrintedFormsAndParents) {
  const Resource t = Resource::Table("ks", "t");
  EXPECT_EQ(t.Name(), "data/ks/t");
  EXPECT_EQ(t.Printed(), "<table ks.t>");
  EXPECT_EQ(t.Parent(), Resource::Keyspace("ks"));
  EXPECT_EQ(t.Parent()->Parent(), Resource::AllKeyspaces());
  EXPECT_EQ(Resource::AllKeyspaces().Parent(), std::nullopt);
  EXPECT_EQ(Resource::AllKeyspaces().Printed(), "<all keyspaces>");
  EXPECT_EQ(Resource::Keyspace("ks").Printed(), "<keyspace ks>");
  EXPECT_EQ(Resource::Role("r").Name(), "roles/r");
  EXPECT_EQ(Resource::Role("r").Printed(), "<role r>");
  EXPECT_EQ(Resource::Role("r").Parent(), Resource::AllRoles());
  EXPECT_EQ(Resource::AllRoles().Printed(), "<all roles>");
  EXPECT_EQ(t.TypeName(), "DataResource");
  EXPECT_EQ(Resource::AllRoles().TypeName(), "RoleResource");
}

TEST(Resource, FromNameReadsTheFiveFormsOnly) {
  for (const Resource& r :
       {Resource::AllKeyspaces(), Resource::Keyspace("ks"),
        Resource::Table("ks", "t"), Resource::AllRoles(), Resource::Role("a/b")}) {
    EXPECT_EQ(Resource::FromName(r.Name()), r) << r.Name();
  }
  for (const char* bad : {"", "data/", "data//t", "data/ks/", "data/ks/t/x",
                          "roles/", "functions", "dat"}) {
    EXPECT_EQ(Resource::FromName(bad), std::nullopt) << bad;
  }
}

TEST(Resource, ApplicablePermissions) {
  using P = Permission;
  EXPECT_EQ(Resource::Table("k", "t").Applicable(),
            (PermissionSet{P::kAlter, P::kDrop, P::kSelect, P::kModify,
                           P::kAuthorize}));
  EXPECT_TRUE(Resource::Keyspace("k").Applicable().Has(P::kCreate));
  EXPECT_FALSE(Resource::Keyspace("k").Applicable().Has(P::kDescribe));
  EXPECT_TRUE(Resource::AllRoles().Applicable().Has(P::kDescribe));
  EXPECT_FALSE(Resource::Role("r").Applicable().Has(P::kCreate));
}

}  // namespace
}  // namespace keywise::auth
