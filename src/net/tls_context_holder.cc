#include "net/tls_context_holder.h"

#include <openssl/asn1.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <ctime>
#include <utility>

#include <boost/asio/ssl/context.hpp>

namespace keywise::net {
namespace {

// The end of the validity of the certificate `context` presents, in
// seconds since the Unix epoch; 0 when none.
int64_t NotAfter(boost::asio::ssl::context& context) {
  X509* cert = SSL_CTX_get0_certificate(context.native_handle());
  if (cert == nullptr) return 0;
  struct tm end {};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &end) != 1) return 0;
  return static_cast<int64_t>(timegm(&end));
}

}  // namespace

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
  KW_ASSIGN_OR_RETURN(Context first, holder->build_());
  holder->Install(std::move(first));
  return holder;
}

void TlsContextHolder::Install(Context context) {
  const int64_t not_after = context != nullptr ? NotAfter(*context) : 0;
  std::lock_guard lock(mu_);
  current_ = std::move(context);
  not_after_ = not_after;
}

TlsContextHolder::Context TlsContextHolder::Current() const {
  std::lock_guard lock(mu_);
  return current_;
}

int64_t TlsContextHolder::CertificateNotAfter() const {
  std::lock_guard lock(mu_);
  return not_after_;
}

Result<bool> TlsContextHolder::ReloadIfChanged() {
  std::lock_guard reload_lock(reload_mu_);
  std::vector<FileStamp> now = Stamp(files_);
  if (now == stamps_) return false;
  KW_ASSIGN_OR_RETURN(Context built, build_());
  Install(std::move(built));
  stamps_ = std::move(now);
  return true;
}

}  // namespace keywise::net
