// Non-frozen collections and UDTs stored as one cell per element: how a
// value is split into cells on write and assembled back on read.
//
// Contract: pure functions, thread-safe; the cell path conventions below are
// stored on disk: DO NOT CHANGE.
//   set<T>:    path = element bytes, value empty
//   map<K,V>:  path = key bytes, value = value bytes
//   list<T>:   path = 16 bytes (ListElementPath), value = element bytes:
//                bytes 0..7   big-endian u64 order key: appends use
//                             2^63 + t, prepends 2^63 - t, where t is a
//                             strictly increasing per-node microsecond
//                             count (TimestampGenerator), so an append sorts
//                             after every existing element and a prepend
//                             before (Cassandra's time-UUID keys and its
//                             reversed PrecisionTime trick for prepends);
//                bytes 8..15  a per-process random value, so keys stay
//                             unique across restarts whose clock went back.
//              Byte order of paths is list order.
//   UDT:       path = field index as 2-byte big-endian, value = field bytes
// Whole-column overwrites and deletions are a column deletion
// (storage/row_fragment.h: ColumnDeletionCell) plus the new cells.
// Cells are ordered by path bytes (CellOrderLess); sets and maps assemble
// in their comparator's order, which for path bytes is restored by sorting
// with CompareValues.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schema/cql_type.h"
#include "storage/cell.h"

namespace keywise::query {

// Assembles the live element cells of one multi-cell column (all with
// cell.column equal; when several versions of one element are given, the
// first one counts) into the serialized collection or UDT; nullopt when
// there are no cells (Cassandra returns null for an empty collection).
std::optional<std::string> AssembleMultiCell(
    const CqlType& type, const std::vector<const Cell*>& cells);

// The element cells of one multi-cell column in the order its value lists
// them: the first version of each element, sets and maps sorted by their
// element or key type (paths are bytes), lists and UDTs by path.
std::vector<const Cell*> ElementsInValueOrder(
    const CqlType& type, const std::vector<const Cell*>& cells);

// The path of a list element (see above). `order` is 2^63 +/- t.
std::string ListElementPath(uint64_t order);
inline constexpr uint64_t kListOrderMiddle = uint64_t{1} << 63;

// The path of field `index` of a UDT.
std::string UdtFieldPath(size_t index);

}  // namespace keywise::query
