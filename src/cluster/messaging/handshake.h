// Handshake: the first bytes each side of a messaging connection sends, and
// the choice of the version both then speak.
//
// Wire layout of a hello, 22 bytes, the same in both directions. It is how
// nodes of every version recognise each other: DO NOT CHANGE.
//
//   offset  size  field
//   0       4     magic 0x4B 0x57 0x4D 0x53 ("KWMS"; kHandshakeMagic, BE)
//   4       1     min_version: the lowest messaging version the sender speaks
//   5       1     max_version: the highest one; 1 <= min_version <= max_version
//   6       16    node_id: the sender's node id, a uuid in RFC 4122 byte order
//
// The connecting side sends its hello first; the accepting side reads it and
// answers with its own hello, also when it refuses. Both then apply
// NegotiateVersion (the highest version in both ranges) and tag every frame
// with it. When the ranges do not overlap, each side logs an error naming
// both ranges and the accepting side closes the connection after its hello.
//
// Contract: pure functions over bytes, safe on untrusted input, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/uuid.h"

namespace keywise::cluster {

inline constexpr uint32_t kHandshakeMagic = 0x4B574D53;  // "KWMS"
inline constexpr size_t kHelloSize = 22;

// Messaging versions this build speaks. Version 1 is the frame layout of
// frame.h. A build that changes the frame layout adds a version and keeps
// speaking the previous one, so nodes one release apart still talk.
inline constexpr uint8_t kMessagingVersion1 = 1;
// Version 2: requests and one-way messages carry the sender's epoch
// (frame.h).
inline constexpr uint8_t kMessagingVersion2 = 2;
inline constexpr uint8_t kMinMessagingVersion = kMessagingVersion1;
inline constexpr uint8_t kMaxMessagingVersion = kMessagingVersion2;

struct Hello {
  uint8_t min_version = kMinMessagingVersion;
  uint8_t max_version = kMaxMessagingVersion;
  Uuid node_id;
};

// Returns the 22 bytes of `hello`.
std::string EncodeHello(const Hello& hello);

// Decodes exactly kHelloSize bytes. ProtocolError when the size or the magic
// is wrong (not a Keywise node) or the range is empty (min 0, min > max).
Result<Hello> DecodeHello(std::string_view bytes);

// Returns the highest version both ranges contain, or nullopt when they do
// not overlap.
std::optional<uint8_t> NegotiateVersion(const Hello& a, const Hello& b);

// "1..2", for log lines.
std::string VersionRange(const Hello& hello);

}  // namespace keywise::cluster
