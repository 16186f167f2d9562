#include "auth/login.h"

#include "auth/password_hash.h"

namespace keywise::auth {

Status CheckLogin(const AuthState& state, const Credentials& credentials,
                  std::string_view dummy_hash, bool* malformed_hash) {
  const Role* role = state.Find(credentials.user);
  const bool has_hash = role != nullptr && role->salted_hash.has_value();
  const PasswordCheck check = CheckPassword(
      credentials.password, has_hash ? *role->salted_hash : dummy_hash);
  if (malformed_hash != nullptr) {
    *malformed_hash = has_hash && check == PasswordCheck::kMalformedHash;
  }
  if (!has_hash || check != PasswordCheck::kMatch) {
    return Status(ErrorCode::kBadCredentials,
                  "Provided username " + credentials.user +
                      " and/or password are incorrect");
  }
  if (!role->login) {
    return Status(ErrorCode::kBadCredentials,
                  credentials.user + " is not permitted to log in");
  }
  return Status::OK();
}

}  // namespace keywise::auth
