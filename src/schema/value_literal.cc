#include "schema/value_literal.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "schema/temporal_literal.h"
#include "schema/value_codec.h"
#include "schema/text_cursor.h"

namespace keywise {
namespace {

struct Token {
  std::string text;
  bool quoted = false;
};

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

class LiteralParser final : public TextCursor {
 public:
  explicit LiteralParser(std::string_view text) : TextCursor(text) {}

  Result<std::string> ParseAll(const CqlType& type) {
    KW_ASSIGN_OR_RETURN(std::optional<std::string> v, ParseTerm(type, 0));
    if (!v) return Status::Invalid("Invalid null value");
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected trailing input");
    return *std::move(v);
  }

 private:
  static constexpr int kMaxDepth = 64;

  Status Error(std::string_view what) const override {
    return Status::Invalid("Invalid literal " + std::string(text_) + ": " +
                           std::string(what));
  }

  Result<Token> ReadToken() {
    SkipSpace();
    Token t;
    if (text_.substr(pos_, 2) == "$$") {
      size_t end = text_.find("$$", pos_ + 2);
      if (end == std::string_view::npos) return Error("unterminated string");
      t.text = text_.substr(pos_ + 2, end - pos_ - 2);
      t.quoted = true;
      pos_ = end + 2;
      return t;
    }
    if (pos_ < text_.size() && text_[pos_] == '\'') {
      t.quoted = true;
      for (pos_++;; pos_++) {
        if (pos_ >= text_.size()) return Error("unterminated string");
        if (text_[pos_] == '\'') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '\'') {
            t.text.push_back('\'');
            pos_++;
          } else {
            pos_++;
            return t;
          }
        } else {
          t.text.push_back(text_[pos_]);
        }
      }
    }
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(
                                      text_[pos_])) &&
           std::string_view(",:[]{}()'").find(text_[pos_]) ==
               std::string_view::npos) {
      t.text.push_back(text_[pos_++]);
    }
    if (t.text.empty()) return Error("expected a value");
    return t;
  }

  // nullopt = the literal null.
  Result<std::optional<std::string>> ParseTerm(const CqlType& type,
                                               int depth) {
    if (depth > kMaxDepth) return Error("nesting too deep");
    SkipSpace();
    switch (type.kind()) {
      case TypeKind::kList:
      case TypeKind::kSet:
      case TypeKind::kMap:
        if (PeekNull()) return std::optional<std::string>();
        return ParseCollection(type, depth);
      case TypeKind::kTuple:
      case TypeKind::kUdt:
        if (PeekNull()) return std::optional<std::string>();
        return ParseFields(type, depth);
      default: {
        KW_ASSIGN_OR_RETURN(Token t, ReadToken());
        if (!t.quoted && IEquals(t.text, "null")) {
          return std::optional<std::string>();
        }
        KW_ASSIGN_OR_RETURN(std::string v, ParseScalar(type, t));
        return std::optional<std::string>(std::move(v));
      }
    }
  }

  bool PeekNull() {
    SkipSpace();
    if (IEquals(text_.substr(pos_, 4), "null")) {
      pos_ += 4;
      return true;
    }
    return false;
  }

  Result<std::string> Required(const CqlType& type, int depth) {
    KW_ASSIGN_OR_RETURN(std::optional<std::string> v, ParseTerm(type, depth));
    if (!v) return Status::Invalid("null is not supported inside collections");
    return *std::move(v);
  }

  Result<std::optional<std::string>> ParseCollection(const CqlType& type,
                                                     int depth) {
    bool list = type.kind() == TypeKind::kList;
    bool map = type.kind() == TypeKind::kMap;
    KW_RETURN_IF_ERROR(Expect(list ? '[' : '{'));
    std::vector<std::string> elems;
    std::vector<std::pair<std::string, std::string>> entries;
    char close = list ? ']' : '}';
    if (!Consume(close)) {
      do {
        KW_ASSIGN_OR_RETURN(std::string k, Required(*type.params()[0], depth + 1));
        if (map) {
          KW_RETURN_IF_ERROR(Expect(':'));
          KW_ASSIGN_OR_RETURN(std::string v,
                              Required(*type.params()[1], depth + 1));
          entries.emplace_back(std::move(k), std::move(v));
        } else {
          elems.push_back(std::move(k));
        }
      } while (Consume(','));
      KW_RETURN_IF_ERROR(Expect(close));
    }
    if (list) return std::optional<std::string>(EncodeList(elems));
    const CqlType& key_type = *type.params()[0];
    auto less = [&](std::string_view a, std::string_view b) {
      return CompareValues(key_type, a, b) < 0;
    };
    if (!map) {
      std::stable_sort(elems.begin(), elems.end(), less);
      elems.erase(std::unique(elems.begin(), elems.end(),
                              [&](const auto& a, const auto& b) {
                                return CompareValues(key_type, a, b) == 0;
                              }),
                  elems.end());
      return std::optional<std::string>(EncodeSet(elems));
    }
    // Later entries win for duplicate keys.
    std::reverse(entries.begin(), entries.end());
    std::stable_sort(entries.begin(), entries.end(),
                     [&](const auto& a, const auto& b) {
                       return less(a.first, b.first);
                     });
    entries.erase(std::unique(entries.begin(), entries.end(),
                              [&](const auto& a, const auto& b) {
                                return CompareValues(key_type, a.first,
                                                     b.first) == 0;
                              }),
                  entries.end());
    return std::optional<std::string>(EncodeMap(entries));
  }

  Result<std::optional<std::string>> ParseFields(const CqlType& type,
                                                 int depth) {
    bool udt = type.kind() == TypeKind::kUdt;
    const auto& params = type.params();
    std::vector<std::optional<std::string>> fields(params.size());
    KW_RETURN_IF_ERROR(Expect(udt ? '{' : '('));
    char close = udt ? '}' : ')';
    size_t n = 0;
    if (!Consume(close)) {
      do {
        size_t idx = n;
        if (udt) {
          KW_ASSIGN_OR_RETURN(Token name, ReadToken());
          auto& names = type.field_names();
          auto it = std::find(names.begin(), names.end(), name.text);
          if (it == names.end()) {
            return Status::Invalid("Unknown field '" + name.text +
                                   "' in value of user defined type " +
                                   type.udt_name());
          }
          idx = it - names.begin();
          KW_RETURN_IF_ERROR(Expect(':'));
        } else if (idx >= params.size()) {
          return Status::Invalid("Invalid tuple literal: too many elements. "
                                 "Type " + type.ToCql() + " expects " +
                                 std::to_string(params.size()) + " but got " +
                                 std::to_string(idx + 1));
        }
        KW_ASSIGN_OR_RETURN(fields[idx], ParseTerm(*params[idx], depth + 1));
        n++;
      } while (Consume(','));
      KW_RETURN_IF_ERROR(Expect(close));
    }
    if (!udt) fields.resize(n);
    return std::optional<std::string>(EncodeTuple(fields));
  }

  Status TypeError(const CqlType& type, const Token& t) {
    return Status::Invalid("Invalid " +
                           std::string(t.quoted ? "STRING" : "constant") +
                           " (" + t.text + ") for type " + type.ToCql());
  }

  Result<int64_t> ParseInteger(const CqlType& type, const Token& t,
                               int64_t min, int64_t max, const char* name) {
    if (t.quoted) return TypeError(type, t);
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(t.text.c_str(), &end, 10);
    if (*end != '\0' || t.text.empty() || !(std::isdigit(
            static_cast<unsigned char>(t.text.back())))) {
      return TypeError(type, t);
    }
    if (errno == ERANGE || v < min || v > max) {
      return Status::Invalid("Unable to make " + std::string(name) +
                             " from '" + t.text + "'");
    }
    return static_cast<int64_t>(v);
  }

  Result<double> ParseFloating(const CqlType& type, const Token& t) {
    if (t.quoted) return TypeError(type, t);
    if (t.text == "NaN") return std::nan("");
    if (t.text == "Infinity") return HUGE_VAL;
    if (t.text == "-Infinity") return -HUGE_VAL;
    char* end = nullptr;
    double v = std::strtod(t.text.c_str(), &end);
    if (*end != '\0' || t.text.empty() ||
        t.text.find_first_of("xXnNiI") != std::string::npos) {
      return TypeError(type, t);
    }
    return v;
  }

  Result<std::string> ParseScalar(const CqlType& type, const Token& t);

};

Result<std::string> LiteralParser::ParseScalar(const CqlType& type,
                                               const Token& t) {
  switch (type.kind()) {
    case TypeKind::kInt: {
      KW_ASSIGN_OR_RETURN(int64_t v, ParseInteger(type, t, INT32_MIN,
                                                  INT32_MAX, "int"));
      return EncodeInt(static_cast<int32_t>(v));
    }
    case TypeKind::kBigint:
    case TypeKind::kCounter: {
      KW_ASSIGN_OR_RETURN(int64_t v, ParseInteger(type, t, INT64_MIN,
                                                  INT64_MAX, "long"));
      return EncodeBigint(v);
    }
    case TypeKind::kSmallint: {
      KW_ASSIGN_OR_RETURN(int64_t v, ParseInteger(type, t, INT16_MIN,
                                                  INT16_MAX, "smallint"));
      return EncodeSmallint(static_cast<int16_t>(v));
    }
    case TypeKind::kTinyint: {
      KW_ASSIGN_OR_RETURN(int64_t v, ParseInteger(type, t, INT8_MIN, INT8_MAX,
                                                  "tinyint"));
      return EncodeTinyint(static_cast<int8_t>(v));
    }
    case TypeKind::kFloat: {
      KW_ASSIGN_OR_RETURN(double v, ParseFloating(type, t));
      return EncodeFloat(static_cast<float>(v));
    }
    case TypeKind::kDouble: {
      KW_ASSIGN_OR_RETURN(double v, ParseFloating(type, t));
      return EncodeDouble(v);
    }
    case TypeKind::kVarint:
      if (t.quoted) return TypeError(type, t);
      return EncodeVarint(t.text);
    case TypeKind::kDecimal:
      if (t.quoted) return TypeError(type, t);
      return EncodeDecimal(t.text);
    case TypeKind::kBoolean:
      if (!t.quoted && IEquals(t.text, "true")) return EncodeBoolean(true);
      if (!t.quoted && IEquals(t.text, "false")) return EncodeBoolean(false);
      return TypeError(type, t);
    case TypeKind::kAscii:
    case TypeKind::kVarchar: {
      if (!t.quoted) return TypeError(type, t);
      KW_RETURN_IF_ERROR(ValidateValue(type, t.text));
      return EncodeText(t.text);
    }
    case TypeKind::kBlob: {
      if (t.quoted || t.text.size() < 2 || t.text[0] != '0' ||
          (t.text[1] != 'x' && t.text[1] != 'X') || t.text.size() % 2 != 0) {
        return TypeError(type, t);
      }
      std::string out;
      for (size_t i = 2; i < t.text.size(); i += 2) {
        char* end = nullptr;
        std::string byte = t.text.substr(i, 2);
        long v = std::strtol(byte.c_str(), &end, 16);
        if (*end != '\0' || !std::isxdigit(static_cast<unsigned char>(byte[0]))) {
          return TypeError(type, t);
        }
        out.push_back(static_cast<char>(v));
      }
      return out;
    }
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid: {
      auto u = Uuid::Parse(t.text);
      if (!u) return Status::Invalid("Unable to make UUID from '" + t.text + "'");
      std::string bytes = EncodeUuid(*u);
      KW_RETURN_IF_ERROR(ValidateValue(type, bytes));
      return bytes;
    }
    case TypeKind::kTimestamp: {
      KW_ASSIGN_OR_RETURN(int64_t v, ParseTimestampString(t.text));
      return EncodeTimestamp(v);
    }
    case TypeKind::kDate: {
      KW_ASSIGN_OR_RETURN(int32_t v, ParseDateString(t.text));
      return EncodeDate(v);
    }
    case TypeKind::kTime: {
      KW_ASSIGN_OR_RETURN(int64_t v, ParseTimeString(t.text));
      return EncodeTime(v);
    }
    case TypeKind::kInet:
      if (!t.quoted) return TypeError(type, t);
      return EncodeInet(t.text);
    case TypeKind::kDuration: {
      KW_ASSIGN_OR_RETURN(CqlDuration d, ParseDurationString(t.text));
      return EncodeDuration(d.months, d.days, d.nanos);
    }
    default:
      return TypeError(type, t);
  }
}

}  // namespace

Result<std::string> ParseValueLiteral(const CqlType& type,
                                      std::string_view literal) {
  return LiteralParser(literal).ParseAll(type);
}

}  // namespace keywise
