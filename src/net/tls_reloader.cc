#include "net/tls_reloader.h"

#include <utility>

#include "common/log.h"

namespace keywise::net {
namespace {
constexpr char kReloadLog[] = "tls";
}  // namespace

TlsReloader::TlsReloader(
    std::vector<std::shared_ptr<TlsContextHolder>> holders)
    : holders_(std::move(holders)) {}

TlsReloader::~TlsReloader() { Stop(); }

Result<std::string> TlsReloader::CheckNow() {
  std::string lines;
  Status failed;
  for (const auto& holder : holders_) {
    Result<bool> reloaded = holder->ReloadIfChanged();
    if (!reloaded.ok()) {
      failures_.fetch_add(1);
      LogError(kReloadLog,
               "Failed to hot reload the SSL Certificates! Please check the "
               "certificate files. (" + holder->name() + ": " +
                   reloaded.status().message() + ")");
      lines += holder->name() + ": not reloaded: " +
               reloaded.status().message() + "\n";
      if (failed.ok()) failed = reloaded.status();
      continue;
    }
    if (*reloaded) {
      LogInfo(kReloadLog, "Reloaded the certificates of " + holder->name() +
                              ": new connections use them");
    }
    lines += holder->name() + (*reloaded ? ": reloaded\n" : ": unchanged\n");
  }
  if (!failed.ok()) return Status(failed.code(), lines);
  return lines;
}

void TlsReloader::Start(std::chrono::milliseconds period) {
  thread_ = std::thread([this, period] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, period, [this] { return stop_; })) {
      lock.unlock();
      (void)CheckNow();  // logged
      lock.lock();
    }
  });
}

void TlsReloader::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace keywise::net
