// Unit tests of the console's pure parts: request targets and parameters,
// routing (status codes, JSON errors), JSON escaping, the heatmap grid,
// key labels, partition texts read back to tokens, and the embedded assets.
#include <gtest/gtest.h>

#include "advisor/key_heatmap.h"
#include "console/console_assets.h"
#include "console/heatmap_grid.h"
#include "console/http_types.h"
#include "console/key_labels.h"
#include "console/partition_token.h"
#include "console/request_target.h"
#include "console/router.h"
#include "schema/partitioner.h"
#include "schema/value_codec.h"
#include "storage/partition_key.h"

namespace keywise::console {
namespace {

using nlohmann::json;

TEST(RequestTarget, SplitsAndDecodes) {
  Result<RequestTarget> t =
      ParseTarget("/api/x%20y?keyspace=a%2Fb&table=c+d&e");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->path, "/api/x y");
  EXPECT_EQ(t->params.values().at("keyspace"), "a/b");
  EXPECT_EQ(t->params.values().at("table"), "c d");
  EXPECT_EQ(t->params.values().at("e"), "");
  EXPECT_FALSE(t->params.Optional("e").has_value());
}

TEST(RequestTarget, RefusesBadTargets) {
  EXPECT_FALSE(ParseTarget("api").ok());
  EXPECT_FALSE(ParseTarget("/a%zz").ok());
  EXPECT_FALSE(ParseTarget("/a?x=%4").ok());
  EXPECT_FALSE(ParseTarget("/a?x=%00").ok());
  EXPECT_EQ(ParseTarget("/a?x=1&x=2").status().message(),
            "parameter x is given twice");
}

TEST(QueryParams, TypedReads) {
  QueryParams p({{"n", "12"}, {"bad", "1x"}, {"neg", "-1"}});
  EXPECT_EQ(*p.Integer("n", 0, 20).value(), 12);
  EXPECT_FALSE(p.Integer("absent", 0, 20).value().has_value());
  EXPECT_EQ(p.Integer("bad", 0, 20).status().message(),
            "parameter bad must be an integer, not '1x'");
  EXPECT_EQ(p.Integer("neg", 0, 20).status().message(),
            "parameter neg must be between 0 and 20");
  EXPECT_EQ(p.Required("k").status().message(), "missing parameter k");
  EXPECT_TRUE(p.OnlyKnown({"n", "bad", "neg"}).ok());
  EXPECT_EQ(p.OnlyKnown({"n"}).message(), "unknown parameter bad");
}

Router TestRouter() {
  Router r;
  r.Add("/api/echo", [](const QueryParams& p) -> Result<HttpResponse> {
    KW_ASSIGN_OR_RETURN(std::string v, p.Required("v"));
    return JsonResponse(200, json{{"v", v}});
  });
  r.Add("/api/fail", [](const QueryParams&) -> Result<HttpResponse> {
    return Status::ServerError("storage away");
  });
  r.Add("/api/away", [](const QueryParams&) -> Result<HttpResponse> {
    return Status::WithCounts(ErrorCode::kUnavailable,
                              "Cannot achieve consistency level ONE", {});
  });
  r.Add("/api/throw", [](const QueryParams&) -> Result<HttpResponse> {
    throw std::runtime_error("bug");
  });
  r.Add("/page", [](const QueryParams&) -> Result<HttpResponse> {
    return TextResponse(200, "hello");
  });
  return r;
}

TEST(Router, StatusCodes) {
  const Router r = TestRouter();
  EXPECT_EQ(r.Route({"GET", "/page"}).body, "hello");
  EXPECT_EQ(r.Route({"HEAD", "/page"}).status, 200);
  HttpResponse post = r.Route({"POST", "/page"});
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.allow, "GET, HEAD");
  EXPECT_EQ(r.Route({"GET", "/nope"}).status, 404);
  EXPECT_EQ(r.Route({"GET", "/page/"}).status, 404);
  EXPECT_EQ(r.Route({"GET", "/api/echo"}).status, 400);
  EXPECT_EQ(r.Route({"GET", "/api/fail"}).status, 500);
  EXPECT_EQ(r.Route({"GET", "/api/away"}).status, 503);
  EXPECT_EQ(r.Route({"GET", "/api/throw"}).status, 500);
  EXPECT_EQ(r.Route({"GET", "/a%zz"}).status, 400);
}

TEST(Router, HttpStatusOfErrorCodes) {
  EXPECT_EQ(HttpStatusOf(ErrorCode::kInvalid), 400);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kUnauthorized), 403);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kReadTimeout), 503);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kServerError), 500);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kProtocolError), 500);
}

TEST(Router, ApiErrorsAreJson) {
  const Router r = TestRouter();
  HttpResponse missing = r.Route({"GET", "/api/echo"});
  EXPECT_EQ(missing.content_type, "application/json; charset=utf-8");
  EXPECT_EQ(json::parse(missing.body),
            (json{{"error", "missing parameter v"}}));
  HttpResponse unknown = r.Route({"GET", "/api/none"});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_TRUE(json::parse(unknown.body).contains("error"));
  EXPECT_EQ(r.Route({"GET", "/nope"}).content_type,
            "text/plain; charset=utf-8");
}

TEST(Json, EscapesEverything) {
  const Router r = TestRouter();
  HttpResponse echo =
      r.Route({"GET", "/api/echo?v=%22%3C%2Fscript%3E%5C%0A%01%FF"});
  ASSERT_EQ(echo.status, 200);
  // Quotes, backslashes and control characters escaped; "</" broken up;
  // the invalid byte replaced: the body is valid JSON.
  EXPECT_EQ(echo.body, "{\"v\":\"\\\"<\\/script>\\\\\\n\\u0001\xEF\xBF\xBD\"}");
  EXPECT_EQ(json::parse(echo.body)["v"], "\"</script>\\\n\x01\xEF\xBF\xBD");
}

TEST(HeatmapGrid, LaysCellsOutByTimeAndRange) {
  const int64_t now = 1'000'005'000;  // ms; the newest bucket starts at ...000
  Result<HeatmapWindow> w = MakeHeatmapWindow(now, std::nullopt, std::nullopt,
                                              std::nullopt, std::nullopt);
  ASSERT_TRUE(w.ok());
  const int64_t newest = 1'000'000'000;
  std::vector<HeatCell> cells = {
      {newest, advisor::KeyHeatmap::RangeStart(8).value, 3, 40},
      {newest - 10000, advisor::KeyHeatmap::RangeStart(8).value, 0, 60},
      {newest - 10000, advisor::KeyHeatmap::RangeStart(0).value, 1, 0},
      {newest - 10'000'000, advisor::KeyHeatmap::RangeStart(1).value, 9, 9},
  };
  const HeatmapGrid g = BuildHeatmapGrid(cells, *w);
  ASSERT_EQ(g.times.size(), size_t{advisor::KeyHeatmap::kBuckets});
  EXPECT_EQ(g.times.back(), newest);
  EXPECT_EQ(g.writes.back()[8], 40u);
  EXPECT_EQ(g.writes[g.times.size() - 2][8], 60u);
  EXPECT_EQ(g.reads[g.times.size() - 2][0], 1u);
  EXPECT_EQ(g.total_writes, 100u);  // the old cell is outside the window
  const json j = HeatmapGridJson(g);
  EXPECT_DOUBLE_EQ(j["hot"]["writes"].get<double>(), 1.0);
  EXPECT_EQ(j["writes"].size(), g.times.size());
}

TEST(HeatmapGrid, ZoomsIntoAWindowAndRanges) {
  const int64_t newest = 1'000'000'000;
  Result<HeatmapWindow> w =
      MakeHeatmapWindow(newest, newest - 20000, newest - 10000, 7, 8);
  ASSERT_TRUE(w.ok());
  const HeatmapGrid g = BuildHeatmapGrid(
      {{newest - 10000, advisor::KeyHeatmap::RangeStart(8).value, 0, 5},
       {newest - 10000, advisor::KeyHeatmap::RangeStart(9).value, 0, 7},
       {newest, advisor::KeyHeatmap::RangeStart(8).value, 0, 11}},
      *w);
  EXPECT_EQ(g.times, (std::vector<int64_t>{newest - 20000, newest - 10000}));
  ASSERT_EQ(g.writes[1].size(), 2u);
  EXPECT_EQ(g.writes[1][1], 5u);
  EXPECT_EQ(g.total_writes, 5u);
}

TEST(HeatmapGrid, EvenFieldHasLowHotShare) {
  std::vector<HeatCell> cells;
  for (int r = 0; r < advisor::KeyHeatmap::kRanges; ++r) {
    cells.push_back(
        {1'000'000'000, advisor::KeyHeatmap::RangeStart(r).value, 0, 10});
  }
  auto w = MakeHeatmapWindow(1'000'000'000, std::nullopt, std::nullopt,
                             std::nullopt, std::nullopt);
  const json j = HeatmapGridJson(BuildHeatmapGrid(cells, *w));
  EXPECT_DOUBLE_EQ(j["hot"]["writes"].get<double>(), 2.0 / 16);
  EXPECT_DOUBLE_EQ(j["hot"]["reads"].get<double>(), 0);
}

TEST(HeatmapGrid, RefusesBadWindows) {
  const int64_t now = 1'000'000'000;
  EXPECT_EQ(MakeHeatmapWindow(now, now, now - 1, std::nullopt, std::nullopt)
                .status()
                .message(),
            "from must not be after to");
  EXPECT_EQ(MakeHeatmapWindow(now, std::nullopt, std::nullopt, 5, 4)
                .status()
                .message(),
            "range_from must not be after range_to");
  EXPECT_FALSE(
      MakeHeatmapWindow(now, 0, 1000, std::nullopt, std::nullopt).ok());
}

TableDef KeyTable(TypeKind kind, PlacementKind placement, int salt = 0) {
  TableDef t;
  t.keyspace = "ks";
  t.name = "t";
  t.columns.push_back(
      ColumnDef{"k", CqlType::Of(kind), ColumnKind::kPartitionKey});
  t.columns.push_back(ColumnDef{"v", CqlType::Of(TypeKind::kInt)});
  t.options.placement = placement;
  t.options.salt_buckets = salt;
  return t;
}

TEST(KeyLabels, NameTheFirstKeyOfARange) {
  const TableDef big = KeyTable(TypeKind::kBigint, PlacementKind::kRange);
  EXPECT_EQ(KeyLabelAt(big, PartitionToken(big, EncodeBigint(1000))), "1000");
  EXPECT_EQ(KeyLabelAt(big, advisor::KeyHeatmap::RangeStart(32)), "0");
  const TableDef i32 = KeyTable(TypeKind::kInt, PlacementKind::kRange);
  EXPECT_EQ(KeyLabelAt(i32, PartitionToken(i32, EncodeInt(-7))), "-7");
  const TableDef text = KeyTable(TypeKind::kVarchar, PlacementKind::kRange);
  EXPECT_EQ(KeyLabelAt(text, PartitionToken(text, EncodeText("abc"))),
            "'abc'…");
  const TableDef salted =
      KeyTable(TypeKind::kBigint, PlacementKind::kRange, 16);
  // 16 buckets of 4 ranges each: range 12 starts bucket 3.
  EXPECT_EQ(KeyLabelAt(salted, advisor::KeyHeatmap::RangeStart(12)),
            "bucket 3: " + std::to_string(INT64_MIN));
  const TableDef hashed = KeyTable(TypeKind::kBigint, PlacementKind::kHash);
  EXPECT_EQ(KeyLabelAt(hashed, Token{5}), "");
  EXPECT_EQ(PlacementText(hashed), "hash");
  EXPECT_EQ(PlacementText(salted), "range, 16 salt buckets");
}

TEST(PartitionToken, ReadsBackPartitionTexts) {
  const TableDef hashed = KeyTable(TypeKind::kBigint, PlacementKind::kHash);
  EXPECT_EQ(TokenOfPartitionText(hashed, "k = 42"),
            PartitionToken(hashed, EncodeBigint(42)));
  const TableDef text = KeyTable(TypeKind::kVarchar, PlacementKind::kHash);
  EXPECT_EQ(TokenOfPartitionText(text, "k = a AND b"),
            PartitionToken(text, EncodeText("a AND b")));
  EXPECT_FALSE(TokenOfPartitionText(hashed, "k = x").has_value());
  EXPECT_FALSE(TokenOfPartitionText(hashed, "j = 1").has_value());
  TableDef two = hashed;
  two.columns.insert(two.columns.begin() + 1,
                     ColumnDef{"b", CqlType::Of(TypeKind::kVarchar),
                               ColumnKind::kPartitionKey, 1});
  EXPECT_EQ(TokenOfPartitionText(two, "k = 1 AND b = x"),
            PartitionToken(two, SerializePartitionKey(
                                    {EncodeBigint(1), EncodeText("x")})));
}

TEST(Assets, EveryPageAndScriptIsEmbedded) {
  for (const char* name :
       {"index.html", "heatmap.html", "table.html", "console.css", "common.js",
        "overview.js", "heatmap.js", "table.js"}) {
    const Asset* a = FindAsset(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_GT(a->body.size(), 100u) << name;
  }
  EXPECT_EQ(FindAsset("index.html")->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(FindAsset("heatmap.js")->content_type,
            "text/javascript; charset=utf-8");
  EXPECT_EQ(FindAsset("nope.js"), nullptr);
  // Nothing is loaded from elsewhere.
  for (const char* name : {"index.html", "heatmap.html", "table.html"}) {
    EXPECT_EQ(FindAsset(name)->body.find("http"), std::string_view::npos)
        << name;
  }
}

}  // namespace
}  // namespace keywise::console
