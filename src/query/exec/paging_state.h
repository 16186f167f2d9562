// PagingState: where a paged SELECT stopped, as the opaque bytes a client
// sends back to get the next page.
//
// Contract: plain value; Encode/Decode are pure. Resuming means "strictly
// after the last row returned", so writes between pages can neither repeat
// nor skip rows. Decode never trusts its input: anything malformed is
// Invalid("Invalid value for the paging state").
//
// Format (version 1; integers big-endian):
//   u8   version = 1
//   u8   flags: bit 0 = the last partition is finished (its last row was the
//               static-only row, or nothing more may be read from it)
//   u32  rows counted so far (toward LIMIT; groups under GROUP BY)
//   u32  rows counted in the last partition (PER PARTITION LIMIT)
//   u32  n, then n bytes: the last partition key (serialized, partition_key.h)
//   u16  m (clustering values of the last row; 0 for a static-only row),
//        then m times: u32 length + the serialized value
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "schema/table_def.h"

namespace keywise::query {

struct PagingState {
  bool partition_done = false;
  uint32_t rows_counted = 0;
  uint32_t partition_rows_counted = 0;
  std::string partition_key;            // serialized
  std::vector<std::string> clustering;  // empty: static-only row

  std::string Encode() const;
  static Result<PagingState> Decode(std::string_view bytes);
  // Decode, then checked against `table` before it is trusted: as many
  // clustering values as the table has clustering columns (none only for a
  // finished partition), a partition key of the table's components, and
  // every value valid for its column's type. Any mismatch is the same
  // Invalid as a malformed state.
  static Result<PagingState> DecodeFor(const TableDef& table,
                                       std::string_view bytes);
};

}  // namespace keywise::query
