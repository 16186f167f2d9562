#include "cluster/etcd/base64.h"

#include <openssl/evp.h>

namespace keywise::cluster {

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  if (bytes.empty()) return out;
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::Invalid("base64 text length is not a multiple of 4");
  }
  if (text.empty()) return std::string();
  std::string out(3 * (text.size() / 4), '\0');
  // EVP_DecodeBlock skips leading/trailing blanks, which the gateway never
  // sends; refuse them so a wrong length cannot slip through.
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      return Status::Invalid("base64 text contains blanks");
    }
  }
  const int n =
      EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(text.data()),
                      static_cast<int>(text.size()));
  if (n < 0) return Status::Invalid("malformed base64 text");
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t padding = 0;
  if (text.back() == '=') ++padding;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

}  // namespace keywise::cluster
