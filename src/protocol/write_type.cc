#include "protocol/write_type.h"

#include <array>

namespace keywise::protocol {
namespace {

constexpr std::array<std::string_view, 8> kNames = {
    "SIMPLE", "BATCH", "UNLOGGED_BATCH", "COUNTER",
    "BATCH_LOG", "CAS", "VIEW", "CDC"};

}  // namespace

std::string_view WriteTypeName(WriteType type) {
  const auto i = static_cast<size_t>(type);
  return i < kNames.size() ? kNames[i] : "SIMPLE";
}

std::optional<WriteType> ParseWriteType(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<WriteType>(i);
  }
  return std::nullopt;
}

}  // namespace keywise::protocol
