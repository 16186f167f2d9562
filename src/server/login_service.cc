#include "server/login_service.h"

#include <boost/asio/post.hpp>

#include "auth/login.h"
#include "auth/password_hash.h"
#include "auth/sasl_plain.h"
#include "common/log.h"

namespace keywise::server {
namespace {

constexpr const char* kLog = "auth";

Status TooMany(std::string_view what) {
  return Status(ErrorCode::kBadCredentials,
                "Unable to perform authentication: too many concurrent logins" +
                    std::string(what));
}

// A client-chosen name as a log line may show it: control characters and
// bytes past ASCII escaped, at most 128 of them.
std::string Printable(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < 128; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (text.size() > 128) out += "...";
  return out;
}

}  // namespace

Result<std::unique_ptr<LoginService>> LoginService::Create(
    auth::AuthStore* store, LoginOptions options) {
  KW_ASSIGN_OR_RETURN(std::string dummy,
                      auth::HashPassword("no such role", options.bcrypt_rounds));
  return std::unique_ptr<LoginService>(
      new LoginService(store, options, std::move(dummy)));
}

LoginService::LoginService(auth::AuthStore* store, LoginOptions options,
                           std::string dummy_hash)
    : store_(store),
      dummy_hash_(std::move(dummy_hash)),
      failures_(options.max_delay),
      counters_(options.counters),
      pool_(static_cast<size_t>(std::max(1, options.threads))) {}

LoginService::~LoginService() {
  pool_.stop();
  pool_.join();
}

Result<std::chrono::milliseconds> LoginService::Admit(
    const std::string& client_address) {
  {
    std::lock_guard lock(admitted_mu_);
    int& n = admitted_[client_address];
    if (n >= kMaxPerAddress) return TooMany(" from this address");
    ++n;
  }
  return failures_.DelayBefore(client_address,
                               auth::FailedLogins::Clock::now());
}

void LoginService::Abandon(const std::string& client_address) {
  std::lock_guard lock(admitted_mu_);
  auto it = admitted_.find(client_address);
  if (it != admitted_.end() && --it->second <= 0) admitted_.erase(it);
}

void LoginService::Login(std::string token, std::string client_address,
                         Done done) {
  if (queued_.fetch_add(1) >= kMaxQueued) {
    queued_.fetch_sub(1);
    Abandon(client_address);
    done(TooMany(""));
    return;
  }
  boost::asio::post(pool_, [this, token = std::move(token),
                            address = std::move(client_address),
                            done = std::move(done)] {
    queued_.fetch_sub(1);
    Check(token, address, done);
    Abandon(address);
  });
}

void LoginService::Check(const std::string& token, const std::string& address,
                         const Done& done) {
  Result<auth::Credentials> credentials = auth::DecodeSaslPlain(token);
  Status status = credentials.status();
  if (credentials.ok()) {
    bool malformed = false;
    status = auth::CheckLogin(*store_->Current(), *credentials, dummy_hash_,
                              &malformed);
    if (malformed) {
      LogWarn(kLog, "Error: invalid password hash encountered, rejecting user " +
                        Printable(credentials->user));
    }
    if (status.ok()) {
      counters_.Count(true);
      done(std::move(credentials->user));
      return;
    }
  }
  counters_.Count(false);
  const auth::FailedLogins::Verdict verdict =
      failures_.Failure(address, auth::FailedLogins::Clock::now());
  if (verdict.log) {
    LogWarn(kLog, "Failed login for role '" +
                      (credentials.ok() ? Printable(credentials->user)
                                        : std::string()) +
                      "' from " + (address.empty() ? "?" : address) + " (" +
                      std::to_string(verdict.failures) + " failures in " +
                      std::to_string(auth::FailedLogins::kWindow.count()) +
                      " s): " + Printable(status.message()));
  }
  done(status);
}

}  // namespace keywise::server
