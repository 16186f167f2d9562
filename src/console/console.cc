#include "console/console.h"

#include "advisor/key_heatmap.h"
#include "console/console_api.h"
#include "console/console_assets.h"

namespace keywise::console {
namespace {

HttpResponse AssetResponse(const Asset& asset) {
  HttpResponse r;
  r.content_type = std::string(asset.content_type);
  r.body = std::string(asset.body);
  return r;
}

// An endpoint's JSON, never cached by the browser (it changes every
// refresh).
Result<HttpResponse> Json(Result<nlohmann::json> json) {
  if (!json.ok()) return json.status();
  return JsonResponse(200, *json);
}

}  // namespace

Console::Console(query::QueryProcessor* processor, const Clock& clock,
                 std::optional<ClusterSource> cluster)
    : processor_(processor), clock_(clock), cluster_(std::move(cluster)) {
  AddPages();
  AddApi();
}

ConsoleContext Console::Context() const {
  ConsoleContext c{query::InternalCql(processor_)};
  c.cluster = cluster_ ? &*cluster_ : nullptr;
  c.row_counts = &row_counts_;
  c.now_ms = clock_.NowMicros() / 1000;
  return c;
}

void Console::AddPages() {
  struct Page {
    const char* path;
    const char* asset;
  };
  static constexpr Page kPages[] = {
      {"/", "index.html"},
      {"/console/", "index.html"},
      {"/console/heatmap", "heatmap.html"},
      {"/console/table", "table.html"},
      {"/console/console.css", "console.css"},
      {"/console/common.js", "common.js"},
      {"/console/overview.js", "overview.js"},
      {"/console/heatmap.js", "heatmap.js"},
      {"/console/table.js", "table.js"},
  };
  for (const Page& page : kPages) {
    const Asset* asset = FindAsset(page.asset);
    if (asset == nullptr) continue;  // the asset test names it
    router_.Add(page.path, [asset](const QueryParams&) -> Result<HttpResponse> {
      return AssetResponse(*asset);
    });
  }
}

void Console::AddApi() {
  router_.Add("/api/overview",
              [this](const QueryParams& p) -> Result<HttpResponse> {
                KW_RETURN_IF_ERROR(p.OnlyKnown({}));
                return Json(OverviewJson(Context()));
              });
  router_.Add(
      "/api/heatmap", [this](const QueryParams& p) -> Result<HttpResponse> {
        KW_RETURN_IF_ERROR(p.OnlyKnown(
            {"keyspace", "table", "from", "to", "range_from", "range_to"}));
        KW_ASSIGN_OR_RETURN(std::string keyspace, p.Required("keyspace"));
        KW_ASSIGN_OR_RETURN(std::string table, p.Required("table"));
        constexpr int64_t kLastRange = advisor::KeyHeatmap::kRanges - 1;
        KW_ASSIGN_OR_RETURN(auto from, p.Integer("from", 0, INT64_MAX));
        KW_ASSIGN_OR_RETURN(auto to, p.Integer("to", 0, INT64_MAX));
        KW_ASSIGN_OR_RETURN(auto range_from,
                            p.Integer("range_from", 0, kLastRange));
        KW_ASSIGN_OR_RETURN(auto range_to,
                            p.Integer("range_to", 0, kLastRange));
        const ConsoleContext context = Context();
        KW_ASSIGN_OR_RETURN(
            HeatmapWindow window,
            MakeHeatmapWindow(context.now_ms, from, to, range_from, range_to));
        KW_ASSIGN_OR_RETURN(TableDefPtr found,
                            FindUserTable(context, keyspace, table));
        return Json(HeatmapJson(context, *found, window));
      });
  router_.Add(
      "/api/table", [this](const QueryParams& p) -> Result<HttpResponse> {
        KW_RETURN_IF_ERROR(p.OnlyKnown({"keyspace", "table"}));
        KW_ASSIGN_OR_RETURN(std::string keyspace, p.Required("keyspace"));
        KW_ASSIGN_OR_RETURN(std::string table, p.Required("table"));
        const ConsoleContext context = Context();
        KW_ASSIGN_OR_RETURN(TableDefPtr found,
                            FindUserTable(context, keyspace, table));
        return Json(TableJson(context, *found));
      });
}

HttpResponse Console::Handle(const HttpRequest& request) const {
  HttpResponse response = router_.Route(request);
  return response;
}

}  // namespace keywise::console
