#include "cluster/coordinator/raw_digest.h"

#include <xxhash.h>

#include "storage/raw_partition_codec.h"

namespace keywise::cluster {

std::string DigestOfEncoded(std::string_view encoded) {
  const XXH128_hash_t h = XXH3_128bits(encoded.data(), encoded.size());
  std::string out(kRawDigestBytes, '\0');
  for (int i = 0; i < 8; ++i) {
    out[static_cast<size_t>(i)] = static_cast<char>(h.high64 >> (56 - 8 * i));
    out[static_cast<size_t>(8 + i)] =
        static_cast<char>(h.low64 >> (56 - 8 * i));
  }
  return out;
}

std::string RawDigest(const RawPartition& partition) {
  std::string encoded;
  EncodeRawPartition(partition, &encoded);
  return DigestOfEncoded(encoded);
}

}  // namespace keywise::cluster
