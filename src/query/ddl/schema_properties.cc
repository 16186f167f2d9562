#include "query/ddl/schema_properties.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace keywise::query {
namespace {

Status BadValue(const std::string& property, const cql::Term& term) {
  std::string msg = "Invalid property value for property '" + property + "'";
  if (term.IsBindMarker()) {
    msg += " (bind variables are not supported in DDL queries)";
  }
  return Status::SyntaxError(std::move(msg));
}

bool IsConstant(const cql::Term& term) {
  return term.kind == cql::TermKind::kLiteral;
}

}  // namespace

Result<SchemaProperties> SchemaProperties::From(
    const std::vector<cql::Property>& properties) {
  SchemaProperties out;
  for (const cql::Property& p : properties) {
    Value v;
    const cql::Term& t = p.value;
    if (t.kind == cql::TermKind::kIdentifier) {
      v.text = t.text;
    } else if (IsConstant(t)) {
      v.text = t.text;
      v.quoted = t.literal_kind == cql::LiteralKind::kString;
    } else if (t.kind == cql::TermKind::kMap) {
      v.is_map = true;
      for (size_t i = 0; i + 1 < t.elements.size(); i += 2) {
        const cql::Term& key = t.elements[i];
        const cql::Term& value = t.elements[i + 1];
        if (!IsConstant(key) || !IsConstant(value)) {
          return BadValue(p.name, IsConstant(key) ? value : key);
        }
        if (!v.map.emplace(key.text, value.text).second) {
          return Status::SyntaxError("Multiple definition for property " +
                                     key.text);
        }
      }
    } else {
      return BadValue(p.name, t);
    }
    if (!out.values_.emplace(p.name, std::move(v)).second) {
      return Status::SyntaxError("Multiple definition for property '" + p.name +
                                 "'");
    }
    out.order_.push_back(p.name);
  }
  return out;
}

Status SchemaProperties::CheckKnown(
    const std::set<std::string, std::less<>>& known) const {
  for (const std::string& name : order_) {
    if (known.count(name) == 0) {
      return Status::SyntaxError("Unknown property '" + name + "'");
    }
  }
  return Status::OK();
}

const SchemaProperties::Value* SchemaProperties::Find(
    std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

Result<std::optional<std::string>> SchemaProperties::GetString(
    std::string_view name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::optional<std::string>();
  if (v->is_map) {
    return Status::SyntaxError("Invalid value for property '" +
                               std::string(name) + "'. It should be a string");
  }
  return std::optional<std::string>(v->text);
}

Result<std::optional<PropertyMap>> SchemaProperties::GetMap(
    std::string_view name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::optional<PropertyMap>();
  if (!v->is_map) {
    return Status::SyntaxError("Invalid value for property '" +
                               std::string(name) + "'. It should be a map.");
  }
  return std::optional<PropertyMap>(v->map);
}

Result<std::optional<int32_t>> SchemaProperties::GetInt(
    std::string_view name) const {
  KW_ASSIGN_OR_RETURN(std::optional<std::string> text, GetString(name));
  if (!text) return std::optional<int32_t>();
  std::optional<int32_t> v = ParseJavaInt(*text);
  if (!v) {
    return Status::SyntaxError("Invalid integer value " + *text + " for '" +
                               std::string(name) + "'");
  }
  return v;
}

Result<std::optional<double>> SchemaProperties::GetDouble(
    std::string_view name) const {
  KW_ASSIGN_OR_RETURN(std::optional<std::string> text, GetString(name));
  if (!text) return std::optional<double>();
  std::optional<double> v = ParseJavaDouble(*text);
  if (!v) {
    return Status::SyntaxError("Invalid double value " + *text + " for '" +
                               std::string(name) + "'");
  }
  return v;
}

Result<std::optional<bool>> SchemaProperties::GetBoolean(
    std::string_view name) const {
  KW_ASSIGN_OR_RETURN(std::optional<std::string> text, GetString(name));
  if (!text) return std::optional<bool>();
  std::string lower;
  for (char c : *text) {
    lower.push_back(
        static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return std::optional<bool>(lower == "1" || lower == "true" || lower == "yes");
}

std::string SchemaProperties::CqlText(std::string_view name) const {
  const Value* v = Find(name);
  if (v == nullptr) return "";
  if (v->is_map) return MapToCql(v->map);
  return v->quoted ? QuoteCql(v->text) : v->text;
}

std::optional<int32_t> ParseJavaInt(std::string_view text) {
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty() || digits[0] == '+') return std::nullopt;
  int32_t value = 0;
  auto [ptr, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> ParseJavaDouble(std::string_view text) {
  std::string s(text);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
    s.pop_back();
  }
  // Java accepts a trailing type suffix (1.5d, 2f).
  if (!s.empty() && (s.back() == 'd' || s.back() == 'D' || s.back() == 'f' ||
                     s.back() == 'F')) {
    s.pop_back();
  }
  size_t start = 0;
  while (start < s.size() &&
         std::isspace(static_cast<unsigned char>(s[start]))) {
    ++start;
  }
  if (start == s.size()) return std::nullopt;
  std::string_view body(s.data() + start, s.size() - start);
  std::string_view unsigned_body = body;
  bool negative = false;
  if (!unsigned_body.empty() &&
      (unsigned_body[0] == '-' || unsigned_body[0] == '+')) {
    negative = unsigned_body[0] == '-';
    unsigned_body.remove_prefix(1);
  }
  if (unsigned_body == "NaN") return std::nan("");
  if (unsigned_body == "Infinity") {
    return negative ? -HUGE_VAL : HUGE_VAL;
  }
  // Only Java's decimal forms: digits, '.', exponent.
  for (char c : unsigned_body) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' &&
        c != 'E' && c != '-' && c != '+') {
      return std::nullopt;
    }
  }
  char* end = nullptr;
  std::string owned(body);
  double v = std::strtod(owned.c_str(), &end);
  if (end != owned.c_str() + owned.size()) return std::nullopt;
  return v;
}

std::string JavaDoubleString(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  double magnitude = std::fabs(value);
  if (magnitude == 0 || (magnitude >= 1e-3 && magnitude < 1e7)) {
    auto [ptr, ec] =
        std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed);
    std::string out(buf, ptr);
    if (out.find('.') == std::string::npos) out += ".0";
    return out;
  }
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), value,
                                 std::chars_format::scientific);
  std::string sci(buf, ptr);  // e.g. "6.71e-05"
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  std::string exponent = sci.substr(e + 1);
  bool negative_exp = !exponent.empty() && exponent[0] == '-';
  if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) {
    exponent.erase(0, 1);
  }
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return mantissa + "E" + (negative_exp ? "-" : "") + exponent;
}

std::string QuoteCql(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

std::string MapToCql(const PropertyMap& map) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : map) {
    if (!first) out += ", ";
    first = false;
    out += QuoteCql(k) + ": " + QuoteCql(v);
  }
  out += "}";
  return out;
}

}  // namespace keywise::query
