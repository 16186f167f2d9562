// The token of a partition named as the statistics tables name it
// (system/partition_text.h: `k = 5 AND b = x`, text as is), so the heatmap can
// show a range's top partitions. Best effort: the text is parsed back into the
// key and accepted only when it formats to the same text again.
//
// Contract: pure, thread-safe; nullopt when the text cannot be read back
// (an unusual literal, a table whose key changed).
#pragma once

#include <optional>
#include <string_view>

#include "common/token.h"
#include "schema/table_def.h"

namespace keywise::console {

std::optional<Token> TokenOfPartitionText(const TableDef& table,
                                          std::string_view text);

}  // namespace keywise::console
