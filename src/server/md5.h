// Md5: the digest behind prepared statement ids and result metadata ids,
// which Cassandra computes with MD5 (QueryProcessor.computeId).
//
// Contract: pure function, thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace keywise::server {

// Returns the 16-byte MD5 digest of `bytes`.
std::string Md5(std::string_view bytes);

}  // namespace keywise::server
