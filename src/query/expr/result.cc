#include "query/expr/result.h"

#include "common/coding.h"

namespace keywise::query {

void RowWriter::AppendValue(std::string_view bytes) {
  PutFixed32BE(&rows_->data, static_cast<uint32_t>(bytes.size()));
  rows_->data.append(bytes);
}

void RowWriter::AppendNull() {
  PutFixed32BE(&rows_->data, 0xFFFFFFFFu);
}

Result<std::vector<std::vector<std::optional<std::string>>>> DecodeRows(
    const RowsResult& rows) {
  std::vector<std::vector<std::optional<std::string>>> out;
  std::string_view in = rows.data;
  for (int64_t r = 0; r < rows.row_count; ++r) {
    std::vector<std::optional<std::string>> row;
    for (size_t c = 0; c < rows.columns.size(); ++c) {
      if (in.size() < 4) return Status::ServerError("truncated rows");
      int32_t len = static_cast<int32_t>(DecodeFixed32BE(in.data()));
      in.remove_prefix(4);
      if (len < 0) {
        row.emplace_back(std::nullopt);
        continue;
      }
      if (in.size() < static_cast<size_t>(len)) {
        return Status::ServerError("truncated rows");
      }
      row.emplace_back(std::string(in.substr(0, len)));
      in.remove_prefix(len);
    }
    out.push_back(std::move(row));
  }
  if (!in.empty()) return Status::ServerError("trailing bytes after rows");
  return out;
}

}  // namespace keywise::query
