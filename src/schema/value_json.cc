#include "schema/value_json.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schema/value_codec.h"
#include "schema/value_literal.h"

namespace keywise {

using nlohmann::json;

// A column or field name as a JSON key names it: case-sensitive inside
// double quotes, else lower-cased.
std::string JsonKeyName(const std::string& key) {
  if (key.size() >= 2 && key.front() == '"' && key.back() == '"') {
    return key.substr(1, key.size() - 2);
  }
  std::string out = key;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

namespace {

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

// One scalar from its CQL literal text, parsed on its own (so that text
// inside a JSON string can never become more than one value).
Result<std::string> Scalar(const CqlType& type, const std::string& literal) {
  return ParseValueLiteral(type, literal);
}

Result<std::string> Element(const CqlType& type, const json& value) {
  if (value.is_null()) {
    return Status::Invalid("null is not supported inside collections");
  }
  return ValueFromJson(type, value);
}

}  // namespace

Result<std::string> ValueFromJson(const CqlType& type, const json& value) {
  switch (type.kind()) {
    case TypeKind::kAscii:
    case TypeKind::kVarchar:
      if (!value.is_string()) return Expected("a string", value);
      return Scalar(type, Quoted(value.get<std::string>()));
    case TypeKind::kBoolean:
      if (value.is_boolean()) return Scalar(type, value ? "true" : "false");
      if (value.is_string()) return Scalar(type, value.get<std::string>());
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
      if (value.is_number()) return Scalar(type, value.dump());
      if (value.is_string()) return Scalar(type, value.get<std::string>());
      return Expected("a number", value);
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
    case TypeKind::kBlob:
    case TypeKind::kDuration:
      if (!value.is_string()) return Expected("a string", value);
      return Scalar(type, value.get<std::string>());
    case TypeKind::kTimestamp:
    case TypeKind::kDate:
    case TypeKind::kTime:
      if (value.is_number_integer()) return Scalar(type, value.dump());
      if (!value.is_string()) return Expected("a string or an integer", value);
      return Scalar(type, Quoted(value.get<std::string>()));
    case TypeKind::kInet:
      if (!value.is_string()) return Expected("a string", value);
      return Scalar(type, Quoted(value.get<std::string>()));
    case TypeKind::kList:
    case TypeKind::kSet: {
      if (!value.is_array()) return Expected("a list", value);
      const CqlType& element = *type.params()[0];
      std::vector<std::string> out;
      for (const json& e : value) {
        KW_ASSIGN_OR_RETURN(std::string b, Element(element, e));
        out.push_back(std::move(b));
      }
      if (type.kind() == TypeKind::kList) return EncodeList(out);
      // Sets are stored sorted in the element type's order, each once.
      std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
        return CompareValues(element, a, b) < 0;
      });
      out.erase(std::unique(out.begin(), out.end(),
                            [&](const auto& a, const auto& b) {
                              return CompareValues(element, a, b) == 0;
                            }),
                out.end());
      return EncodeSet(out);
    }
    case TypeKind::kMap: {
      if (!value.is_object()) return Expected("a map", value);
      const CqlType& key_type = *type.params()[0];
      const bool text_keys = key_type.kind() == TypeKind::kVarchar ||
                             key_type.kind() == TypeKind::kAscii;
      std::vector<std::pair<std::string, std::string>> entries;
      for (const auto& [k, v] : value.items()) {
        // A non-string key is the JSON text of the key (Cassandra parses it).
        json key = k;
        if (!text_keys) {
          json parsed = json::parse(k, nullptr, /*allow_exceptions=*/false);
          if (!parsed.is_discarded()) key = std::move(parsed);
        }
        KW_ASSIGN_OR_RETURN(std::string kb, Element(key_type, key));
        KW_ASSIGN_OR_RETURN(std::string vb, Element(*type.params()[1], v));
        entries.emplace_back(std::move(kb), std::move(vb));
      }
      std::stable_sort(entries.begin(), entries.end(),
                       [&](const auto& a, const auto& b) {
                         return CompareValues(key_type, a.first, b.first) < 0;
                       });
      std::vector<std::pair<std::string, std::string>> unique;
      for (auto& e : entries) {
        if (!unique.empty() &&
            CompareValues(key_type, unique.back().first, e.first) == 0) {
          unique.back() = std::move(e);  // the later one, as map literals
        } else {
          unique.push_back(std::move(e));
        }
      }
      return EncodeMap(unique);
    }
    case TypeKind::kTuple: {
      if (!value.is_array()) return Expected("a list", value);
      if (value.size() != type.params().size()) {
        return Status::Invalid(
            "Expected " + std::to_string(type.params().size()) +
            " items in a tuple, but got " + std::to_string(value.size()));
      }
      std::vector<std::optional<std::string>> fields;
      for (size_t i = 0; i < value.size(); ++i) {
        if (value[i].is_null()) {
          fields.emplace_back(std::nullopt);
          continue;
        }
        KW_ASSIGN_OR_RETURN(std::string b,
                            ValueFromJson(*type.params()[i], value[i]));
        fields.emplace_back(std::move(b));
      }
      return EncodeTuple(fields);
    }
    case TypeKind::kUdt: {
      if (!value.is_object()) return Expected("a map", value);
      const auto& names = type.field_names();
      std::vector<std::optional<std::string>> fields(names.size());
      for (const auto& [k, v] : value.items()) {
        const std::string name = JsonKeyName(k);
        auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end()) {
          return Status::Invalid("Unknown field '" + name +
                                 "' in value of "
                                 "user defined type " +
                                 type.udt_name());
        }
        if (v.is_null()) continue;
        const size_t i = static_cast<size_t>(it - names.begin());
        KW_ASSIGN_OR_RETURN(std::string b, ValueFromJson(*type.params()[i], v));
        fields[i] = std::move(b);
      }
      return EncodeTuple(fields);
    }
    default:
      return Status::Invalid("JSON values of type " + type.ToCql() +
                             " are not supported");
  }
}

Result<std::optional<std::string>> ValueFromJsonText(const CqlType& type,
                                                     std::string_view text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return Status::Invalid("Could not decode JSON string '" +
                           std::string(text) + "'");
  }
  if (value.is_null()) return std::optional<std::string>();
  KW_ASSIGN_OR_RETURN(std::string bytes, ValueFromJson(type, value));
  return std::optional<std::string>(std::move(bytes));
}

}  // namespace keywise
