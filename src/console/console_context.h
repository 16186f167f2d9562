// ConsoleContext: what the console's JSON endpoints read from: the node's
// query processor (internal CQL, query/internal_cql.h), its storage figures, and
// in a cluster its view (members, tablet maps, moves) and the load reports
// the nodes write. Each endpoint is a function of the context.
//
// Contract: the processor and anything the cluster source's functions use
// outlive every call; the cluster source's functions are thread-safe. A
// context is used from the console's worker thread only.
#pragma once

#include <functional>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "cluster/metadata/load_report.h"
#include "common/status.h"
#include "query/internal_cql.h"
#include "console/row_count_cache.h"

namespace keywise::console {

using query::CqlRow;
using query::CqlRows;

// A cluster member's sources; both functions must be set.
struct ClusterSource {
  std::function<cluster::ClusterViewPtr()> view;
  // Every node's latest load report (bytes and requests per tablet).
  std::function<Result<std::vector<cluster::LoadReport>>()> load_reports;
};

struct ConsoleContext {
  query::InternalCql reader;
  const ClusterSource* cluster = nullptr;  // null on a node alone
  RowCountCache* row_counts = nullptr;
  int64_t now_ms = 0;

  Engine& engine() const { return reader.processor().engine(); }
};

}  // namespace keywise::console
