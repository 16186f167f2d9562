#include "schema/cql_type.h"

#include <gtest/gtest.h>

namespace keywise {
namespace {

std::string RoundTrip(std::string_view text) {
  auto t = CqlType::Parse(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().ToString();
  return t.ok() ? (*t)->ToCql() : "";
}

TEST(CqlType, ParseAndPrint) {
  EXPECT_EQ(RoundTrip("int"), "int");
  EXPECT_EQ(RoundTrip("VARCHAR"), "text");
  EXPECT_EQ(RoundTrip("Text"), "text");
  EXPECT_EQ(RoundTrip("list<int>"), "list<int>");
  EXPECT_EQ(RoundTrip("frozen<list<int>>"), "frozen<list<int>>");
  EXPECT_EQ(RoundTrip("map<text, frozen<set<uuid>>>"),
            "map<text, frozen<set<uuid>>>");
  EXPECT_EQ(RoundTrip("tuple<int,text>"), "frozen<tuple<int, text>>");
  EXPECT_EQ(RoundTrip("frozen<list<list<int>>>"),
            "frozen<list<frozen<list<int>>>>");
  EXPECT_EQ((*CqlType::Parse("varchar"))->kind(), TypeKind::kVarchar);
}

TEST(CqlType, ParseErrors) {
  EXPECT_EQ(CqlType::Parse("list<int").status().code(),
            ErrorCode::kSyntaxError);
  EXPECT_EQ(CqlType::Parse("map<int>").status().code(),
            ErrorCode::kSyntaxError);
  EXPECT_EQ(CqlType::Parse("frozen<int>").status().message(),
            "frozen<> is only allowed on collections, tuples, and "
            "user-defined types (got int)");
  EXPECT_EQ(CqlType::Parse("list<list<int>>").status().message(),
            "Non-frozen collections are not allowed inside collections: "
            "list<list<int>>");
  EXPECT_EQ(CqlType::Parse("address").status().message(),
            "Unknown type address");
  EXPECT_FALSE(CqlType::Parse("int int").ok());
  EXPECT_FALSE(CqlType::Parse("").ok());
}

TEST(CqlType, EqualsAndSingletons) {
  EXPECT_EQ(CqlType::Of(TypeKind::kInt), CqlType::Of(TypeKind::kInt));
  auto a = *CqlType::Parse("map<text, int>");
  auto b = CqlType::Map(CqlType::Of(TypeKind::kVarchar),
                        CqlType::Of(TypeKind::kInt), false);
  EXPECT_TRUE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*CqlType::Frozen(b)));
  EXPECT_TRUE(a->IsMultiCell());
  EXPECT_FALSE(CqlType::Frozen(b)->IsMultiCell());
}

TEST(CqlType, SerializeRoundTrip) {
  auto udt = CqlType::Udt("ks", "addr",
                          {{"street", CqlType::Of(TypeKind::kVarchar)},
                           {"zip", CqlType::Of(TypeKind::kInt)}},
                          true);
  std::vector<CqlTypePtr> types = {
      CqlType::Of(TypeKind::kDuration), *CqlType::Parse("list<int>"),
      *CqlType::Parse("map<text, frozen<set<uuid>>>"),
      *CqlType::Parse("tuple<int, frozen<list<text>>>"), udt,
      CqlType::List(udt, false)};
  for (const auto& t : types) {
    std::string buf;
    t->Serialize(&buf);
    std::string_view in = buf;
    auto back = CqlType::Deserialize(&in);
    ASSERT_TRUE(back.ok()) << t->ToCql();
    EXPECT_TRUE((*back)->Equals(*t)) << t->ToCql();
    EXPECT_TRUE(in.empty());
    // Every truncation and byte flip must fail cleanly or decode something.
    for (size_t i = 0; i < buf.size(); i++) {
      std::string_view cut(buf.data(), i);
      (void)CqlType::Deserialize(&cut);
      std::string flipped = buf;
      flipped[i] ^= 0x5a;
      std::string_view f = flipped;
      (void)CqlType::Deserialize(&f);
    }
  }
  EXPECT_EQ(udt->ToCql(), "frozen<addr>");
}

}  // namespace
}  // namespace keywise
