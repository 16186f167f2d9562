#include "server/md5.h"

#include <openssl/evp.h>

#include <cassert>

namespace keywise::server {

std::string Md5(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // Fetched once: EVP_md5() makes every EVP_Digest look the algorithm up
  // again (OpenSSL 3), which cost more than the digest itself.
  static EVP_MD* const kMd5 = EVP_MD_fetch(nullptr, "MD5", nullptr);
  const int ok = EVP_Digest(bytes.data(), bytes.size(), digest, &length,
                            kMd5 != nullptr ? kMd5 : EVP_md5(), nullptr);
  assert(ok == 1 && length == 16);
  (void)ok;
  return std::string(reinterpret_cast<const char*>(digest), length);
}

}  // namespace keywise::server
