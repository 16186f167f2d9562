#include "auth/password_hash.h"

#include <crypt.h>

#include <memory>

namespace keywise::auth {
namespace {

// "$2a$" and its variants, the only hashes accepted.
bool IsBcrypt(std::string_view hash) {
  return hash.size() == 60 &&
         (hash.starts_with("$2a$") || hash.starts_with("$2b$") ||
          hash.starts_with("$2y$"));
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

}  // namespace

Result<std::string> HashPassword(std::string_view password, int log2_rounds) {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2a$", static_cast<unsigned long>(log2_rounds),
                       nullptr, 0, setting, sizeof setting) == nullptr) {
    return Status::ServerError("could not make a password salt");
  }
  const std::string text(password);  // NUL-terminated for crypt_rn
  auto data = std::make_unique<crypt_data>();
  const char* hash = crypt_rn(text.c_str(), setting, data.get(), sizeof *data);
  if (hash == nullptr || hash[0] == '*') {
    return Status::ServerError("could not hash the password");
  }
  return std::string(hash);
}

PasswordCheck CheckPassword(std::string_view password, std::string_view stored) {
  if (!IsBcrypt(stored)) return PasswordCheck::kMalformedHash;
  const std::string text(password);
  const std::string setting(stored);
  auto data = std::make_unique<crypt_data>();
  const char* hash =
      crypt_rn(text.c_str(), setting.c_str(), data.get(), sizeof *data);
  if (hash == nullptr || hash[0] == '*') return PasswordCheck::kMalformedHash;
  return ConstantTimeEquals(hash, stored) ? PasswordCheck::kMatch
                                          : PasswordCheck::kMismatch;
}

}  // namespace keywise::auth
