// KeyRange: the keys one etcd request covers, in etcd's own terms.
//
// Contract: a plain value type. etcd reads `range_end` as: empty = just
// `key`; "\0" = every key >= `key`; anything else = [key, range_end).
// Prefix() builds the range of a key prefix the way etcd's own clients do.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace keywise::cluster {

// Returns the smallest key greater than every key that starts with
// `prefix`: the prefix cut after its last byte below 0xff, that byte
// incremented ("/kw/" -> "/kw0", "a\xff" -> "b"). Returns "\0", etcd's
// "no upper bound", when `prefix` is empty or all 0xff bytes.
std::string PrefixEnd(std::string_view prefix);

struct KeyRange {
  std::string key;
  std::string range_end;  // empty: the single key `key`

  // The single key `key`. REQUIRES: key is not empty (etcd refuses it).
  static KeyRange Single(std::string key) { return {std::move(key), {}}; }
  // Every key starting with `prefix`; every key at all when it is empty.
  static KeyRange Prefix(std::string prefix);

  bool is_single() const { return range_end.empty(); }
};

}  // namespace keywise::cluster
