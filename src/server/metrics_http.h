// MetricsHttpServer: the node's HTTP server. GET /metrics answers the
// registry's Prometheus text exposition (metrics/registry.h) on the
// server's own I/O thread; every other path goes to the web console
// (console/console.h: its pages and JSON, read-only), once one is
// attached, on a worker thread of the server's own, so a slow console
// read delays neither a scrape nor the CQL and messaging loops. Methods
// other than GET and HEAD answer 405; unknown paths 404.
//
// Under PasswordAuthenticator (RequireLogin) every request needs a role's
// credentials, checked by the HttpLogin attached (server/http_login.h);
// until one is, requests answer 503. A refused request answers 401 (with
// WWW-Authenticate: Basic) or 403; the check runs on the server's I/O
// thread (a bcrypt check on a cache miss).
//
// Contract: Start once (binds, then serves until Stop or destruction);
// the registry outlives the server. SetConsole may be called from any
// thread; a console attached must stay alive until it is detached
// (SetConsole(nullptr), which waits for a console request in progress) or
// the server stops. Connections are answered one request each and closed;
// a client that sends nothing in 10 s, or headers over 8 KiB, is dropped.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "server/http_login.h"
#include "metrics/registry.h"

namespace keywise::console {
class Console;
}

namespace keywise::server {

class MetricsHttpServer {
 public:
  explicit MetricsHttpServer(const metrics::Registry* registry);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // Binds `address`:`port` (0: any free port) and starts serving.
  Status Start(const std::string& address, int port);
  void Stop();
  // Serves the console's paths from `console` (nullptr: answers 503 for
  // them until one is attached). Returns once no request of the console
  // previously attached is being answered.
  void SetConsole(const console::Console* console);
  // Every request needs credentials from now on (call before Start).
  void RequireLogin();
  // What checks them (nullptr: nothing yet, requests answer 503). Any
  // thread.
  void SetLogin(std::shared_ptr<HttpLogin> login);
  // The bound port (after Start).
  int port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace keywise::server
