// The login check of PasswordAuthenticator (docs/security.md, 1.3): the
// credentials against a state. Every failure but one answers "Provided
// username <user> and/or password are incorrect", whether the role is
// missing, has no password or another one; only the right password of a
// role that cannot log in learns "<user> is not permitted to log in". A
// missing role, or one without a hash, is checked against `dummy_hash`
// (a hash of the same cost) so that the answer takes as long.
//
// Contract: pure but slow (a bcrypt check): never on an I/O loop.
// Thread-safe.
#pragma once

#include <string_view>

#include "auth/auth_state.h"
#include "auth/sasl_plain.h"
#include "common/status.h"

namespace keywise::auth {

// OK when `credentials` log in; BadCredentials otherwise. A malformed
// stored hash fails the login as a wrong password (the caller logs it:
// *malformed_hash is set).
Status CheckLogin(const AuthState& state, const Credentials& credentials,
                  std::string_view dummy_hash, bool* malformed_hash = nullptr);

}  // namespace keywise::auth
