#include "query/multi_cell.h"

namespace keywise::query {

// Placeholder until the write path lands.
std::optional<std::string> AssembleMultiCell(const CqlType&,
                                             const std::vector<const Cell*>&) {
  return std::nullopt;
}

}  // namespace keywise::query
