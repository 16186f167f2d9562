#include "query/exec/json_insert.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "schema/value_json.h"

namespace keywise::query {

using nlohmann::json;

Result<QueryOptions> BindJsonValues(const WritePlan& plan,
                                    const QueryOptions& options,
                                    int64_t now_micros) {
  QueryOptions out = options;
  if (!plan.json) return out;
  const WritePlan::Json& j = *plan.json;
  KW_ASSIGN_OR_RETURN(Value text,
                      j.document->Evaluate(EvalContext{&options, now_micros}));
  if (text.is_null()) return Status::Invalid("Got null for INSERT JSON values");
  if (text.is_unset()) {
    return Status::Invalid("Got unset value for INSERT JSON values");
  }
  json document = json::parse(text.bytes, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return Status::Invalid("Could not decode JSON string as a map: " +
                           std::string(document.is_discarded()
                                           ? "malformed JSON"
                                           : "not a JSON object") +
                           ". (String was: " + text.bytes + ")");
  }
  const TableDef& table = *plan.table;
  const size_t first = static_cast<size_t>(j.first_hidden);
  out.values.resize(first + table.columns.size(),
                    j.default_unset ? Value::Unset() : Value::Null());
  for (const auto& [key, value] : document.items()) {
    const std::string name = JsonKeyName(key);
    const ColumnDef* column = table.FindColumn(name);
    if (column == nullptr) {
      return Status::Invalid("JSON values map contains unrecognized column: " +
                             name);
    }
    const size_t index =
        first + static_cast<size_t>(column - table.columns.data());
    if (value.is_null()) {
      out.values[index] = Value::Null();
      continue;
    }
    Result<std::string> bytes = ValueFromJson(*column->type, value);
    if (!bytes.ok()) {
      return Status::Invalid("Error decoding JSON value for " + column->name +
                             ": " + bytes.status().message());
    }
    out.values[index] = Value::Of(std::move(bytes).value());
  }
  return out;
}

}  // namespace keywise::query
