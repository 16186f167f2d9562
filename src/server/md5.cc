#include "server/md5.h"

#include <openssl/evp.h>

#include <cassert>

namespace keywise::server {

std::string Md5(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  const int ok = EVP_Digest(bytes.data(), bytes.size(), digest, &length,
                            EVP_md5(), nullptr);
  assert(ok == 1 && length == 16);
  (void)ok;
  return std::string(reinterpret_cast<const char*>(digest), length);
}

}  // namespace keywise::server
