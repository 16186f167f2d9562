// LoginService: PasswordAuthenticator's side of the CQL handshake
// (docs/security.md, 1.2-1.6). A connection asks Admit first: it says how
// long the login must wait (an address that keeps failing waits before each
// check, so guesses are slowed however many a client pipelines or
// connects), or refuses it (more than kMaxPerAddress logins of one address
// waiting or being checked). Then Login decodes the SASL PLAIN credentials
// and checks them against the role store on threads of its own (a bcrypt
// check takes tens of milliseconds and must never run on an I/O loop),
// records failures, logs them (rate-limited, control characters escaped),
// and calls back.
//
// Contract: thread-safe. Every admitted login is followed by exactly one
// Login or Abandon. `done` runs on one of the service's threads, or at
// once on the caller's when the queue is full. The store outlives the
// service; the destructor drops checks not yet started and waits for the
// running ones.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <boost/asio/thread_pool.hpp>

#include "auth/auth_store.h"
#include "auth/failed_logins.h"
#include "common/status.h"
#include "server/login_counters.h"

namespace keywise::server {

// What AUTHENTICATE names (gocql accepts no other name).
inline constexpr std::string_view kPasswordAuthenticatorClass =
    "org.apache.cassandra.auth.PasswordAuthenticator";

struct LoginOptions {
  int bcrypt_rounds = 10;  // of the dummy hash that missing roles cost
  std::chrono::milliseconds max_delay{5000};
  int threads = 1;
  LoginCounters counters;  // none by default
};

class LoginService {
 public:
  static constexpr size_t kMaxQueued = 1024;
  static constexpr int kMaxPerAddress = 16;

  // Makes the dummy hash (one bcrypt hash of the configured cost).
  static Result<std::unique_ptr<LoginService>> Create(auth::AuthStore* store,
                                                      LoginOptions options);
  ~LoginService();

  // How long a login from `client_address` must wait before Login, or
  // BadCredentials when that address has too many logins under way.
  Result<std::chrono::milliseconds> Admit(const std::string& client_address);
  // An admitted login that will not go on (its connection closed).
  void Abandon(const std::string& client_address);

  // A hash of the configured cost, for checks of a missing role.
  const std::string& dummy_hash() const { return dummy_hash_; }
  // The role logged in, or BadCredentials.
  using Done = std::function<void(Result<std::string> user)>;
  void Login(std::string token, std::string client_address, Done done);

 private:
  LoginService(auth::AuthStore* store, LoginOptions options,
               std::string dummy_hash);
  void Check(const std::string& token, const std::string& address,
             const Done& done);

  auth::AuthStore* const store_;
  const std::string dummy_hash_;
  auth::FailedLogins failures_;
  const LoginCounters counters_;
  std::atomic<size_t> queued_{0};
  std::mutex admitted_mu_;
  std::map<std::string, int> admitted_;  // address -> logins under way
  boost::asio::thread_pool pool_;
};

}  // namespace keywise::server
