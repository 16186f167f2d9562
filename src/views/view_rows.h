// View rows: what a materialized view or an index table holds for one base
// row, and the view updates that turn the view rows of a base partition's
// state before a write into those of its state after it.
//
// Contract: pure functions, safe from any thread. Expiry follows the
// base: an index entry or view row lives as long as its base row is live
// and its key complete (the indexed cell, or a strict view's key cell).
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

// Materialized views and key changes keep copies of their base rows'
// stored state: cells (live, expired or deleted) and collection deletions
// with their own timestamps, and the row's covering deletion as a row
// deletion, so copies made by different replicas, or by a backfill racing
// writes, merge into the same view row whatever their order, and a table
// whose key changed keeps its cells' timestamps. Then:
// - A view keyed by base key columns only copies the base row's marker,
//   and each cell of a base column it does not select as a virtual cell
//   (no value; readers skip it), so the view row lives exactly as long as
//   its base row.
// - A view that adds a regular base column c to its key is strict
//   (ViewInfo::strict_liveness: a row lives only while its marker does).
//   A row's incarnation is one cell of c: the marker has that cell's
//   timestamp and expiry. When the base row's c cell is replaced or
//   deleted, the old view row gets an expired marker at the old cell's
//   timestamp, which beats that incarnation's marker forever; the cells
//   stay but are invisible. A later cell of c with the old value is newer,
//   so its marker brings the row back, and the copy written with it
//   carries every current cell. A replica that copied cells into an
//   incarnation ends it once it sees the write that replaced it, so the
//   view converges once every base replica has every base write.
// Views made before strict views existed were kept by replacing whole
// rows at the maintainer's clock; drop and recreate them.
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
  // The base timestamp of what makes the row exist (above).
  int64_t timestamp = kNoTimestamp;
  bool operator==(const ViewRow&) const = default;
};

// The index rows of base row `row` (live at now_seconds) of the partition
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
// Unchanged view rows are not written. An index on a static column has one
// row per partition: its static row. Appends to `out`.
void ComputeViewUpdates(const TableDefPtr& base,
                        const std::vector<TableDefPtr>& views,
                        const RawPartition& before, const RawPartition& after,
                        int32_t now_seconds,
                        std::vector<PartitionUpdate>* out);

}  // namespace keywise
