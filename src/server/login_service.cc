#include "server/login_service.h"

#include <boost/asio/post.hpp>

#include "auth/login.h"
#include "auth/password_hash.h"
#include "auth/sasl_plain.h"
#include "common/log.h"

namespace keywise::server {
namespace {

constexpr const char* kLog = "auth";

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
      pool_(static_cast<size_t>(std::max(1, options.threads))) {}

LoginService::~LoginService() { pool_.join(); }

void LoginService::Login(std::string token, std::string client_address,
                         Done done) {
  if (queued_.fetch_add(1) >= kMaxQueued) {
    queued_.fetch_sub(1);
    done(Status(ErrorCode::kBadCredentials,
                "Unable to perform authentication: too many concurrent logins"),
         std::chrono::milliseconds(0));
    return;
  }
  boost::asio::post(pool_, [this, token = std::move(token),
                            address = std::move(client_address),
                            done = std::move(done)] {
    queued_.fetch_sub(1);
    Check(token, address, done);
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
                        credentials->user);
    }
    if (status.ok()) {
      done(std::move(credentials->user), std::chrono::milliseconds(0));
      return;
    }
  }
  const auth::FailedLogins::Verdict verdict =
      failures_.Failure(address, auth::FailedLogins::Clock::now());
  if (verdict.log) {
    LogWarn(kLog, "Failed login for role '" +
                      (credentials.ok() ? credentials->user : std::string()) +
                      "' from " + (address.empty() ? "?" : address) + " (" +
                      std::to_string(verdict.failures) + " failures in " +
                      std::to_string(auth::FailedLogins::kWindow.count()) +
                      " s): " + status.message());
  }
  done(status, verdict.delay);
}

}  // namespace keywise::server
