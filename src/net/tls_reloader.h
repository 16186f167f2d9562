// TlsReloader: checks a node's TLS contexts for changed files, every
// period (Cassandra's 600 s) and when asked (`keywise admin reloadssl`),
// as docs/security.md 5.4 describes.
//
// Each check calls ReloadIfChanged on every holder: a holder whose files
// changed gets a new context, logged at INFO; one whose new files do not
// load keeps its context, logged at ERROR with Cassandra's words ("Failed
// to hot reload the SSL Certificates! Please check the certificate
// files.") and the reason.
//
// Contract: thread-safe. Start runs the periodic checks on a thread of the
// reloader's own until Stop (or the destructor).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "net/tls_context_holder.h"

namespace keywise::net {

class TlsReloader {
 public:
  explicit TlsReloader(std::vector<std::shared_ptr<TlsContextHolder>> holders);
  ~TlsReloader();
  TlsReloader(const TlsReloader&) = delete;
  TlsReloader& operator=(const TlsReloader&) = delete;

  // Checks every holder now. Returns one line per holder ("client_encryption_options:
  // reloaded" / "unchanged"), or the first failure's error after trying
  // them all.
  Result<std::string> CheckNow();

  // Checks every `period` on a thread. REQUIRES: not started.
  void Start(std::chrono::milliseconds period);
  void Stop();

  bool empty() const { return holders_.empty(); }
  const std::vector<std::shared_ptr<TlsContextHolder>>& holders() const {
    return holders_;
  }
  // Checks that failed to load changed files, since the start.
  uint64_t failures() const { return failures_.load(); }

 private:
  const std::vector<std::shared_ptr<TlsContextHolder>> holders_;
  std::atomic<uint64_t> failures_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace keywise::net
