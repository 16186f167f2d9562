#include "server/http_login.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cctype>
#include <vector>

#include "auth/login.h"
#include "common/log.h"

namespace keywise::server {
namespace {

constexpr auto kRememberFor = std::chrono::seconds(60);
constexpr size_t kMaxRemembered = 1024;

bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) {
      return false;
    }
  }
  return true;
}

std::string RememberKey(const auth::Credentials& c) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(c.password.data()),
         c.password.size(), digest);
  std::string key = c.user;
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(digest), sizeof(digest));
  return key;
}

}  // namespace

std::optional<auth::Credentials> ParseBasicAuthorization(
    std::string_view header) {
  if (!StartsWithIgnoringCase(header, "basic ")) return std::nullopt;
  std::string_view encoded = header.substr(6);
  while (!encoded.empty() && encoded.front() == ' ') encoded.remove_prefix(1);
  while (!encoded.empty() && encoded.back() == ' ') encoded.remove_suffix(1);
  if (encoded.empty() || encoded.size() % 4 != 0 || encoded.size() > 4096) {
    return std::nullopt;
  }
  std::vector<unsigned char> decoded(encoded.size() / 4 * 3 + 1);
  const int n = EVP_DecodeBlock(
      decoded.data(), reinterpret_cast<const unsigned char*>(encoded.data()),
      static_cast<int>(encoded.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding's bytes too.
  size_t size = static_cast<size_t>(n);
  if (encoded.back() == '=') --size;
  if (encoded.size() >= 2 && encoded[encoded.size() - 2] == '=') --size;
  const std::string_view text(reinterpret_cast<const char*>(decoded.data()),
                              size);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return auth::Credentials{std::string(text.substr(0, colon)),
                           std::string(text.substr(colon + 1))};
}

HttpLogin::HttpLogin(auth::AuthStore* store, std::string dummy_hash,
                     bool superuser_for_console, LoginCounters counters)
    : store_(store),
      dummy_hash_(std::move(dummy_hash)),
      superuser_for_console_(superuser_for_console),
      counters_(counters) {}

Result<std::string> HttpLogin::LogIn(const auth::Credentials& credentials,
                                     const std::string& address) {
  std::shared_ptr<const auth::AuthState> state = store_->Current();
  const std::string key = RememberKey(credentials);
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = remembered_.find(key);
    if (it != remembered_.end() && it->second.version == state->version() &&
        it->second.until > now) {
      return credentials.user;
    }
  }
  if (failures_.DelayBefore(address, auth::FailedLogins::Clock::now()) >
      std::chrono::milliseconds(0)) {
    return Status(ErrorCode::kOverloaded,
                  "Too many failed logins from " + address +
                      "; try again in a minute.");
  }
  Status checked = auth::CheckLogin(*state, credentials, dummy_hash_);
  counters_.Count(checked.ok());
  if (!checked.ok()) {
    const auth::FailedLogins::Verdict verdict =
        failures_.Failure(address, auth::FailedLogins::Clock::now());
    if (verdict.log) {
      LogWarn("auth", "Failed HTTP login from " + address + " (" +
                          std::to_string(verdict.failures) +
                          " failures in 60 s)");
    }
    return checked;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (remembered_.size() >= kMaxRemembered) remembered_.clear();
  remembered_[key] = Remembered{state->version(), now + kRememberFor};
  return credentials.user;
}

HttpLogin::Outcome HttpLogin::Check(std::string_view authorization,
                                    bool console, const std::string& address) {
  std::optional<auth::Credentials> credentials =
      ParseBasicAuthorization(authorization);
  if (!credentials) {
    return Outcome{401, "This node asks for a role's credentials (HTTP Basic)."};
  }
  Result<std::string> user = LogIn(*credentials, address);
  if (!user.ok()) {
    const bool overloaded = user.status().code() == ErrorCode::kOverloaded;
    return Outcome{overloaded ? 429 : 401, user.status().message()};
  }
  if (console && superuser_for_console_ && !store_->Current()->IsSuper(*user)) {
    return Outcome{403, "The console shows every table's data: role " + *user +
                            " is not a superuser."};
  }
  return Outcome{};
}

}  // namespace keywise::server
