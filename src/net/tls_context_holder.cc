#include "net/tls_context_holder.h"

#include <sys/stat.h>

#include <utility>

namespace keywise::net {

std::vector<TlsContextHolder::FileStamp> TlsContextHolder::Stamp(
    const std::vector<std::string>& files) {
  std::vector<FileStamp> stamps;
  for (const std::string& path : files) {
    FileStamp stamp;
    stamp.path = path;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
      stamp.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 +
                       st.st_mtim.tv_nsec;
      stamp.size = st.st_size;
      stamp.inode = st.st_ino;
    }
    stamps.push_back(std::move(stamp));
  }
  return stamps;
}

Result<std::shared_ptr<TlsContextHolder>> TlsContextHolder::Create(
    std::string name, std::vector<std::string> files, Builder build) {
  std::vector<std::string> named;
  for (std::string& file : files) {
    if (!file.empty()) named.push_back(std::move(file));
  }
  std::shared_ptr<TlsContextHolder> holder(
      new TlsContextHolder(std::move(name), std::move(named), std::move(build)));
  // Stamped before the build: a file changed while it is read is seen as
  // changed at the next check.
  holder->stamps_ = Stamp(holder->files_);
  KW_ASSIGN_OR_RETURN(holder->current_, holder->build_());
  return holder;
}

TlsContextHolder::Context TlsContextHolder::Current() const {
  std::lock_guard lock(mu_);
  return current_;
}

Result<bool> TlsContextHolder::ReloadIfChanged() {
  std::lock_guard reload_lock(reload_mu_);
  std::vector<FileStamp> now = Stamp(files_);
  if (now == stamps_) return false;
  KW_ASSIGN_OR_RETURN(Context built, build_());
  {
    std::lock_guard lock(mu_);
    current_ = std::move(built);
  }
  stamps_ = std::move(now);
  return true;
}

}  // namespace keywise::net
