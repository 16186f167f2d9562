// A request target split into its path and query parameters, %-decoded,
// and typed reads of the parameters that answer a message for a 400.
//
// Contract: pure. ParseTarget refuses (Invalid, with a message naming the
// problem) a target that is not origin-form ("/..."), a bad %-escape, a
// NUL byte, a parameter given twice and more than 32 parameters; '+' in
// the query string is a space, as browsers send forms.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::console {

class QueryParams {
 public:
  QueryParams() = default;
  explicit QueryParams(std::map<std::string, std::string> values)
      : values_(std::move(values)) {}

  // The parameter's text; Invalid "missing parameter NAME" when absent or
  // empty.
  Result<std::string> Required(const std::string& name) const;
  // nullopt when absent or empty.
  std::optional<std::string> Optional(const std::string& name) const;
  // A decimal integer in [min, max]; nullopt when absent or empty; Invalid
  // naming the parameter when not one.
  Result<std::optional<int64_t>> Integer(const std::string& name, int64_t min,
                                         int64_t max) const;
  // Invalid naming the first parameter not in `known` (a typo is an error,
  // not silently ignored).
  Status OnlyKnown(std::initializer_list<std::string_view> known) const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

struct RequestTarget {
  std::string path;  // decoded
  QueryParams params;
};

Result<RequestTarget> ParseTarget(std::string_view target);

}  // namespace keywise::console
