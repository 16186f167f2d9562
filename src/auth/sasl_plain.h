// SASL PLAIN (RFC 4616) as Cassandra's PasswordAuthenticator reads an
// AUTH_RESPONSE token: [authzid] NUL authcid NUL password, read from the
// end; the authzid, if any, is ignored. Errors are BadCredentials with
// Cassandra's messages (docs/security.md, 1.3).
//
// Contract: pure, thread-safe; never trusts its input.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::auth {

struct Credentials {
  std::string user;
  std::string password;
};

Result<Credentials> DecodeSaslPlain(std::string_view token);

// The token a client sends: NUL user NUL password.
std::string EncodeSaslPlain(std::string_view user, std::string_view password);

}  // namespace keywise::auth
