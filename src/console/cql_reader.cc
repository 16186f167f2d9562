#include "console/cql_reader.h"

#include "query/expr/value.h"
#include "schema/value_codec.h"

namespace keywise::console {

const std::string* CqlRow::Cell(std::string_view column, size_t* index) const {
  for (size_t i = 0; i < columns_->size() && i < cells_.size(); ++i) {
    if ((*columns_)[i].name != column) continue;
    *index = i;
    return cells_[i] ? &*cells_[i] : nullptr;
  }
  return nullptr;
}

std::string CqlRow::Text(std::string_view column) const {
  size_t i = 0;
  const std::string* cell = Cell(column, &i);
  if (cell == nullptr) return "";
  const TypeKind kind = (*columns_)[i].type->kind();
  if (kind != TypeKind::kVarchar && kind != TypeKind::kAscii) return "";
  return *cell;
}

int64_t CqlRow::Int(std::string_view column) const {
  size_t i = 0;
  const std::string* cell = Cell(column, &i);
  if (cell == nullptr) return 0;
  switch ((*columns_)[i].type->kind()) {
    case TypeKind::kInt: {
      Result<int32_t> v = DecodeInt(*cell);
      return v.ok() ? *v : 0;
    }
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kTimestamp: {
      Result<int64_t> v = DecodeBigint(*cell);
      return v.ok() ? *v : 0;
    }
    default:
      return 0;
  }
}

double CqlRow::Double(std::string_view column) const {
  size_t i = 0;
  const std::string* cell = Cell(column, &i);
  if (cell == nullptr || (*columns_)[i].type->kind() != TypeKind::kDouble) {
    return 0;
  }
  Result<double> v = DecodeDouble(*cell);
  return v.ok() ? *v : 0;
}

std::string CqlRow::Json(std::string_view column) const {
  size_t i = 0;
  const std::string* cell = Cell(column, &i);
  if (cell == nullptr) return "null";
  return FormatJson(*(*columns_)[i].type, *cell);
}

Result<CqlRows> CqlReader::Select(
    std::string_view cql, const std::vector<std::string>& text_values) const {
  query::QueryOptions options;
  options.consistency = Consistency::kOne;
  for (const std::string& v : text_values) {
    options.values.push_back(query::Value::Of(EncodeText(v)));
  }
  query::ClientState client;
  client.internal = true;  // not the workload: not counted
  Result<query::QueryResult> answer = processor_->Process(cql, options, &client);
  if (!answer.ok()) {
    const ErrorCode code = answer.status().code();
    // The console's own statements are fixed: a request error here is
    // the console's fault, not the HTTP client's (a 500, not a 400).
    if (code == ErrorCode::kInvalid || code == ErrorCode::kSyntaxError) {
      return Status::ServerError("the console's query failed: " +
                                 answer.status().message());
    }
    return answer.status();
  }
  query::QueryResult result = std::move(*answer);
  auto* rows = std::get_if<query::RowsResult>(&result.result);
  if (rows == nullptr)
    return Status::ServerError("not a SELECT: " + std::string(cql));
  KW_ASSIGN_OR_RETURN(auto decoded, query::DecodeRows(*rows));
  auto columns = std::make_shared<const std::vector<query::ColumnSpec>>(
      std::move(rows->columns));
  CqlRows out;
  out.rows.reserve(decoded.size());
  for (auto& cells : decoded) out.rows.emplace_back(columns, std::move(cells));
  return out;
}

}  // namespace keywise::console
