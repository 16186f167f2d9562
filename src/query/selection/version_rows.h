// The `WITH VERSIONS n` extension (docs/cql_extensions.md): one stored row
// read with several versions per cell becomes several result rows, the
// i-th holding the i-th newest version of every cell.
//
// Contract: wraps the Selection's accumulator; rows are expanded before the
// selection sees them, so selectors, writetime() and ttl() work unchanged
// on each version row. Limits and paging count stored rows (the caller's
// counting happens outside), so all version rows of one stored row land in
// the same page.
#pragma once

#include <memory>

#include "query/selection/selection.h"

namespace keywise::query {

// Returns `inner` itself when versions <= 1.
std::unique_ptr<Selection::Accumulator> ExpandVersions(
    std::unique_ptr<Selection::Accumulator> inner, int versions);

}  // namespace keywise::query
