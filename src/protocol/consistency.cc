#include "protocol/consistency.h"

#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace keywise::protocol {
namespace {

constexpr std::array<std::pair<Consistency, std::string_view>, 11>
    kConsistencyNames = {{
        {Consistency::kAny, "ANY"},
        {Consistency::kOne, "ONE"},
        {Consistency::kTwo, "TWO"},
        {Consistency::kThree, "THREE"},
        {Consistency::kQuorum, "QUORUM"},
        {Consistency::kAll, "ALL"},
        {Consistency::kLocalQuorum, "LOCAL_QUORUM"},
        {Consistency::kEachQuorum, "EACH_QUORUM"},
        {Consistency::kSerial, "SERIAL"},
        {Consistency::kLocalSerial, "LOCAL_SERIAL"},
        {Consistency::kLocalOne, "LOCAL_ONE"},
    }};

}  // namespace

std::string_view ConsistencyName(Consistency c) {
  for (const auto& [value, name] : kConsistencyNames) {
    if (value == c) return name;
  }
  return "UNKNOWN";
}

std::optional<Consistency> ParseConsistency(std::string_view name) {
  std::string upper;
  for (char ch : name) {
    upper.push_back(
        static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
  }
  for (const auto& [value, n] : kConsistencyNames) {
    if (n == upper) return value;
  }
  return std::nullopt;
}

}  // namespace keywise::protocol
