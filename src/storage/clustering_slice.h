// ClusteringSlice and ClusteringOrder: clustering keys and slices of one
// table compared in clustering order (the order rows are stored and read
// in), so that the query layer can narrow, test and order slices without
// knowing how keys are encoded (storage_key.h keeps that to itself).
//
// Contract: ClusteringSlice is a plain value. ClusteringOrder keeps a
// reference to its TableDef, which must outlive it; its methods are const
// and thread-safe. Clustering values are serialized CQL values, one per
// clustering column (prefixes allowed in bounds only).
#pragma once

#include <string>
#include <vector>

#include "schema/table_def.h"
#include "storage/storage_key.h"

namespace keywise {

// The rows between two bounds, in clustering order (start before end in
// storage order; for a DESC column the greater value comes first).
struct ClusteringSlice {
  ClusteringBound start;
  ClusteringBound end;
};

class ClusteringOrder {
 public:
  explicit ClusteringOrder(const TableDef& table) : layout_(table) {}

  // <0, 0 or >0 as full clustering `a` sorts before, with or after `b`.
  int Compare(const std::vector<std::string>& a,
              const std::vector<std::string>& b) const;
  // Whether no row can lie within the slice (start after end).
  bool IsEmpty(const ClusteringSlice& slice) const;
  // Whether the full clustering lies within the slice.
  bool Contains(const ClusteringSlice& slice,
                const std::vector<std::string>& clustering) const;
  // Narrows `slice` to the rows strictly after `last` in read order
  // (strictly before it when `reversed`). Returns false when nothing of the
  // slice is left; always for an empty `last` (the only row of a table
  // without clustering columns, or a prefix every row shares).
  bool NarrowAfter(const std::vector<std::string>& last, bool reversed,
                   ClusteringSlice* slice) const;

 private:
  KeyLayout layout_;
};

}  // namespace keywise
