#include "query/exec/json_insert.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "schema/value_literal.h"

namespace keywise::query {
namespace {

using nlohmann::json;

// A column or field name as a JSON key names it: case-sensitive inside
// double quotes, else lower-cased.
std::string KeyName(const std::string& key) {
  if (key.size() >= 2 && key.front() == '"' && key.back() == '"') {
    return key.substr(1, key.size() - 2);
  }
  std::string out = key;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

Status Expected(const char* what, const json& got) {
  return Status::Invalid(std::string("Expected ") + what + ", but got " +
                         got.dump());
}

// The CQL literal text of `value` for `type`, which ParseValueLiteral then
// checks and serializes (sorting sets and map keys as Cassandra does).
Result<std::string> Literal(const CqlType& type, const json& value) {
  if (value.is_null()) return std::string("null");
  switch (type.kind()) {
    case TypeKind::kAscii:
    case TypeKind::kVarchar:
      if (!value.is_string()) return Expected("a string", value);
      return Quoted(value.get<std::string>());
    case TypeKind::kBoolean:
      if (value.is_boolean()) return std::string(value ? "true" : "false");
      if (value.is_string()) return value.get<std::string>();
      return Expected("a boolean value", value);
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kVarint:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDecimal:
      if (value.is_number()) return value.dump();
      if (value.is_string()) return value.get<std::string>();
      return Expected("a number", value);
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
    case TypeKind::kBlob:
    case TypeKind::kDuration:
      if (!value.is_string()) return Expected("a string", value);
      return value.get<std::string>();
    case TypeKind::kTimestamp:
    case TypeKind::kDate:
    case TypeKind::kTime:
      if (value.is_number_integer()) return value.dump();
      if (!value.is_string()) return Expected("a string or an integer", value);
      return Quoted(value.get<std::string>());
    case TypeKind::kInet:
      if (!value.is_string()) return Expected("a string", value);
      return Quoted(value.get<std::string>());
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kTuple: {
      if (!value.is_array()) return Expected("a list", value);
      const bool tuple = type.kind() == TypeKind::kTuple;
      if (tuple && value.size() != type.params().size()) {
        return Status::Invalid("Expected " +
                               std::to_string(type.params().size()) +
                               " items in a tuple, but got " +
                               std::to_string(value.size()));
      }
      std::string out = type.kind() == TypeKind::kList ? "["
                        : tuple                        ? "("
                                                       : "{";
      for (size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += ", ";
        KW_ASSIGN_OR_RETURN(std::string e,
                            Literal(*type.params()[tuple ? i : 0], value[i]));
        out += e;
      }
      out += type.kind() == TypeKind::kList ? "]" : tuple ? ")" : "}";
      return out;
    }
    case TypeKind::kMap: {
      if (!value.is_object()) return Expected("a map", value);
      const CqlType& key_type = *type.params()[0];
      const bool text_keys = key_type.kind() == TypeKind::kVarchar ||
                             key_type.kind() == TypeKind::kAscii;
      std::string out = "{";
      bool first = true;
      for (const auto& [k, v] : value.items()) {
        if (!first) out += ", ";
        first = false;
        // A non-string key is the JSON text of the key (Cassandra parses it).
        json key = k;
        if (!text_keys) {
          json parsed = json::parse(k, nullptr, /*allow_exceptions=*/false);
          if (!parsed.is_discarded()) key = std::move(parsed);
        }
        KW_ASSIGN_OR_RETURN(std::string ks, Literal(key_type, key));
        KW_ASSIGN_OR_RETURN(std::string vs, Literal(*type.params()[1], v));
        out += ks + ": " + vs;
      }
      return out + "}";
    }
    case TypeKind::kUdt: {
      if (!value.is_object()) return Expected("a map", value);
      std::string out = "{";
      bool first = true;
      for (const auto& [k, v] : value.items()) {
        const std::string name = KeyName(k);
        const auto& names = type.field_names();
        auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end()) {
          return Status::Invalid("Unknown field '" + name + "' in value of "
                                 "user defined type " + type.udt_name());
        }
        if (!first) out += ", ";
        first = false;
        KW_ASSIGN_OR_RETURN(std::string vs,
                            Literal(*type.params()[it - names.begin()], v));
        out += "\"" + name + "\": " + vs;
      }
      return out + "}";
    }
    default:
      return Status::Invalid("JSON values of type " + type.ToCql() +
                             " are not supported");
  }
}

}  // namespace

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
    return Status::Invalid(
        "Could not decode JSON string as a map: " +
        std::string(document.is_discarded() ? "malformed JSON"
                                            : "not a JSON object") +
        ". (String was: " + text.bytes + ")");
  }
  const TableDef& table = *plan.table;
  const size_t first = static_cast<size_t>(j.first_hidden);
  out.values.resize(first + table.columns.size(),
                    j.default_unset ? Value::Unset() : Value::Null());
  for (const auto& [key, value] : document.items()) {
    const std::string name = KeyName(key);
    const ColumnDef* column = table.FindColumn(name);
    if (column == nullptr) {
      return Status::Invalid("JSON values map contains unrecognized column: " +
                             name);
    }
    const size_t index = first + static_cast<size_t>(column - table.columns.data());
    if (value.is_null()) {
      out.values[index] = Value::Null();
      continue;
    }
    Result<std::string> literal = Literal(*column->type, value);
    Result<std::string> bytes =
        literal.ok() ? ParseValueLiteral(*column->type, *literal)
                     : Result<std::string>(literal.status());
    if (!bytes.ok()) {
      return Status::Invalid("Error decoding JSON value for " + column->name +
                             ": " + bytes.status().message());
    }
    out.values[index] = Value::Of(std::move(bytes).value());
  }
  return out;
}

}  // namespace keywise::query
