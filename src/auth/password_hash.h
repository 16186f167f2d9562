// Password hashes as Cassandra stores them in system_auth.roles.salted_hash:
// bcrypt "$2a$NN$" + 22 characters of salt + 31 of hash (jBCrypt's format),
// made and checked with Debian's libxcrypt, so hashes move between Cassandra
// and Keywise both ways (docs/security.md, 1.5).
//
// Contract: thread-safe (crypt_rn with a per-call buffer). Slow on purpose
// (2^rounds iterations; about 86 ms at 10 rounds here): never call it on an
// I/O loop.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::auth {

// Cassandra's default, and the range it accepts.
inline constexpr int kDefaultBcryptRounds = 10;
inline constexpr int kMinBcryptRounds = 4;
inline constexpr int kMaxBcryptRounds = 31;

// A new salted hash of `password`; ServerError if the system's random
// source or libxcrypt fails. REQUIRES: kMinBcryptRounds <= log2_rounds <=
// kMaxBcryptRounds.
Result<std::string> HashPassword(std::string_view password, int log2_rounds);

enum class PasswordCheck { kMatch, kMismatch, kMalformedHash };

// Whether `password` hashes to `stored` (compared in constant time).
PasswordCheck CheckPassword(std::string_view password, std::string_view stored);

}  // namespace keywise::auth
