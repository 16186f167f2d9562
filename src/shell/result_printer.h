// How the shell prints results and errors, exactly as cqlsh 4 does
// (bin/cqlsh.py print_formatted_result and friends).
//
// Contract: pure functions producing text; thread-safe.
//   table:    " " + names left-justified and joined by " | " (right-trimmed),
//             then "-" + widths of dashes joined by "-+-" + "-", then each
//             row " " + values right-justified joined by " | ", then "".
//   expanded: per row "@ Row N", a "-" + name-width + "-+-" + value-width
//             + "-" rule, " name | value" lines (names left-justified),
//             then "".
// Values are formatted by FormatValue (schema/value_codec.h); nulls print as
// "null". Widths count UTF-8 code points.
#pragma once

#include <string>
#include <vector>

#include "client/reply.h"
#include "client/responses.h"

namespace keywise::shell {

// Formats one cell as cqlsh shows it.
std::string FormatCell(const client::ColumnSpec& column,
                       const std::optional<std::string>& value);

// The rows of one page. `with_header` prints the header and rule;
// `row_offset` numbers expanded rows after earlier pages. With no rows, the
// header alone followed by "" (cqlsh prints a header for empty results).
std::string RenderRows(const std::vector<client::ColumnSpec>& columns,
                       const std::vector<client::Row>& rows, bool with_header,
                       bool expanded, int row_offset);

// The error line cqlsh prints for a failed request (without the
// "file:line:" prefix used in batch mode), e.g.
// `InvalidRequest: Error from server: code=2200 [Invalid query]
// message="unconfigured table t"`. `host` is "127.0.0.1:9042".
std::string FormatReplyError(const client::Reply& reply, const std::string& host);

// Number of UTF-8 code points in `s` (the display width cqlsh uses for
// ASCII and most text).
size_t DisplayWidth(const std::string& s);

}  // namespace keywise::shell
