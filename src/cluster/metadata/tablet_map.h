// TabletMap: how one table's token range is divided into tablets and where
// each tablet's replicas are (ScyllaDB's tablet map). Tablets are listed in
// token order, each with its last (greatest) token; tablet i covers
//   (last token of tablet i-1, last token of tablet i]
// (tablet 0 from the minimum token), and the last tablet ends at the
// maximum token. A new table gets 2^k tablets of equal token ranges
// (SetEvenBoundaries); splits and merges (docs/cluster.md, "Splits and
// merges") then change single tablets, so the boundaries are stored.
//
// Contract: a plain value, immutable once published (held through
// TabletMapPtr and shared across threads). The replica lists are in
// preference order for nothing: every replica is equal (leaderless).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/token.h"
#include "common/uuid.h"

namespace keywise::cluster {

using TabletId = uint32_t;

// The most tablets a table may have: 2^kMaxTabletLog2.
inline constexpr uint32_t kMaxTabletLog2 = 16;

// A tablet replica on its way from `leaving` to `pending` (a tablet move,
// ScyllaDB's tablet migration). The stages are committed to etcd one at a
// time, and every node has applied one (barrier) before the next begins:
//   kWriteBoth  writes go to the replicas and `pending`; reads use the
//               replicas; the data is streamed to `pending`.
//   kReadNew    writes still go to both; reads use the new replica set
//               (the replicas with `leaving` replaced by `pending`).
// Then the map lists the new set with no transition, and once every node
// has applied that, `leaving` drops the tablet's data. Stored by name
// (TransitionStageName): never renumbered.
//
// A replication factor change uses the same stages with one side empty (a
// nil uuid): no `leaving` adds `pending` as one more replica, no `pending`
// drops `leaving` (there is nothing to stream then).
enum class TransitionStage : uint8_t { kWriteBoth = 0, kReadNew = 1 };
const char* TransitionStageName(TransitionStage stage);
bool ParseTransitionStage(const std::string& name, TransitionStage* stage);

struct TabletTransition {
  Uuid leaving;
  Uuid pending;
  // Which transition this is (random, set by the mover that began it; nil
  // in maps written before ids): a mover advances only the transition it
  // began or resumed, never a later one of the same tablet.
  Uuid id;
  TransitionStage stage = TransitionStage::kWriteBoth;
  // The replica set once done (derived: the replicas with `leaving`
  // replaced by `pending`; set by TabletInfo::Begin and the decoder).
  std::vector<Uuid> after;
  bool operator==(const TabletTransition&) const = default;
};

struct TabletInfo {
  Token last_token{INT64_MAX};
  std::vector<Uuid> replicas;
  std::optional<TabletTransition> transition;

  // Starts moving the replica `leaving` (one of `replicas`) to `pending`
  // (not one of them), at stage kWriteBoth, as transition `id`; either of
  // the first two may be nil (adding or dropping a replica), not both.
  void Begin(const Uuid& leaving, const Uuid& pending, const Uuid& id = Uuid());
  // The replicas reads use: `replicas`, or in stage kReadNew the new set.
  const std::vector<Uuid>& ReadReplicas() const {
    if (transition && transition->stage == TransitionStage::kReadNew) {
      return transition->after;
    }
    return replicas;
  }
  // The replica a write goes to beyond `replicas` (Cassandra's pending
  // endpoint): the transition's `pending`, if any.
  std::optional<Uuid> PendingReplica() const {
    if (!transition || transition->pending == Uuid()) return std::nullopt;
    return transition->pending;
  }
  // Whether `node` replicates the tablet or receives it (the pending
  // replica): a node holding neither has no business with its data.
  bool HeldBy(const Uuid& node) const;
  // Ends the transition: the replicas become the new set.
  void Finish();
  bool operator==(const TabletInfo&) const = default;
};

struct TabletMap {
  Uuid table_id;
  std::string keyspace;
  std::string table;
  // In token order; last_token ascending, the last one the maximum token.
  std::vector<TabletInfo> tablets;

  uint32_t count() const { return static_cast<uint32_t>(tablets.size()); }
  // The tablet holding `token`; REQUIRES: a valid map (CheckBoundaries).
  TabletId TabletOf(Token token) const;
  // The last (greatest) token of tablet `id`; REQUIRES: id < count().
  Token LastToken(TabletId id) const { return tablets[id].last_token; }
  // The first token of tablet `id` (one past the previous tablet's last
  // token; the minimum token for tablet 0).
  Token FirstToken(TabletId id) const;
  // Gives the tablets (a power of two of them) equal token ranges: with
  // 2^k tablets, tablet i holds the tokens whose unbiased value (token +
  // 2^63 as an unsigned number) has i in its top k bits.
  void SetEvenBoundaries();
  // Invalid unless there is at least one tablet, last tokens ascend
  // strictly and the last tablet ends at the maximum token.
  Status CheckBoundaries() const;
  const TabletInfo& TabletAt(Token token) const {
    return tablets[TabletOf(token)];
  }
  bool operator==(const TabletMap&) const = default;
};
using TabletMapPtr = std::shared_ptr<const TabletMap>;

// Splits tablet `id` of `map` after each token of `at` (ascending, each
// at least the tablet's first token and below its last): the parts keep
// the tablet's replicas. Invalid when the tablet is moving or `at` does
// not fit. Data does not move: every part lives where the tablet did.
Status SplitTablet(TabletMap* map, TabletId id, const std::vector<Token>& at);
// Merges tablets `left` and `left + 1` of `map` into one. Invalid unless
// both exist, neither is moving and they have the same replicas (in any
// order): like a split, a merge moves no data.
Status MergeTablets(TabletMap* map, TabletId left);

// Whether `node` is one of `replicas`.
bool HasReplica(const std::vector<Uuid>& replicas, const Uuid& node);

// The smallest k with 2^k >= n (n >= 1), capped at kMaxTabletLog2.
uint32_t Log2Ceil(uint32_t n);

// log2 of the tablets a new table gets: `configured` (initial_tablets) when
// positive, else two per data node; rounded up to a power of two.
uint32_t InitialTabletLog2(int configured, size_t data_nodes);

}  // namespace keywise::cluster
