#include "common/token.h"

#include "common/coding.h"
#include "common/murmur3.h"

namespace keywise {
namespace {
constexpr uint64_t kSignBit = uint64_t{1} << 63;
}  // namespace

Token TokenOfKey(std::string_view serialized_partition_key) {
  if (serialized_partition_key.empty()) return kMinimumToken;
  int64_t hash[2];
  CassandraMurmur3X64_128(serialized_partition_key, 0, hash);
  if (hash[0] == std::numeric_limits<int64_t>::min()) {
    return Token{std::numeric_limits<int64_t>::max()};
  }
  return Token{hash[0]};
}

void AppendTokenOrdered(Token token, std::string* out) {
  PutFixed64BE(out, static_cast<uint64_t>(token.value) ^ kSignBit);
}

Token DecodeTokenOrdered(const char* p) {
  return Token{static_cast<int64_t>(DecodeFixed64BE(p) ^ kSignBit)};
}

}  // namespace keywise
