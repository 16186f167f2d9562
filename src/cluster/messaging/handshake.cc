#include "cluster/messaging/handshake.h"

#include <algorithm>
#include <cstdio>

#include "common/coding.h"

namespace keywise::cluster {

std::string EncodeHello(const Hello& hello) {
  std::string out;
  out.reserve(kHelloSize);
  PutFixed32BE(&out, kHandshakeMagic);
  out.push_back(static_cast<char>(hello.min_version));
  out.push_back(static_cast<char>(hello.max_version));
  out.append(hello.node_id.bytes_view());
  return out;
}

Result<Hello> DecodeHello(std::string_view bytes) {
  if (bytes.size() != kHelloSize) {
    return Status::ProtocolError(
        "messaging hello of " + std::to_string(bytes.size()) +
        " bytes, expected " + std::to_string(kHelloSize));
  }
  uint32_t magic = 0;
  GetFixed32BE(&bytes, &magic);
  if (magic != kHandshakeMagic) {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "0x%08X", magic);
    return Status::ProtocolError(std::string("not a Keywise messaging peer: "
                                             "magic ") +
                                 hex);
  }
  Hello hello;
  GetByte(&bytes, &hello.min_version);
  GetByte(&bytes, &hello.max_version);
  if (hello.min_version == 0 || hello.min_version > hello.max_version) {
    return Status::ProtocolError("invalid messaging version range " +
                                 VersionRange(hello));
  }
  hello.node_id = *Uuid::FromBytes(bytes);
  return hello;
}

std::optional<uint8_t> NegotiateVersion(const Hello& a, const Hello& b) {
  const uint8_t low = std::max(a.min_version, b.min_version);
  const uint8_t high = std::min(a.max_version, b.max_version);
  if (low > high) return std::nullopt;
  return high;
}

std::string VersionRange(const Hello& hello) {
  return std::to_string(hello.min_version) + ".." +
         std::to_string(hello.max_version);
}

}  // namespace keywise::cluster
