// LiveRow and the resolution of stored fragments into what a read returns.
//
// Contract: pure functions. A read returns only live data at `now_seconds`:
// cells not shadowed by the row, range or partition deletion, not expired,
// not tombstones; with `versions` > 1, up to that many live versions per
// cell, newest first, stopping at the first tombstone or expired version
// (a deletion hides everything older, as in HBase/Lindorm multi-version
// reads).
#pragma once

#include <string>
#include <vector>

#include "storage/cell.h"
#include "storage/row_fragment.h"

namespace keywise {

struct LiveRow {
  std::vector<std::string> clustering;  // serialized values, declared order
  LivenessInfo liveness;                // empty unless the marker is live
  std::vector<Cell> cells;              // live cells, CellOrderLess order

  // Returns the newest live version of the column (nullptr if none).
  // For multi-cell columns, the first element only; iterate `cells` instead.
  const Cell* Find(ColumnId column) const;
};

// Fills liveness and cells of `row` from `fragment` under the extra
// deletion `outer` (partition and covering range deletions). Returns true
// when the row is live: a live marker, or (unless `needs_marker`, see
// TableDef::RowsNeedMarker) at least one live cell.
bool ResolveRow(const RowFragment& fragment, const DeletionTime& outer,
                int32_t now_seconds, int versions, bool needs_marker,
                LiveRow* row);

// Live static cells of a partition header.
void ResolveStatic(const RowFragment& header, int32_t now_seconds,
                   int versions, std::vector<Cell>* cells);

}  // namespace keywise
