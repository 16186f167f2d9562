#include "auth/sasl_plain.h"

#include <optional>

namespace keywise::auth {
namespace {

Status Bad(std::string message) {
  return Status(ErrorCode::kBadCredentials, std::move(message));
}

}  // namespace

Result<Credentials> DecodeSaslPlain(std::string_view token) {
  std::optional<std::string_view> user;
  std::optional<std::string_view> password;
  size_t end = token.size();
  for (size_t i = token.size(); i-- > 0;) {
    if (token[i] != '\0') continue;
    const std::string_view part = token.substr(i + 1, end - i - 1);
    if (!password) {
      password = part;
    } else if (!user) {
      user = part;
    } else {
      return Bad(
          "Credential format error: username or password is empty or "
          "contains NUL(\\0) character");
    }
    end = i;
  }
  if (!password || password->empty()) return Bad("Password must not be null");
  if (!user || user->empty()) return Bad("Authentication ID must not be null");
  return Credentials{std::string(*user), std::string(*password)};
}

std::string EncodeSaslPlain(std::string_view user, std::string_view password) {
  std::string out(1, '\0');
  out.append(user);
  out.push_back('\0');
  out.append(password);
  return out;
}

}  // namespace keywise::auth
