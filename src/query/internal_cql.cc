#include "query/internal_cql.h"

#include "query/expr/value.h"
#include "schema/value_codec.h"

namespace keywise::query {

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

bool CqlRow::Bool(std::string_view column) const {
  size_t i = 0;
  const std::string* cell = Cell(column, &i);
  if (cell == nullptr || (*columns_)[i].type->kind() != TypeKind::kBoolean) {
    return false;
  }
  Result<bool> v = DecodeBoolean(*cell);
  return v.ok() && *v;
}

bool CqlRow::IsNull(std::string_view column) const {
  size_t i = 0;
  return Cell(column, &i) == nullptr;
}

std::vector<std::string> CqlRow::TextSet(std::string_view column) const {
  size_t i = 0;
  const std::string* cell = Cell(column, &i);
  if (cell == nullptr) return {};
  Result<std::vector<std::string>> v = DecodeSet(*cell);
  return v.ok() ? std::move(*v) : std::vector<std::string>{};
}

namespace {

Result<QueryResult> RunInternal(QueryProcessor* processor, std::string_view cql,
                                const std::vector<std::string>& text_values) {
  QueryOptions options;
  options.consistency = Consistency::kOne;
  for (const std::string& v : text_values) {
    options.values.push_back(Value::Of(EncodeText(v)));
  }
  ClientState client;
  client.internal = true;  // not the workload: not counted
  Result<QueryResult> answer = processor->Process(cql, options, &client);
  if (!answer.ok()) {
    const ErrorCode code = answer.status().code();
    // The node's own statements are fixed: a request error here is the
    // node's fault, not its client's (for the console, a 500, not a 400).
    if (code == ErrorCode::kInvalid || code == ErrorCode::kSyntaxError) {
      return Status::ServerError("the node's own query failed: " +
                                 answer.status().message());
    }
  }
  return answer;
}

}  // namespace

Status InternalCql::Execute(std::string_view cql,
                            const std::vector<std::string>& text_values) const {
  return RunInternal(processor_, cql, text_values).status();
}

Result<CqlRows> InternalCql::Select(
    std::string_view cql, const std::vector<std::string>& text_values) const {
  KW_ASSIGN_OR_RETURN(QueryResult result,
                      RunInternal(processor_, cql, text_values));
  auto* rows = std::get_if<RowsResult>(&result.result);
  if (rows == nullptr)
    return Status::ServerError("not a SELECT: " + std::string(cql));
  KW_ASSIGN_OR_RETURN(auto decoded, DecodeRows(*rows));
  auto columns = std::make_shared<const std::vector<ColumnSpec>>(
      std::move(rows->columns));
  CqlRows out;
  out.rows.reserve(decoded.size());
  for (auto& cells : decoded) out.rows.emplace_back(columns, std::move(cells));
  return out;
}

}  // namespace keywise::query
