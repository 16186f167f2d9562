// Console: the node's read-only web console (docs/console.md): the pages
// (/, /console/heatmap, /console/table and their scripts and style,
// console_assets.h) and the JSON endpoints behind them (/api/overview,
// /api/heatmap, /api/table: console_api.h), routed by router.h.
//
// Contract: Handle is thread-safe and blocks while the endpoint's internal
// CQL reads run: the HTTP server calls it from a worker of its own, never
// from an I/O loop (server/metrics_http.h). The processor, the clock and
// what the cluster source's functions use outlive the console.
#pragma once

#include <optional>

#include "common/clock.h"
#include "console/console_context.h"
#include "console/http_types.h"
#include "console/router.h"
#include "console/row_count_cache.h"
#include "query/query_processor.h"

namespace keywise::console {

class Console {
 public:
  // `cluster`: a cluster member's view and load reports; nullopt for a
  // node alone.
  Console(query::QueryProcessor* processor, const Clock& clock,
          std::optional<ClusterSource> cluster);
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  HttpResponse Handle(const HttpRequest& request) const;

 private:
  ConsoleContext Context() const;
  void AddPages();
  void AddApi();

  query::QueryProcessor* const processor_;
  const Clock& clock_;
  const std::optional<ClusterSource> cluster_;
  mutable RowCountCache row_counts_;
  Router router_;
};

}  // namespace keywise::console
