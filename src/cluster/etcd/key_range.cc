#include "cluster/etcd/key_range.h"

namespace keywise::cluster {

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    const auto last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

KeyRange KeyRange::Prefix(std::string prefix) {
  if (prefix.empty()) {
    // etcd's convention for "all keys": key = range_end = "\0".
    return {std::string(1, '\0'), std::string(1, '\0')};
  }
  std::string end = PrefixEnd(prefix);
  return {std::move(prefix), std::move(end)};
}

}  // namespace keywise::cluster
