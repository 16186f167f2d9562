// LoginService: PasswordAuthenticator's side of the CQL handshake
// (docs/security.md, 1.2-1.6). A connection hands it an AUTH_RESPONSE token;
// it decodes the SASL PLAIN credentials and checks them against the role
// store on threads of its own (a bcrypt check takes tens of milliseconds and
// must never run on an I/O loop), counts failures per client address to
// slow guessing down, logs them (rate-limited), and calls back with the
// outcome and how long to hold the answer back.
//
// Contract: thread-safe. `done` runs on one of the service's threads. The
// store outlives the service; the destructor waits for running checks.
// Past kMaxQueued checks waiting, a login fails at once with
// "Unable to perform authentication: too many concurrent logins".
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/thread_pool.hpp>

#include "auth/auth_store.h"
#include "auth/failed_logins.h"
#include "common/status.h"

namespace keywise::server {

// What AUTHENTICATE names (gocql accepts no other name).
inline constexpr std::string_view kPasswordAuthenticatorClass =
    "org.apache.cassandra.auth.PasswordAuthenticator";

struct LoginOptions {
  int bcrypt_rounds = 10;  // of the dummy hash that missing roles cost
  std::chrono::milliseconds max_delay{5000};
  int threads = 1;
};

class LoginService {
 public:
  static constexpr size_t kMaxQueued = 1024;

  // Makes the dummy hash (one bcrypt hash of the configured cost).
  static Result<std::unique_ptr<LoginService>> Create(auth::AuthStore* store,
                                                      LoginOptions options);
  ~LoginService();

  // The role logged in, or BadCredentials; `delay`: hold the answer back
  // this long (a failure from an address that keeps failing).
  using Done = std::function<void(Result<std::string> user,
                                  std::chrono::milliseconds delay)>;
  void Login(std::string token, std::string client_address, Done done);

 private:
  LoginService(auth::AuthStore* store, LoginOptions options,
               std::string dummy_hash);
  void Check(const std::string& token, const std::string& address,
             const Done& done);

  auth::AuthStore* const store_;
  const std::string dummy_hash_;
  auth::FailedLogins failures_;
  std::atomic<size_t> queued_{0};
  boost::asio::thread_pool pool_;
};

}  // namespace keywise::server
