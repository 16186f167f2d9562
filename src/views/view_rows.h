// View rows: what a materialized view or an index table holds for one base
// row, and the view updates that turn the view rows of a base partition's
// state before a write into those of its state after it.
//
// Contract: pure functions, safe from any thread. Expiry follows the
// base: a view row lives as long as the base row is live and its view key
// complete (the indexed or added key column's cell, or the base row's
// liveness), and each copied cell no longer than its base cell or its row.
//
// Index tables carry the base's timestamps, so that index updates made
// independently (by each replica of a base partition, by a backfill racing
// writes) merge into the same index whatever their order. An entry that
// names one cell position of its base row (a plain or frozen column, a set
// element, a map key or entry) has the cell's timestamp and expiry, and is
// deleted at that timestamp when it goes away (any later write that brings
// it back must beat the cell, so it is newer). Any other entry (an index on
// a key column: the row's liveness; a list's or map's values, which several
// elements may share) has the newest timestamp stored in the base row,
// which only grows while the row lives, and no expiry; it is deleted at
// the row's covering row, range or partition deletion, if any. Entries
// that outlive their base row that way are stale: queries check every base
// row, so stale entries cost space, never answers. A missing entry would be
// a wrong answer, so every rule errs towards keeping one.

// Views whose key has only base key columns and that hold every regular
// column for good (SELECT *, and every key change; CopiesBaseRows) are kept as copies of
// their base rows' stored state: marker, cells (live, expired or deleted)
// and collection deletions with their own timestamps, and the row's
// covering deletion as a row deletion. Merging copies is merging the base,
// so copies made by different replicas, or by a backfill racing writes,
// converge, and a table whose key changed keeps its cells' timestamps.
//
// Other materialized views are kept by replacing whole view rows: every view
// write carries one timestamp from the maintainer's clock (later than any
// earlier view write of that row, since a view row belongs to exactly one
// base row and writes to one base partition are serialized), writes the
// row marker and cells at that timestamp and a row deletion just below it
// (so columns the base row lost disappear), and a view row that goes away
// is deleted at it. This needs one writer per base row: one node.
#pragma once

#include <string>
#include <vector>

#include "common/token.h"
#include "schema/table_def.h"
#include "storage/live_row.h"
#include "storage/partition_update.h"
#include "storage/raw_partition.h"

namespace keywise {

struct ViewRow {
  std::vector<std::string> partition_key;  // view partition key values
  std::vector<std::string> clustering;     // view clustering values
  // Local time (seconds) the row dies; kNoDeletionTime: never.
  int32_t expiry = kNoDeletionTime;
  // The base timestamp of what makes the row exist (index tables, above).
  int64_t timestamp = kNoTimestamp;
  // Copied cells with view column ids, values, paths and expiries (0 ttl
  // when not expiring); timestamps unset.
  std::vector<Cell> cells;
  bool operator==(const ViewRow&) const = default;
};

// Whether `view` (of `base`) is kept by copying base rows (above).
bool CopiesBaseRows(const TableDef& base, const TableDef& view);

// The view rows of base row `row` (live at now_seconds) of the partition
// `base_pk` (values) with token `token`: none when a view key column is
// null, one otherwise. REQUIRES: view.view names `base`; view columns
// exist in `base` by name (idx_token aside).
std::vector<ViewRow> ViewRowsOf(const TableDef& base, const TableDef& view,
                                const std::vector<std::string>& base_pk,
                                Token token, const LiveRow& row,
                                int32_t now_seconds);

// The updates that bring `views` from what `before` gives them to what
// `after` gives them: both are raw states of one base partition within the
// same slice (`before` possibly empty); rows are resolved at now_seconds.
// Unchanged view rows are not written. `timestamp` is the maintainer's
// clock (see above; materialized views only). An index on a static column
// has one row per partition: its static row. Appends to `out`.
void ComputeViewUpdates(const TableDefPtr& base,
                        const std::vector<TableDefPtr>& views,
                        const RawPartition& before, const RawPartition& after,
                        int32_t now_seconds, int64_t timestamp,
                        std::vector<PartitionUpdate>* out);

}  // namespace keywise
