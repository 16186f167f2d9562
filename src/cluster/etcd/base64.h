// Standard base64 (RFC 4648, with padding), as etcd's JSON gateway encodes
// every `bytes` field (keys, values, range ends).
//
// Contract: pure functions, thread-safe. Built on OpenSSL's EVP block
// coders.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::cluster {

// Returns the padded base64 text of `bytes`.
std::string Base64Encode(std::string_view bytes);

// Returns the bytes that `text` encodes; Invalid when `text` is not padded
// standard base64 (length a multiple of 4, alphabet A-Z a-z 0-9 + /).
Result<std::string> Base64Decode(std::string_view text);

}  // namespace keywise::cluster
