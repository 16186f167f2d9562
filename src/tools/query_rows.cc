#include "tools/query_rows.h"

#include <cstring>

#include "common/coding.h"

namespace keywise {

Result<std::vector<client::Row>> Rows(client::Session& session,
                                      const std::string& cql,
                                      int32_t page_size, size_t max_rows) {
  std::vector<client::Row> rows;
  client::QueryParams params;
  params.page_size = page_size;
  while (true) {
    client::Reply reply = session.Query(cql, params);
    if (!reply.ok()) {
      return Status::ServerError(reply.error.message.empty()
                                     ? reply.status.message()
                                     : reply.error.message);
    }
    if (rows.empty()) {
      rows = std::move(reply.result.rows);
    } else {
      for (client::Row& row : reply.result.rows) rows.push_back(std::move(row));
    }
    if (page_size <= 0 || !reply.result.paging_state || rows.size() > max_rows) {
      return rows;
    }
    params.paging_state = std::move(reply.result.paging_state);
  }
}

std::string TextLiteral(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string TextCell(const client::Row& row, size_t i) {
  return i < row.size() && row[i] ? *row[i] : std::string();
}

uint64_t BigintCell(const client::Row& row, size_t i) {
  if (i >= row.size() || !row[i] || row[i]->size() != 8) return 0;
  return DecodeFixed64BE(row[i]->data());
}

int IntCell(const client::Row& row, size_t i) {
  if (i >= row.size() || !row[i] || row[i]->size() != 4) return 0;
  return static_cast<int32_t>(DecodeFixed32BE(row[i]->data()));
}

double DoubleCell(const client::Row& row, size_t i) {
  const uint64_t bits = BigintCell(row, i);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

std::string InetCell(const client::Row& row, size_t i) {
  if (i >= row.size() || !row[i] || row[i]->size() != 4) return {};
  const auto* b = reinterpret_cast<const unsigned char*>(row[i]->data());
  return std::to_string(b[0]) + "." + std::to_string(b[1]) + "." +
         std::to_string(b[2]) + "." + std::to_string(b[3]);
}

}  // namespace keywise
