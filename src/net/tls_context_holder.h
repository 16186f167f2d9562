// TlsContextHolder: the TLS context a port's new connections use, rebuilt
// when the files it was built from change (docs/security.md, 5.4).
//
// A holder remembers each file's modification time, size and inode as of
// the build of its current context. ReloadIfChanged compares them with the
// files now and, if any differs, builds a new context: on success new
// connections take it (connections already open keep theirs: each holds
// its context); on failure the current one stays and the error is
// returned, so a half-written certificate never replaces a working one.
//
// Contract: thread-safe. Current() takes a mutex and copies a shared_ptr
// (once per connection). ReloadIfChanged calls run one at a time.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace keywise::net {

class TlsContextHolder {
 public:
  using Context = std::shared_ptr<boost::asio::ssl::context>;
  using Builder = std::function<Result<Context>()>;

  // Builds the first context with `build` (its error is returned as is)
  // and remembers `files` (empty names are skipped). `name` names the
  // holder in messages ("server_encryption_options").
  static Result<std::shared_ptr<TlsContextHolder>> Create(
      std::string name, std::vector<std::string> files, Builder build);

  const std::string& name() const { return name_; }
  // The context for a new connection.
  Context Current() const;
  // When the certificate the current context presents expires, in seconds
  // since the Unix epoch; 0 when it presents none.
  int64_t CertificateNotAfter() const;
  // Builds and installs a new context if a file changed (or is gone: the
  // build then fails). Returns true when one was installed, false when no
  // file changed.
  Result<bool> ReloadIfChanged();

 private:
  struct FileStamp {
    std::string path;
    // Of stat(2); all zero when the file could not be read.
    int64_t mtime_ns = 0;
    int64_t size = 0;
    uint64_t inode = 0;
    bool operator==(const FileStamp&) const = default;
  };
  static std::vector<FileStamp> Stamp(const std::vector<std::string>& files);

  TlsContextHolder(std::string name, std::vector<std::string> files,
                   Builder build)
      : name_(std::move(name)),
        files_(std::move(files)),
        build_(std::move(build)) {}

  const std::string name_;
  const std::vector<std::string> files_;
  const Builder build_;
  std::mutex reload_mu_;  // one reload at a time
  // Installs `context` and its certificate's end. REQUIRES: reload_mu_
  // held, or the holder not yet shared.
  void Install(Context context);

  mutable std::mutex mu_;
  Context current_;                // guarded by mu_
  int64_t not_after_ = 0;          // guarded by mu_
  std::vector<FileStamp> stamps_;  // guarded by reload_mu_
};

}  // namespace keywise::net
