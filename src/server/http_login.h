// HttpLogin: who may read the node's HTTP server (/metrics and the web
// console) under PasswordAuthenticator (docs/security.md, 3.8): HTTP Basic
// credentials (RFC 7617) of a role that can log in, checked as a CQL login
// is (auth/login.h: the same answer whether the role is missing or the
// password wrong). Under CassandraAuthorizer the console, which shows every
// table's rows and keys, also needs a superuser; /metrics needs a login
// only (counts and latencies, no data).
//
// A bcrypt check costs milliseconds, and Prometheus and the console's
// pages ask often: a successful check is remembered (the role and a
// SHA-256 of the password, never the password) until the role state
// changes (a new password, a drop, a revoke) or for at most 60 s. Failed
// checks are counted per client address as CQL's (auth/failed_logins.h):
// past the free ones, a login that is not remembered is refused at once
// (429, Retry-After) until the address's window ends, so guessing and
// bcrypt work from one address stay bounded (about five checks a
// minute).
//
// Contract: thread-safe. Check is slow on a cache miss (one bcrypt
// check): call it off the CQL and messaging loops.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "auth/auth_store.h"
#include "auth/failed_logins.h"
#include "auth/sasl_plain.h"
#include "common/status.h"
#include "server/login_counters.h"

namespace keywise::server {

// "Basic <base64 of user:password>" (the scheme in any case); nullopt when
// the header is absent, of another scheme, or malformed.
std::optional<auth::Credentials> ParseBasicAuthorization(
    std::string_view header);

class HttpLogin {
 public:
  // `dummy_hash`: a hash of the configured cost (LoginService's).
  HttpLogin(auth::AuthStore* store, std::string dummy_hash,
            bool superuser_for_console, LoginCounters counters = {});

  struct Outcome {
    int status = 200;     // 200, 401 (ask for credentials), 403 or 429
    std::string message;  // why, for the body (not 200)
  };
  // `authorization`: the request's Authorization header ("" when none);
  // `address`: the client's.
  Outcome Check(std::string_view authorization, bool console,
                const std::string& address);

 private:
  // The role the credentials log in as, or an error (kOverloaded: too
  // many failures from `address`).
  Result<std::string> LogIn(const auth::Credentials& credentials,
                            const std::string& address);

  auth::AuthStore* const store_;
  const std::string dummy_hash_;
  const bool superuser_for_console_;
  const LoginCounters counters_;  // checks, not remembered logins
  auth::FailedLogins failures_{std::chrono::seconds(60)};
  std::mutex mu_;
  struct Remembered {
    uint64_t version;  // the role state's
    std::chrono::steady_clock::time_point until;
  };
  // user NUL SHA-256(password) -> when it logged in.
  std::map<std::string, Remembered> remembered_;  // guarded by mu_
};

}  // namespace keywise::server
