// What `keywise advise` needs from a client session: a query's rows (every
// page) and its cells decoded (tools/advise_sources.h, advise_what_if.h).
//
// Contract: Rows runs one query on the session given and returns the
// server's message when it fails. The decoders read one cell of a row and
// return the type's default when the cell is null, missing or of another
// size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "client/session.h"
#include "common/status.h"

namespace keywise {

// Every row of the query's result, page after page when page_size > 0,
// stopping after the page that passes `max_rows` rows.
Result<std::vector<client::Row>> Rows(client::Session& session,
                                      const std::string& cql,
                                      int32_t page_size = 0,
                                      size_t max_rows = SIZE_MAX);

// `text` as a CQL string literal (quotes doubled).
std::string TextLiteral(const std::string& text);

std::string TextCell(const client::Row& row, size_t i);
uint64_t BigintCell(const client::Row& row, size_t i);
int IntCell(const client::Row& row, size_t i);
double DoubleCell(const client::Row& row, size_t i);
// An IPv4 inet as a dotted quad; empty for anything else.
std::string InetCell(const client::Row& row, size_t i);

}  // namespace keywise
