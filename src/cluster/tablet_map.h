// TabletMap: how one table's token range is divided into tablets and where
// each tablet's replicas are (ScyllaDB's tablet map). A table has 2^k
// tablets; tablet i holds the tokens whose unbiased value (token + 2^63,
// as an unsigned 64-bit number) has i in its top k bits, so tablet i covers
//   (kMin + i * 2^(64-k) - 1, kMin + (i + 1) * 2^(64-k) - 1]
// and the last tablet ends at the maximum token. Splitting tablet i gives
// tablets 2i and 2i+1 with the same replicas.
//
// Contract: a plain value, immutable once published (held through
// TabletMapPtr and shared across threads). The replica lists are in
// preference order for nothing: every replica is equal (leaderless).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/uuid.h"
#include "common/token.h"

namespace keywise::cluster {

using TabletId = uint32_t;

// The most tablets a table may have: 2^kMaxTabletLog2.
inline constexpr uint32_t kMaxTabletLog2 = 16;

struct TabletInfo {
  std::vector<Uuid> replicas;
  bool operator==(const TabletInfo&) const = default;
};

struct TabletMap {
  Uuid table_id;
  std::string keyspace;
  std::string table;
  uint32_t log2_count = 0;  // the table has 2^log2_count tablets
  std::vector<TabletInfo> tablets;

  uint32_t count() const { return uint32_t{1} << log2_count; }
  // The tablet holding `token`.
  TabletId TabletOf(Token token) const;
  // The last (greatest) token of tablet `id`; REQUIRES: id < count().
  Token LastToken(TabletId id) const;
  // The first token of tablet `id` (one past the previous tablet's last
  // token; the minimum token for tablet 0).
  Token FirstToken(TabletId id) const;
  const std::vector<Uuid>& ReplicasOf(Token token) const {
    return tablets[TabletOf(token)].replicas;
  }
  bool operator==(const TabletMap&) const = default;
};
using TabletMapPtr = std::shared_ptr<const TabletMap>;

// The smallest k with 2^k >= n (n >= 1), capped at kMaxTabletLog2.
uint32_t Log2Ceil(uint32_t n);

// log2 of the tablets a new table gets: `configured` (initial_tablets) when
// positive, else two per data node; rounded up to a power of two.
uint32_t InitialTabletLog2(int configured, size_t data_nodes);

}  // namespace keywise::cluster
