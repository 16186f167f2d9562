#include "console/request_target.h"

#include <charconv>
#include <vector>

namespace keywise::console {
namespace {

constexpr size_t kMaxParams = 32;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %-decodes `text`; `plus_is_space` for query strings.
Result<std::string> Decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      const int hi = i + 1 < text.size() ? HexDigit(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? HexDigit(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return Status::Invalid("bad %-escape in the request target");
      }
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    if (c == '\0') return Status::Invalid("NUL byte in the request target");
    out += c;
  }
  return out;
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find(sep, start);
    const size_t stop = end == std::string_view::npos ? text.size() : end;
    out.push_back(text.substr(start, stop - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

Result<std::string> QueryParams::Required(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) {
    return Status::Invalid("missing parameter " + name);
  }
  return it->second;
}

std::optional<std::string> QueryParams::Optional(
    const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

Result<std::optional<int64_t>> QueryParams::Integer(const std::string& name,
                                                    int64_t min,
                                                    int64_t max) const {
  const std::optional<std::string> text = Optional(name);
  if (!text) return std::optional<int64_t>();
  int64_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) {
    return Status::Invalid("parameter " + name + " must be an integer, not '" +
                           *text + "'");
  }
  if (value < min || value > max) {
    return Status::Invalid("parameter " + name + " must be between " +
                           std::to_string(min) + " and " + std::to_string(max));
  }
  return std::optional<int64_t>(value);
}

Status QueryParams::OnlyKnown(
    std::initializer_list<std::string_view> known) const {
  for (const auto& [name, value] : values_) {
    bool found = false;
    for (std::string_view k : known) found = found || k == name;
    if (!found) return Status::Invalid("unknown parameter " + name);
  }
  return Status::OK();
}

Result<RequestTarget> ParseTarget(std::string_view target) {
  if (target.empty() || target.front() != '/') {
    return Status::Invalid("the request target must start with '/'");
  }
  const size_t question = target.find('?');
  RequestTarget out;
  KW_ASSIGN_OR_RETURN(out.path, Decode(target.substr(0, question), false));
  if (question == std::string_view::npos) return out;
  std::map<std::string, std::string> values;
  for (std::string_view pair : Split(target.substr(question + 1), '&')) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    KW_ASSIGN_OR_RETURN(std::string name, Decode(pair.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      KW_ASSIGN_OR_RETURN(value, Decode(pair.substr(eq + 1), true));
    }
    if (values.count(name) != 0) {
      return Status::Invalid("parameter " + name + " is given twice");
    }
    if (values.size() == kMaxParams) {
      return Status::Invalid("more than 32 parameters");
    }
    values.emplace(std::move(name), std::move(value));
  }
  out.params = QueryParams(std::move(values));
  return out;
}

}  // namespace keywise::console
