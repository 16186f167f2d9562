// LoginCounters: keywise_auth_logins_total{protocol, outcome}, the logins
// checked under PasswordAuthenticator (docs/metrics.md): CQL's
// (server/login_service.h) and the HTTP server's (server/http_login.h).
//
// Contract: For() registers the series once per protocol; Count is
// thread-safe and does nothing without a registry.
#pragma once

#include <string>
#include <string_view>

#include "metrics/registry.h"

namespace keywise::server {

struct LoginCounters {
  metrics::Counter* success = nullptr;
  metrics::Counter* failure = nullptr;

  // `registry` null: nothing counted.
  static LoginCounters For(metrics::Registry* registry,
                           std::string_view protocol) {
    LoginCounters out;
    if (registry == nullptr) return out;
    constexpr std::string_view kHelp =
        "Logins checked under PasswordAuthenticator, by protocol (cql, "
        "http) and outcome (success, failure).";
    out.success = &registry->GetCounter(
        "keywise_auth_logins_total", kHelp,
        {{"protocol", std::string(protocol)}, {"outcome", "success"}});
    out.failure = &registry->GetCounter(
        "keywise_auth_logins_total", kHelp,
        {{"protocol", std::string(protocol)}, {"outcome", "failure"}});
    return out;
  }
  void Count(bool ok) const {
    metrics::Counter* c = ok ? success : failure;
    if (c != nullptr) c->Add();
  }
};

}  // namespace keywise::server
