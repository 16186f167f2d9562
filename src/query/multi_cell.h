// Non-frozen collections and UDTs stored as one cell per element: how a
// value is split into cells on write and assembled back on read.
//
// Contract: pure functions; the cell path conventions below are stored on
// disk: DO NOT CHANGE.
//   set<T>:    path = element bytes, value empty
//   map<K,V>:  path = key bytes, value = value bytes
//   list<T>:   path = 16-byte time-based key whose byte order is the list
//              order (see multi_cell.cc), value = element bytes
//   UDT:       path = field index as 2-byte big-endian, value = field bytes
// Cells are ordered by path bytes (CellOrderLess); sets and maps assemble
// in their comparator's order, which for path bytes is restored by sorting
// with CompareValues.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/cql_type.h"
#include "storage/cell.h"

namespace keywise::query {

// Assembles the live element cells of one multi-cell column (all with
// cell.column equal) into the serialized collection or UDT; nullopt when
// there are no cells (Cassandra returns null for an empty collection).
std::optional<std::string> AssembleMultiCell(const CqlType& type,
                                             const std::vector<const Cell*>& cells);

}  // namespace keywise::query
